/* The free check inside a node: threads of one node that pass a different
 * count (also one that takes another path: 3 against 3000 elements), type,
 * op or root to allreduce, reduce, bcast, gather or alltoall end the call
 * without writing a buffer or the heap: the thread that differs from its
 * node's other threads returns SIMPLE_ERR_ARG, every other thread of its
 * node SIMPLE_ERR_PEER, and the other nodes SIMPLE_ERR_PEER where the
 * call's verdict reaches them (every thread in allreduce and alltoall; in
 * reduce, bcast and gather as for any argument error: docs/api.md), else
 * success. No SIMPLE_CHECK. Each failed call is followed by a correct
 * one whose result is checked against closed forms. Buffers are sized for
 * each thread's own arguments, so a check that let a call through would
 * write out of bounds (seen by glibc or the sanitizers). Offenders: the
 * last thread of the job and the last thread of the first node with two
 * threads or more (a tie of two threads: the lower one is the reference).
 * Also: one thread calling another collective than its node's others,
 * and a whole node passing another type than the other nodes (bcast,
 * allgather), and a tie that makes the wrong thread's call the node's
 * reference (wrong_reference). Layouts without a node of two threads run
 * the correct calls and the between-nodes case only. */
#include "harness.h"
#include "verdict_rules.h"

enum { C_ALLREDUCE, C_REDUCE, C_BCAST, C_GATHER, C_ALLTOALL, C_COUNT };
static const char *const names[C_COUNT] = {"allreduce", "reduce", "bcast", "gather", "alltoall"};
enum { V_COUNT, V_TYPE, V_OP, V_ROOT, V_N };
static const char *const vnames[V_N] = {"count", "type", "op", "root"};

typedef struct {
  simple_t *s;
  int p, me, root;
  size_t n;
  size_t odd_n; /* the offender's count (0: 3000 for small n, else 3) */
} ctx_t;

static long long val(int j, int k, size_t i) {
  return (long long)j * 1000003 + (long long)k * 1009 + (long long)i;
}

/* One call; the offender o (o < 0: none) changes argument `v`. Returns
 * the code; a correct call's results are checked here. */
static int call(const ctx_t *c, int w, int v, int o) {
  simple_t *s = c->s;
  size_t n = c->n;
  simple_type_t type = SIMPLE_INT64;
  simple_op_t op = SIMPLE_SUM;
  int root = c->root, p = c->p, me = c->me;
  if (me == o) {
    if (v == V_COUNT) n = c->odd_n ? c->odd_n : n < 100 ? 3000 : 3;
    if (v == V_TYPE) type = SIMPLE_INT32;
    if (v == V_OP) op = SIMPLE_MAX;
    if (v == V_ROOT) root = (root + 1) % p;
  }
  /* Room for this thread's own arguments only (8 bytes an element also
   * holds an INT32). */
  size_t per = w == C_ALLTOALL ? (size_t)p * n : n;
  size_t rper = w == C_ALLTOALL || (w == C_GATHER && me == root) ? (size_t)p * n : n;
  long long *x = malloc((per ? per : 1) * 8), *y = malloc((rper ? rper : 1) * 8);
  CHECK(x && y);
  for (size_t i = 0; i < per; i++)
    x[i] = w == C_ALLTOALL ? val(me, (int)(i / n), i % n) : w == C_BCAST ? -1 : val(me, 0, i);
  if (w == C_BCAST && me == root)
    for (size_t i = 0; i < n; i++) x[i] = val(root, 0, i);
  for (size_t i = 0; i < rper; i++) y[i] = -7;
  int rc;
  switch (w) {
    case C_ALLREDUCE: rc = simple_allreduce(s, x, y, n, type, op); break;
    case C_REDUCE: rc = simple_reduce(s, x, y, n, type, op, root); break;
    case C_BCAST: rc = simple_bcast(s, x, n, type, root); break;
    case C_GATHER: rc = simple_gather(s, x, y, n, type, root); break;
    default: rc = simple_alltoall(s, x, y, n, type); break;
  }
  if (o < 0) {
    CHECK_OK(rc);
    long long sumj = (long long)p * (p - 1) / 2 * 1000003;
    for (size_t i = 0; i < n; i++) {
      long long want = 0, got = 0;
      switch (w) {
        case C_ALLREDUCE:
        case C_REDUCE:
          if (w == C_REDUCE && me != root) continue;
          want = sumj + (long long)p * (long long)i;
          got = y[i];
          break;
        case C_BCAST:
          want = val(root, 0, i);
          got = x[i];
          break;
        case C_GATHER:
          if (me != root) continue;
          for (int j = 0; j < p; j++)
            if (y[(size_t)j * n + i] != val(j, 0, i))
              simple_abort(s, "gather: block %d element %zu is %lld", j, i, y[(size_t)j * n + i]);
          continue;
        default:
          for (int j = 0; j < p; j++)
            if (y[(size_t)j * n + i] != val(j, me, i))
              simple_abort(s, "alltoall: block %d element %zu is %lld", j, i, y[(size_t)j * n + i]);
          continue;
      }
      if (got != want)
        simple_abort(s, "%s n %zu: element %zu is %lld, expected %lld", names[w], n, i, got, want);
    }
  } else if (rc != 0 && simple_node(s) == simple_node_of(s, o)) {
    /* The offender's node writes no buffer (on other nodes a failed gather
     * or alltoall may leave partial results: docs/api.md). */
    for (size_t i = 0; i < rper; i++)
      if (y[i] != -7)
        simple_abort(s, "%s (%s differs on %d, n %zu) failed with %s but wrote its buffer",
                     names[w], vnames[v], o, c->n, simple_errname(rc));
  }
  free(x);
  free(y);
  return rc;
}

/* What thread `me` returns when o differs (docs/api.md's table), given
 * what it returned (rc): a reduce's node off the offender's way to the
 * root's node may hear of it too, where the schedule is an allreduce's
 * (Rabenseifner's above 8 KiB on 4 nodes and more). */
static int expected(const ctx_t *c, int w, int o, int rc) {
  simple_t *s = c->s;
  if (c->me == o) return SIMPLE_ERR_ARG;
  int mine = simple_node(s), on = simple_node_of(s, o), rn = simple_node_of(s, c->root);
  if (mine == on || w == C_ALLREDUCE || w == C_ALLTOALL) return SIMPLE_ERR_PEER;
  if (w == C_REDUCE)
    return verdict_on_way_up(mine, on, rn, simple_nodes(s)) || rc == SIMPLE_ERR_PEER
               ? SIMPLE_ERR_PEER
               : 0;
  if (w == C_GATHER) return mine == rn ? SIMPLE_ERR_PEER : 0;
  /* bcast: the verdict flows from the root's node; the tree (2 nodes, or
   * forced) also passes marks down from the offender's node. */
  if (on == rn || (rc == SIMPLE_ERR_PEER && verdict_on_way_up(on, mine, rn, simple_nodes(s))))
    return SIMPLE_ERR_PEER;
  return 0;
}

/* A tie that picks the wrong call: thread 0 of the first node of two
 * threads passes another count than every other thread of the job, on
 * the same schedule (20000 against 30000 elements: each collective's
 * table picks the same algorithm for both, also when forced; an
 * alltoall block of 30000 int64, 240000 bytes, stays under 256 KiB,
 * where alltoall starts sending one message per block). The node's
 * reference is then the lower thread's call, thread 0's, so its error
 * path sends and drains for messages of another size than the other
 * nodes'. The call fails on that node's threads (nowhere else is a
 * verdict asserted: which nodes hear of it follows the schedule); what
 * must hold is that it leaves nothing behind: the next, correct call
 * returns the right data everywhere, twice over. */
static void wrong_reference(const ctx_t *c) {
  simple_t *s = c->s;
  int P = simple_nodes(s), node = -1;
  for (int k = 0; k < P && node < 0; k++)
    if (simple_threads_on(s, k) == 2) node = k;
  if (P < 2 || node < 0) return;
  int o = simple_pid_of(s, node, 0);
  ctx_t big = *c;
  big.n = 20000;
  big.odd_n = 30000;
  static const int ws[] = {C_ALLREDUCE, C_REDUCE, C_GATHER, C_ALLTOALL};
  for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++) {
    int w = ws[i];
    for (int round = 0; round < 2; round++) {
      int rc = call(&big, w, V_COUNT, o);
      if (simple_node(s) == node ? rc == 0
                                 : rc != 0 && rc != SIMPLE_ERR_PEER && rc != SIMPLE_ERR_ARG)
        simple_abort(s, "%s, count %zu on thread %d against %zu: returned %s", names[w], big.odd_n,
                     o, big.n, simple_errname(rc));
      call(&big, w, V_COUNT, -1);
    }
  }
}

/* Between nodes: every thread of the last node passes SIMPLE_DOUBLE where
 * the others pass SIMPLE_INT64 (the same sizes: the messages match, only
 * the signature tells them apart, in the verdict word or the tags), to
 * bcast and allgather. bcast: a node whose call differs from the root's
 * node's returns SIMPLE_ERR_ARG, the root's node succeeds (the data flows
 * away from it); allgather: SIMPLE_ERR_ARG on the node that differs from
 * most nodes (the lowest among equals), SIMPLE_ERR_PEER on the others.
 * Then a correct allgather and bcast, checked. */
static void between_nodes(const ctx_t *c) {
  simple_t *s = c->s;
  int P = simple_nodes(s), mine = simple_node(s), p = c->p, me = c->me;
  if (P < 2) return;
  size_t n = c->n;
  long long *x = malloc(n * 8), *y = malloc((size_t)p * n * 8);
  CHECK(x && y);
  for (int round = 0; round < 2; round++) {
    simple_type_t type = round == 0 && mine == P - 1 ? SIMPLE_DOUBLE : SIMPLE_INT64;
    for (size_t i = 0; i < n; i++) x[i] = val(me, 0, i);
    int rc = simple_allgather(s, x, y, n, type), want = 0;
    if (round == 0)
      want = mine == P - 1 && P > 2 ? SIMPLE_ERR_ARG
             : P > 2                ? SIMPLE_ERR_PEER
             : mine == 1            ? SIMPLE_ERR_ARG
                                    : SIMPLE_ERR_PEER;
    if (rc != want)
      simple_abort(s, "allgather, type differs on node %d (n %zu): returned %s, expected %s", P - 1,
                   n, simple_errname(rc), simple_errname(want));
    for (size_t i = 0; round == 1 && i < n; i++)
      for (int j = 0; j < p; j++)
        if (y[(size_t)j * n + i] != val(j, 0, i))
          simple_abort(s, "allgather after a mismatch: block %d element %zu is %lld", j, i,
                       y[(size_t)j * n + i]);
    int root = c->root, rn = simple_node_of(s, root);
    for (size_t i = 0; i < n; i++) x[i] = me == root ? val(root, 0, i) : -1;
    rc = simple_bcast(s, x, n, type, root);
    want = round == 1 || mine == rn ? 0 : rn == P - 1 || mine == P - 1 ? SIMPLE_ERR_ARG : 0;
    /* The tree (forced on more than 2 nodes): the root's children find the
     * difference and send marks down, so the nodes below them fail with
     * SIMPLE_ERR_PEER. */
    if (want == SIMPLE_ERR_ARG && rc == SIMPLE_ERR_PEER && rn == P - 1 &&
        !verdict_child_of_root(mine, rn, P))
      want = rc;
    if (rc != want)
      simple_abort(s, "bcast, type differs on node %d (n %zu): returned %s, expected %s", P - 1, n,
                   simple_errname(rc), simple_errname(want));
    for (size_t i = 0; round == 1 && i < n; i++)
      if (x[i] != val(root, 0, i))
        simple_abort(s, "bcast after a mismatch: element %zu is %lld", i, x[i]);
  }
  free(x);
  free(y);
}

/* Different collectives on threads of one node: the offender calls bcast
 * (root 0) while every other thread calls allreduce. The offender gets
 * SIMPLE_ERR_ARG, everyone else SIMPLE_ERR_PEER (the allreduce's verdict
 * reaches every node); then a correct allreduce. */
static void other_call(const ctx_t *c, int o) {
  simple_t *s = c->s;
  size_t n = c->n;
  long long *x = malloc(n * 8), *y = malloc(n * 8);
  CHECK(x && y);
  for (size_t i = 0; i < n; i++) x[i] = val(c->me, 0, i);
  int rc = c->me == o ? simple_bcast(s, x, n, SIMPLE_INT64, 0)
                      : simple_allreduce(s, x, y, n, SIMPLE_INT64, SIMPLE_SUM);
  int want = c->me == o ? SIMPLE_ERR_ARG : SIMPLE_ERR_PEER;
  if (rc != want)
    simple_abort(s, "bcast on thread %d, allreduce elsewhere (n %zu): returned %s, expected %s", o,
                 n, simple_errname(rc), simple_errname(want));
  free(x);
  free(y);
  call(c, C_ALLREDUCE, 0, -1);
}

/* The v forms: the offender passes SIMPLE_DOUBLE where the others pass
 * SIMPLE_INT64 (the same sizes) to gatherv, scatterv, allgatherv and
 * alltoallv, n elements per block; the codes as in expected() (gatherv
 * as gather, scatterv as bcast, the others job-wide); then the same call
 * correct, its result checked. */
enum { V_GATHERV, V_SCATTERV, V_ALLGATHERV, V_ALLTOALLV, V_FORMS };
static const char *const vform[V_FORMS] = {"gatherv", "scatterv", "allgatherv", "alltoallv"};

static int v_call(const ctx_t *c, int f, int o) {
  simple_t *s = c->s;
  int p = c->p, me = c->me, root = c->root;
  size_t n = c->n, *cnt = malloc((size_t)p * sizeof *cnt), *dsp = malloc((size_t)p * sizeof *dsp);
  long long *x = malloc((size_t)p * n * 8), *y = malloc((size_t)p * n * 8);
  CHECK(cnt && dsp && x && y);
  for (int j = 0; j < p; j++) {
    cnt[j] = n;
    dsp[j] = (size_t)j * n;
  }
  for (size_t i = 0; i < (size_t)p * n; i++) {
    x[i] = f == V_ALLTOALLV  ? val(me, (int)(i / n), i % n)
           : f == V_SCATTERV ? val((int)(i / n), 0, i % n)
                             : val(me, 0, i % n);
    y[i] = -7;
  }
  simple_type_t type = me == o ? SIMPLE_DOUBLE : SIMPLE_INT64;
  int rc;
  switch (f) {
    case V_GATHERV: rc = simple_gatherv(s, x, n, y, cnt, dsp, type, root); break;
    case V_SCATTERV: rc = simple_scatterv(s, x, cnt, dsp, y, n, type, root); break;
    case V_ALLGATHERV: rc = simple_allgatherv(s, x, n, y, cnt, dsp, type); break;
    default: rc = simple_alltoallv(s, x, cnt, dsp, y, cnt, dsp, type); break;
  }
  if (o < 0) {
    CHECK_OK(rc);
    for (size_t i = 0; i < (size_t)p * n; i++) {
      long long want;
      int j = (int)(i / n);
      if (f == V_GATHERV && me != root) break;
      if (f == V_SCATTERV && i >= n) break;
      want = f == V_ALLTOALLV  ? val(j, me, i % n)
             : f == V_SCATTERV ? val(me, 0, i)
                               : val(j, 0, i % n);
      if (y[i] != want)
        simple_abort(s, "%s n %zu: element %zu is %lld, expected %lld", vform[f], n, i, y[i], want);
    }
  }
  free(cnt);
  free(dsp);
  free(x);
  free(y);
  return rc;
}

static void v_forms(const ctx_t *c, int o) {
  simple_t *s = c->s;
  for (int f = 0; f < V_FORMS; f++) {
    int rc = v_call(c, f, o);
    int w = f == V_GATHERV ? C_GATHER : f == V_SCATTERV ? C_BCAST : C_ALLREDUCE;
    int want = expected(c, w, o, rc);
    if (rc != want)
      simple_abort(s, "%s, type differs on thread %d (n %zu): returned %s, expected %s", vform[f],
                   o, c->n, simple_errname(rc), simple_errname(want));
    v_call(c, f, -1);
  }
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  int p = simple_nprocs(s), P = simple_nodes(s);
  ctx_t c = {s, p, simple_pid(s), p / 2, 0, 0};
  int offenders[2] = {-1, -1};
  if (simple_threads_on(s, P - 1) > 1) offenders[0] = p - 1;
  for (int k = 0; k < P; k++)
    if (simple_threads_on(s, k) > 1) {
      offenders[1] = simple_pid_of(s, k, simple_threads_on(s, k) - 1);
      break;
    }
  static const size_t sizes[] = {3, 3000};
  for (size_t si = 0; si < 2; si++) {
    c.n = sizes[si];
    for (int w = 0; w < C_COUNT; w++) {
      call(&c, w, 0, -1);
      for (int v = 0; v < V_N; v++) {
        if (v == V_OP && w != C_ALLREDUCE && w != C_REDUCE) continue;
        if (v == V_ROOT && (w == C_ALLREDUCE || w == C_ALLTOALL)) continue;
        for (int k = 0; k < 2; k++) {
          int o = offenders[k];
          if (o < 0 || (v == V_ROOT && p < 2)) continue;
          int rc = call(&c, w, v, o), want = expected(&c, w, o, rc);
          if (rc != want)
            simple_abort(s, "%s, %s differs on thread %d (n %zu): returned %s, expected %s",
                         names[w], vnames[v], o, c.n, simple_errname(rc), simple_errname(want));
          call(&c, w, v, -1); /* the next, correct call: right data */
        }
      }
    }
    for (int k = 0; k < 2; k++)
      if (offenders[k] >= 0) other_call(&c, offenders[k]);
    for (int k = 0; k < 2; k++)
      if (offenders[k] >= 0) v_forms(&c, offenders[k]);
    between_nodes(&c);
  }
  wrong_reference(&c);
}

TEST_MAIN(test)
