/* Job-wide verdicts: a NULL buffer on ONE thread of a collective (with a
 * non-zero count) must end the call on every thread of every node, never
 * hang: the offender returns SIMPLE_ERR_NULL, every other thread
 * SIMPLE_ERR_PEER, except in the rooted calls (bcast, gather(v),
 * scatter(v), reduce) and the scans on the nodes that no data flows to
 * from the offender's node, which succeed (their results do not depend on
 * it: docs/api.md). Then a
 * correct call of the same collective must return success with the right
 * data (nothing of the failed call left queued), computed here in closed
 * form. Every collective, offenders: the first thread of node 0, the last
 * thread of the last node, the root, a non-root; a small and a large count
 * (the small and the large paths of each collective). */
#include "harness.h"
#include "verdict_rules.h"

/* The value of element i of rank j's block for rank k (closed form). */
static long long val(int j, int k, size_t i) {
  return (long long)j * 1000003 + k * 1009 + (long long)i;
}

typedef struct {
  simple_t *s;
  int p, me, root;
  size_t n;
} ctx_t;

/* Whether thread `t` must see SIMPLE_ERR_PEER rather than success when
 * `o` erred: every thread in the job-wide calls; in the rooted ones, the
 * threads of the offender's node and of the root's node (reached by a
 * mark), or everyone when the offender's node is the root's and the data
 * flows from it (bcast, scatter); in a reduce, the threads of the nodes
 * on the offender's node's way up the binomial tree to the root's node;
 * in a scan, those of the offender's node and of every node above it. */
enum { JOB, GATHER, FROM_ROOT, SCAN, REDUCE, BCAST };

static int peer_expected(const ctx_t *c, int kind, int o) {
  simple_t *s = c->s;
  int mine = simple_node(s), on = simple_node_of(s, o), rn = simple_node_of(s, c->root);
  if (kind == JOB || mine == on) return 1;
  if (kind == SCAN) return mine > on;
  if (kind == REDUCE) return verdict_on_way_up(mine, on, rn, simple_nodes(s));
  if (kind == GATHER) return mine == rn;
  return on == rn; /* FROM_ROOT, BCAST: marks flow from the root's node to all */
}

static void expect(const ctx_t *c, int kind, int o, int rc, const char *what) {
  simple_t *s = c->s;
  int want = c->me == o ? SIMPLE_ERR_NULL : peer_expected(c, kind, o) ? SIMPLE_ERR_PEER : 0;
  /* A node that the documented rule does not require to fail may still
   * hear of the failure: a scan's node below the offender's whose earlier
   * exchanges meet its marks; a reduce's node off the offender's way when
   * the schedule is an allreduce's (a user op, Rabenseifner's above 8 KiB
   * on 4 nodes and more, or recursive doubling forced). Either answer is
   * allowed there. */
  if ((kind == SCAN || kind == REDUCE) && want == 0 && rc == SIMPLE_ERR_PEER) want = rc;
  /* A bcast's node below the offender's in the binomial tree, where the
   * tree runs (2 nodes, where the offender's node has no children; or
   * forced with bcast=tree): the offender's node sends marks down. */
  if (kind == BCAST && want == 0 && rc == SIMPLE_ERR_PEER &&
      verdict_on_way_up(simple_node_of(s, o), simple_node(s), simple_node_of(s, c->root),
                        simple_nodes(s)))
    want = rc;
  if (rc != want)
    simple_abort(s, "%s n %zu offender %d root %d: returned %s, expected %s", what, c->n, o,
                 c->root, simple_errname(rc), simple_errname(want));
}

static long long *alloc(simple_t *s, size_t n) {
  long long *b = malloc((n ? n : 1) * sizeof *b);
  CHECK(b);
  return b;
}

static void check_at(simple_t *s, const char *what, const long long *got, long long want,
                     size_t i) {
  if (got[i] != want)
    simple_abort(s, "%s: element %zu is %lld, expected %lld", what, i, got[i], want);
}

/* Each collective: one call with the offender passing NULL (o < 0: a
 * correct call, whose results are checked), returning the code. */

static int t_allreduce(const ctx_t *c, int o, int reduce) {
  simple_t *s = c->s;
  size_t n = c->n;
  long long *x = alloc(s, n), *y = alloc(s, n);
  for (size_t i = 0; i < n; i++) x[i] = val(c->me, 0, i);
  int rc = reduce ? simple_reduce(s, c->me == o ? NULL : x, y, n, SIMPLE_INT64, SIMPLE_SUM, c->root)
                  : simple_allreduce(s, c->me == o ? NULL : x, y, n, SIMPLE_INT64, SIMPLE_SUM);
  if (o < 0 && (!reduce || c->me == c->root)) {
    CHECK_OK(rc);
    for (size_t i = 0; i < n; i++) {
      long long want = 0;
      for (int j = 0; j < c->p; j++) want += val(j, 0, i);
      check_at(s, reduce ? "reduce" : "allreduce", y, want, i);
    }
  }
  free(x);
  free(y);
  return rc;
}

static int t_scan(const ctx_t *c, int o, int ex) {
  simple_t *s = c->s;
  size_t n = c->n;
  long long *x = alloc(s, n), *y = alloc(s, n);
  for (size_t i = 0; i < n; i++) x[i] = val(c->me, 0, i);
  int rc = ex ? simple_exscan(s, c->me == o ? NULL : x, y, n, SIMPLE_INT64, SIMPLE_SUM)
              : simple_scan(s, c->me == o ? NULL : x, y, n, SIMPLE_INT64, SIMPLE_SUM);
  if (o < 0 && !(ex && c->me == 0)) {
    CHECK_OK(rc);
    for (size_t i = 0; i < n; i++) {
      long long want = 0;
      for (int j = 0; j < (ex ? c->me : c->me + 1); j++) want += val(j, 0, i);
      check_at(s, ex ? "exscan" : "scan", y, want, i);
    }
  }
  free(x);
  free(y);
  return rc;
}

static int t_bcast(const ctx_t *c, int o) {
  simple_t *s = c->s;
  size_t n = c->n;
  long long *b = alloc(s, n);
  for (size_t i = 0; i < n; i++) b[i] = c->me == c->root ? val(c->root, 0, i) : -1;
  int rc = simple_bcast(s, c->me == o ? NULL : b, n, SIMPLE_INT64, c->root);
  if (o < 0) {
    CHECK_OK(rc);
    for (size_t i = 0; i < n; i++) check_at(s, "bcast", b, val(c->root, 0, i), i);
  } else if (simple_node_of(s, o) == simple_node_of(s, c->root) && n * 8 <= (48u << 10)) {
    /* The root's node failed: up to 48 KiB no buffer is written (the tree
     * sends marks; MPI_Bcast's data lands in a copy, docs/api.md). */
    for (size_t i = 0; i < n; i++)
      check_at(s, "bcast (failed)", b, c->me == c->root ? val(c->root, 0, i) : -1, i);
  }
  free(b);
  return rc;
}

/* v forms: rank j's block has n + j % 3 elements, packed in rank order. */
static size_t vcount(const ctx_t *c, int j) { return c->n + (size_t)(j % 3); }

static size_t vlayout(const ctx_t *c, size_t *counts, size_t *displs) {
  size_t at = 0;
  for (int j = 0; j < c->p; j++) {
    counts[j] = vcount(c, j);
    displs[j] = at;
    at += counts[j];
  }
  return at;
}

static int t_gather(const ctx_t *c, int o, int v, int all) {
  simple_t *s = c->s;
  size_t *counts = malloc(2 * (size_t)c->p * sizeof *counts), *displs = counts + c->p;
  CHECK(counts);
  size_t total = v ? vlayout(c, counts, displs) : c->n * (size_t)c->p;
  size_t mine = v ? vcount(c, c->me) : c->n;
  long long *x = alloc(s, mine), *big = alloc(s, total);
  for (size_t i = 0; i < mine; i++) x[i] = val(c->me, 0, i);
  const long long *send = c->me == o ? NULL : x;
  int rc;
  if (all)
    rc = v ? simple_allgatherv(s, send, mine, big, counts, displs, SIMPLE_INT64)
           : simple_allgather(s, send, big, c->n, SIMPLE_INT64);
  else
    rc = v ? simple_gatherv(s, send, mine, big, counts, displs, SIMPLE_INT64, c->root)
           : simple_gather(s, send, big, c->n, SIMPLE_INT64, c->root);
  if (o < 0 && (all || c->me == c->root)) {
    CHECK_OK(rc);
    for (int j = 0; j < c->p; j++) {
      size_t cj = v ? counts[j] : c->n, dj = v ? displs[j] : (size_t)j * c->n;
      for (size_t i = 0; i < cj; i++)
        check_at(s, all ? "allgather" : "gather", big, val(j, 0, i), dj + i);
    }
  }
  free(counts);
  free(x);
  free(big);
  return rc;
}

static int t_scatter(const ctx_t *c, int o, int v) {
  simple_t *s = c->s;
  size_t *counts = malloc(2 * (size_t)c->p * sizeof *counts), *displs = counts + c->p;
  CHECK(counts);
  size_t total = v ? vlayout(c, counts, displs) : c->n * (size_t)c->p;
  size_t mine = v ? vcount(c, c->me) : c->n;
  long long *big = alloc(s, total), *y = alloc(s, mine);
  for (int j = 0; j < c->p; j++) {
    size_t cj = v ? counts[j] : c->n, dj = v ? displs[j] : (size_t)j * c->n;
    for (size_t i = 0; i < cj; i++) big[dj + i] = val(j, 0, i);
  }
  long long *recv = c->me == o ? NULL : y;
  int rc = v ? simple_scatterv(s, big, counts, displs, recv, mine, SIMPLE_INT64, c->root)
             : simple_scatter(s, big, recv, c->n, SIMPLE_INT64, c->root);
  if (o < 0) {
    CHECK_OK(rc);
    for (size_t i = 0; i < mine; i++) check_at(s, "scatter", y, val(c->me, 0, i), i);
  }
  free(counts);
  free(big);
  free(y);
  return rc;
}

static int t_alltoall(const ctx_t *c, int o, int v) {
  simple_t *s = c->s;
  int p = c->p;
  size_t *a = malloc(4 * (size_t)p * sizeof *a), *sc = a, *sd = a + p, *rcn = a + 2 * p,
         *rd = a + 3 * p;
  CHECK(a);
  /* v: the block from j to k has n + (j + k) % 3 elements. */
  size_t st = 0, rt = 0;
  for (int k = 0; k < p; k++) {
    sc[k] = c->n + (v ? (size_t)((c->me + k) % 3) : 0);
    sd[k] = st;
    st += sc[k];
    rcn[k] = c->n + (v ? (size_t)((k + c->me) % 3) : 0);
    rd[k] = rt;
    rt += rcn[k];
  }
  long long *x = alloc(s, st), *y = alloc(s, rt);
  for (int k = 0; k < p; k++)
    for (size_t i = 0; i < sc[k]; i++) x[sd[k] + i] = val(c->me, k, i);
  const long long *send = c->me == o ? NULL : x;
  int rc = v ? simple_alltoallv(s, send, sc, sd, y, rcn, rd, SIMPLE_INT64)
             : simple_alltoall(s, send, y, c->n, SIMPLE_INT64);
  if (o < 0) {
    CHECK_OK(rc);
    for (int j = 0; j < p; j++)
      for (size_t i = 0; i < rcn[j]; i++) check_at(s, "alltoall", y, val(j, c->me, i), rd[j] + i);
  }
  free(a);
  free(x);
  free(y);
  return rc;
}

enum {
  C_ALLREDUCE,
  C_REDUCE,
  C_BCAST,
  C_GATHER,
  C_SCATTER,
  C_ALLTOALL,
  C_SCAN,
  C_EXSCAN,
  C_ALLGATHER,
  C_GATHERV,
  C_SCATTERV,
  C_ALLGATHERV,
  C_ALLTOALLV,
  C_COUNT
};
static const char *names[C_COUNT] = {"allreduce", "reduce",     "bcast",    "gather",    "scatter",
                                     "alltoall",  "scan",       "exscan",   "allgather", "gatherv",
                                     "scatterv",  "allgatherv", "alltoallv"};

static int call(const ctx_t *c, int which, int o) {
  switch (which) {
    case C_ALLREDUCE: return t_allreduce(c, o, 0);
    case C_REDUCE: return t_allreduce(c, o, 1);
    case C_BCAST: return t_bcast(c, o);
    case C_GATHER: return t_gather(c, o, 0, 0);
    case C_SCATTER: return t_scatter(c, o, 0);
    case C_ALLTOALL: return t_alltoall(c, o, 0);
    case C_SCAN: return t_scan(c, o, 0);
    case C_EXSCAN: return t_scan(c, o, 1);
    case C_ALLGATHER: return t_gather(c, o, 0, 1);
    case C_GATHERV: return t_gather(c, o, 1, 0);
    case C_SCATTERV: return t_scatter(c, o, 1);
    case C_ALLGATHERV: return t_gather(c, o, 1, 1);
    default: return t_alltoall(c, o, 1);
  }
}

static int kind_of(int which) {
  switch (which) {
    case C_BCAST: return BCAST;
    case C_SCATTER:
    case C_SCATTERV: return FROM_ROOT;
    case C_GATHER:
    case C_GATHERV: return GATHER;
    case C_SCAN:
    case C_EXSCAN: return SCAN;
    case C_REDUCE: return REDUCE;
    default: return JOB;
  }
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  int p = simple_nprocs(s), last = p - 1, root = p / 2;
  ctx_t c = {s, p, simple_pid(s), root, 0};
  int offenders[4] = {0, last, root, (root + 1) % p};
  /* 3: every small path; 3000 (24 KB per thread): the large ones; 20000
   * (160 KB): messages among nodes cut in segments (src/xchg:
   * SIMPLE__XCHG_SEG_BYTES), the marks too. */
  static const size_t sizes[] = {3, 3000, 20000};
  for (size_t si = 0; si < 3; si++) {
    c.n = sizes[si];
    for (int w = 0; w < C_COUNT; w++)
      for (int k = 0; k < 4; k++) {
        expect(&c, kind_of(w), offenders[k], call(&c, w, offenders[k]), names[w]);
        call(&c, w, -1); /* the next, correct call: right data */
      }
  }
  /* A failed scatter, then a correct one, many elements (8 x 10^5 bytes
   * per thread): the failed call's message must not be what the next
   * one receives. */
  c.n = 100000;
  c.root = 0;
  expect(&c, FROM_ROOT, last, call(&c, C_SCATTER, last), "scatter");
  call(&c, C_SCATTER, -1);
  expect(&c, FROM_ROOT, last, call(&c, C_SCATTER, last), "scatter");
  call(&c, C_SCATTER, -1);
}

TEST_MAIN(test)
