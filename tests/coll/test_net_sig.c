/* The signature between nodes: every thread of one NODE calls allreduce,
 * reduce, scan, exscan, alltoall or alltoallv with another op, another
 * type of the same size, or another count of the same byte size than the
 * other nodes' threads, so that every message has the size of a correct
 * call and only the signature carried in its tag tells the calls apart. Every
 * thread of the job must return, with the code docs/api.md gives
 * (SIMPLE_ERR_ARG on every thread of each node that received a message
 * from a node whose call differed before it heard of the failure,
 * SIMPLE_ERR_PEER on all other threads), no caller buffer written
 * (sentinels) except the documented partial results, and the next,
 * correct call right (checked against closed forms).
 *
 * Which nodes receive another signature follows from the schedule among
 * nodes: the test replays it (simulate below) from the algorithm that the
 * decision table or SIMPLE_COLL_ALG picks, written out here, and from the
 * documented rule for each step (a step's message is data with the
 * sender's signature, or a mark once the sender failed; a node that has
 * failed takes no more notice of what it receives). Every path carries
 * it, also those on the callers' own buffers (a large vector where a node
 * has one thread; alltoall's blocks of 256 KiB and up). In an alltoall
 * every node receives every other node's message, always data, so every
 * node whose signature differs from another's returns SIMPLE_ERR_ARG; its
 * recv may hold blocks that landed before the verdict.
 *
 * gather, scatter, gatherv and scatterv carry the signature in the tag of
 * each message between nodes (their messages are the blocks alone, often
 * straight from or into the callers' buffers): every thread of one node
 * calls with another root on the root's node, another type of the same
 * size, or twice the count of a type of half the size (rooted_case
 * below, where the codes are worked out). */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

enum { W_ALLREDUCE, W_REDUCE, W_SCAN, W_EXSCAN, W_ALLTOALL, W_ALLTOALLV, W_N };
static const char *const wname[W_N] = {"allreduce", "reduce",   "scan",
                                       "exscan",    "alltoall", "alltoallv"};
enum { D_OP, D_TYPE, D_COUNT, D_N };
static const char *const dname[D_N] = {"op", "type", "count"};
enum { A_RD, A_RAB, A_TREE, A_SCAN, A_PACKED, A_DIRECT };

static long long val(int j, size_t i) { return (long long)j * 1000003 + (long long)i * 7 + 1; }

/* The algorithm among nodes (src/coll/choose.c's table, or the setting
 * that forces one) on P nodes whose largest has maxt threads. */
static int algorithm(int w, int P, int maxt, size_t bytes) {
  if (w == W_SCAN || w == W_EXSCAN) return A_SCAN;
  if (w == W_ALLTOALLV) return A_PACKED; /* one message per node pair, whatever the blocks */
  const char *env = getenv("SIMPLE_COLL_ALG");
  if (w == W_ALLTOALL) /* blocks of 256 KiB and up go alone: none here */
    return env && strstr(env, "alltoall=direct") ? A_DIRECT : A_PACKED;
  const char *key = w == W_ALLREDUCE ? "allreduce=" : "reduce=";
  for (const char *p = env; p && (p = strstr(p, key)) != NULL; p++) {
    if (p != env && p[-1] != ',') continue; /* "reduce=" inside "allreduce=" */
    p += strlen(key);
    return !strncmp(p, "rd", 2) && p[2] != 'x' ? A_RD : !strncmp(p, "rab", 3) ? A_RAB : A_TREE;
  }
  if (w == W_REDUCE && (bytes <= 32768 || P <= 4)) return A_TREE; /* a built-in op here */
  /* Two nodes of one thread: recursive doubling up to 512 KiB. */
  return bytes <= 8192 || (P == 2 && maxt == 1 && bytes < 512 * 1024) ? A_RD : A_RAB;
}

/* Threads of the job's largest node. */
static int max_threads(simple_t *s) {
  int m = 0;
  for (int k = 0; k < simple_nodes(s); k++)
    if (simple_threads_on(s, k) > m) m = simple_threads_on(s, k);
  return m;
}

/* One message from node src to node dst: data carrying the sender's
 * signature (carried), data without it, or a mark when the sender failed.
 * bad: 0 fine, 1 heard of a failure (PEER), 2 saw another signature (ARG). */
static void deliver(int *bad, const int *pre, const int *sig, int src, int dst, int carried) {
  if (bad[dst]) return;
  if (pre[src])
    bad[dst] = 1;
  else if (carried && sig[src] != sig[dst])
    bad[dst] = 2;
}

/* A pairwise step (both ways at once) or a one-way step. */
static void step(int *bad, const int *sig, int P, int a, int b, int both, int carried) {
  int pre[64];
  memcpy(pre, bad, (size_t)P * sizeof *bad);
  deliver(bad, pre, sig, a, b, carried);
  if (both) deliver(bad, pre, sig, b, a, carried);
}

static int real_rank(int nr, int rem) { return nr < rem ? 2 * nr + 1 : nr + rem; }

/* The schedules of src/coll/internode.c, as docs/api.md describes them. */
static void simulate(int alg, int P, int root_node, const int *sig, int *bad) {
  memset(bad, 0, (size_t)P * sizeof *bad);
  if (alg == A_TREE) {
    for (int mask = 1; mask < P; mask <<= 1) /* up: each child's last segment; nothing down */
      for (int rel = 0; rel + mask < P; rel += 2 * mask)
        step(bad, sig, P, (rel + mask + root_node) % P, (rel + root_node) % P, 0, 1);
    return;
  }
  if (alg == A_PACKED || alg == A_DIRECT) { /* every node's message to every other, data */
    for (int a = 0; a < P; a++)
      for (int b = 0; b < P; b++)
        if (a != b && sig[a] != sig[b]) bad[b] = 2;
    return;
  }
  if (alg == A_SCAN) { /* recursive doubling over all P; every message carries it; */
    for (int mask = 1; mask < P; mask <<= 1) /* the last step one way, up */
      for (int a = 0; a < P; a++) {
        int b = a ^ mask;
        if (b > a && b < P) step(bad, sig, P, a, b, (mask << 1) < P, 1);
      }
    return;
  }
  int pof2 = 1;
  while (pof2 * 2 <= P) pof2 *= 2;
  int rem = P - pof2;
  for (int i = 0; i < rem; i++) step(bad, sig, P, 2 * i, 2 * i + 1, 0, 1);
  for (int mask = 1; mask < pof2; mask <<= 1)
    for (int a = 0; a < pof2; a++)
      if ((a ^ mask) > a) step(bad, sig, P, real_rank(a, rem), real_rank(a ^ mask, rem), 1, 1);
  if (alg == A_RAB) /* the allgather half */
    for (int mask = pof2 >> 1; mask >= 1; mask >>= 1)
      for (int a = 0; a < pof2; a++)
        if ((a ^ mask) > a) step(bad, sig, P, real_rank(a, rem), real_rank(a ^ mask, rem), 1, 1);
  for (int i = 0; i < rem; i++) step(bad, sig, P, 2 * i + 1, 2 * i, 0, 1);
}

typedef struct {
  simple_t *s;
  int p, me, P, node, root;
  size_t n;
  int alt_root; /* another thread of the root's node, -1 if it has one thread */
} ctx_t;

/* One call of w on n INT64 elements; the threads of node `odd` (-1: none)
 * change d. Returns the code; checks the sentinels on failure and the
 * result on success of a correct call. */
static int call(const ctx_t *c, int w, int d, int odd) {
  simple_t *s = c->s;
  size_t n = c->n;
  simple_type_t type = SIMPLE_INT64;
  simple_op_t op = SIMPLE_SUM;
  int root = c->root;
  if (c->node == odd) {
    if (d == D_OP) op = SIMPLE_MAX;
    if (d == D_TYPE) type = SIMPLE_DOUBLE;
    if (d == D_COUNT) {
      type = SIMPLE_INT32;
      n *= 2;
    }
  }
  int a2a = w == W_ALLTOALL || w == W_ALLTOALLV;
  size_t len = a2a ? (size_t)c->p * c->n : c->n; /* elements of 8 bytes */
  long long *x = calloc(len, 8), *y = calloc(len, 8);
  size_t *counts = malloc((size_t)c->p * sizeof *counts);
  size_t *displs = malloc((size_t)c->p * sizeof *displs);
  CHECK(x && y && counts && displs);
  for (int j = 0; j < c->p; j++) counts[j] = n, displs[j] = (size_t)j * n;
  for (size_t i = 0; i < len; i++) {
    x[i] = val(c->me, i);
    y[i] = -7;
  }
  int rc;
  switch (w) {
    case W_ALLREDUCE: rc = simple_allreduce(s, x, y, n, type, op); break;
    case W_REDUCE: rc = simple_reduce(s, x, y, n, type, op, root); break;
    case W_SCAN: rc = simple_scan(s, x, y, n, type, op); break;
    case W_EXSCAN: rc = simple_exscan(s, x, y, n, type, op); break;
    case W_ALLTOALL: rc = simple_alltoall(s, x, y, n, type); break;
    default: rc = simple_alltoallv(s, x, counts, displs, y, counts, displs, type); break;
  }
  for (size_t i = 0; i < len; i++)
    if (x[i] != val(c->me, i))
      simple_abort(s, "%s n %zu: send element %zu changed", wname[w], c->n, i);
  /* A large scan writes each thread's local prefix before the exchange
   * among nodes (docs/api.md: partial results on failure). */
  int partial = (w == W_SCAN || w == W_EXSCAN) && c->n * 8 > 1072;
  /* An alltoall's node-local blocks, and those from nodes whose
   * signature matched, land before the verdict (docs/api.md). */
  partial |= a2a;
  /* A thread alone on its node reduces a large vector in its own recv
   * (docs/api.md: partial results on failure). */
  int alg = algorithm(w, c->P, max_threads(s), c->n * 8);
  /* A node of one thread runs recursive doubling above 8 KiB on its
   * thread's buffers as well. */
  int alone = simple_threads_on(s, c->node) == 1;
  int small = (alg == A_RD && (!alone || c->n * 8 <= 8192)) || (alg == A_TREE && c->n * 8 <= 8192);
  partial |= (w == W_ALLREDUCE || w == W_REDUCE) && !small && simple_threads_on(s, c->node) == 1;
  if (odd >= 0 && rc != 0 && !partial) {
    for (size_t i = 0; i < c->n; i++)
      if (y[i] != -7)
        simple_abort(s, "%s (%s differs on node %d, n %zu) failed with %s but wrote recv[%zu]",
                     wname[w], dname[d], odd, c->n, simple_errname(rc), i);
  } else if (odd < 0 && a2a) {
    CHECK_OK(rc);
    for (int j = 0; j < c->p; j++) /* block j: thread j's block for me */
      for (size_t i = 0; i < c->n; i++)
        if (y[(size_t)j * c->n + i] != val(j, (size_t)c->me * c->n + i))
          simple_abort(s, "%s n %zu: block %d element %zu is %lld", wname[w], c->n, j, i,
                       y[(size_t)j * c->n + i]);
  } else if (odd < 0) {
    CHECK_OK(rc);
    /* Sum over the pids that reach this thread's result. */
    int first = 0, last = w == W_SCAN ? c->me : w == W_EXSCAN ? c->me - 1 : c->p - 1;
    int check = w != W_REDUCE || c->me == root;
    for (size_t i = 0; check && i < c->n; i++) {
      if (w == W_EXSCAN && c->me == 0) {
        if (y[i] != -7) simple_abort(s, "exscan: pid 0's recv[%zu] written", i);
        continue;
      }
      long long want = 0;
      for (int j = first; j <= last; j++) want += val(j, i);
      if (y[i] != want)
        simple_abort(s, "%s n %zu: element %zu is %lld, expected %lld", wname[w], c->n, i, y[i],
                     want);
    }
  }
  free(x);
  free(y);
  free(counts);
  free(displs);
  return rc;
}

enum { R_GATHER, R_SCATTER, R_GATHERV, R_SCATTERV, R_N };
static const char *const rname[R_N] = {"gather", "scatter", "gatherv", "scatterv"};
enum { RD_ROOT, RD_TYPE, RD_COUNT, RD_N };
static const char *const rdname[RD_N] = {"root", "type", "count"};

/* The code a thread of node `node` must return when the threads of node
 * `odd` made another call than everyone else (-1: nobody). Only the root's
 * node receives in a gather: it compares every other node's signature
 * with its own and fails on every thread if one differs; nothing flows
 * back, so the other nodes succeed. In a scatter each other node compares
 * the root's node's signature with its own: a node whose call differs
 * from the root node's fails on every thread, the others (the root's
 * node, to which nothing flows back, included) succeed. */
static int rooted_want(int w, int odd, int node, int root_node) {
  if (odd < 0) return 0;
  if (w == R_GATHER || w == R_GATHERV) return node == root_node ? SIMPLE_ERR_ARG : 0;
  if (odd == root_node) return node != root_node ? SIMPLE_ERR_ARG : 0;
  return node == odd ? SIMPLE_ERR_ARG : 0;
}

/* One rooted call of n 8-byte elements per thread (the threads of node
 * `odd` change d). The v forms place block i at i (n + 1) elements in the
 * root's buffer: a gap after each block, so that the root's node packs
 * and unpacks the messages of nodes of several threads in its staging
 * area. Checks the code against rooted_want, the buffers that must not
 * change (sentinels), and a correct call's result against val(). */
static int rooted_case(const ctx_t *c, int w, int d, int odd) {
  simple_t *s = c->s;
  size_t n = c->n, f = 1; /* f: elements per 8 bytes */
  simple_type_t type = SIMPLE_INT64;
  int root = c->root, v = w == R_GATHERV || w == R_SCATTERV;
  int scatter = w == R_SCATTER || w == R_SCATTERV;
  if (c->node == odd) {
    if (d == RD_ROOT) root = c->alt_root;
    if (d == RD_TYPE) type = SIMPLE_DOUBLE;
    if (d == RD_COUNT) type = SIMPLE_INT32, f = 2;
  }
  size_t stride = v ? n + 1 : n, len = (size_t)c->p * stride;
  long long *mine = malloc(n * 8), *big = malloc(len * 8);
  size_t *counts = malloc((size_t)c->p * sizeof *counts);
  size_t *displs = malloc((size_t)c->p * sizeof *displs);
  CHECK(mine && big && counts && displs);
  for (int j = 0; j < c->p; j++) counts[j] = n * f, displs[j] = (size_t)j * stride * f;
  for (size_t i = 0; i < n; i++) mine[i] = scatter ? -7 : val(c->me, i);
  for (size_t k = 0; k < len; k++)
    big[k] = scatter && k % stride < n ? val((int)(k / stride), k % stride) : -7;
  int rc;
  switch (w) {
    case R_GATHER: rc = simple_gather(s, mine, big, n * f, type, root); break;
    case R_SCATTER: rc = simple_scatter(s, big, mine, n * f, type, root); break;
    case R_GATHERV: rc = simple_gatherv(s, mine, n * f, big, counts, displs, type, root); break;
    default: rc = simple_scatterv(s, big, counts, displs, mine, n * f, type, root); break;
  }
  int root_node = simple_node_of(s, c->root), want = rooted_want(w, odd, c->node, root_node);
  if (rc != want)
    simple_abort(s, "%s n %zu, %s differs on node %d: returned %s, expected %s", rname[w], n,
                 odd >= 0 ? rdname[d] : "nothing", odd, simple_errname(rc), simple_errname(want));
  /* What is sent never changes; a gather writes only the root's buffer;
   * a failed scatterv writes no recv on a node of several threads (the
   * message waits in the node's scratch until the verdict). A scatter's
   * message lands straight in the threads' recv (a node of one thread's
   * scatterv too): there a failed call leaves either nothing or the
   * thread's block of the root's data, never anything else. The root's
   * buffer of a gather takes the blocks as they land (docs/api.md). */
  for (size_t i = 0; i < n && !scatter; i++)
    if (mine[i] != val(c->me, i)) simple_abort(s, "%s: send element %zu changed", rname[w], i);
  for (size_t k = 0; k < len; k++) {
    long long want_k = scatter && k % stride < n ? val((int)(k / stride), k % stride) : -7;
    if ((scatter || c->me != root) && big[k] != want_k)
      simple_abort(s, "%s (%s differs on node %d): %s element %zu written", rname[w], rdname[d],
                   odd, scatter ? "send" : "a non-root recv", k);
  }
  if (w == R_SCATTERV && rc && simple_threads_on(s, c->node) > 1)
    for (size_t i = 0; i < n; i++)
      if (mine[i] != -7)
        simple_abort(s, "%s (%s differs on node %d) failed with %s but wrote recv[%zu]", rname[w],
                     rdname[d], odd, simple_errname(rc), i);
  int landed = n && mine[0] != -7;
  for (size_t i = 0; i < n && scatter && rc; i++)
    if (mine[i] != (landed ? val(c->me, i) : -7))
      simple_abort(s, "%s (%s differs on node %d) failed with %s: recv[%zu] is %lld", rname[w],
                   rdname[d], odd, simple_errname(rc), i, mine[i]);
  if (odd < 0 && scatter)
    for (size_t i = 0; i < n; i++)
      if (mine[i] != val(c->me, i))
        simple_abort(s, "%s n %zu: element %zu is %lld", rname[w], n, i, mine[i]);
  if (odd < 0 && !scatter && c->me == root)
    for (size_t k = 0; k < len; k++) {
      long long want_k = k % stride < n ? val((int)(k / stride), k % stride) : -7;
      if (big[k] != want_k)
        simple_abort(s, "%s n %zu: recv element %zu is %lld, expected %lld", rname[w], n, k, big[k],
                     want_k);
    }
  free(mine);
  free(big);
  free(counts);
  free(displs);
  return rc;
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  ctx_t c = {s, simple_nprocs(s), simple_pid(s), simple_nodes(s), simple_node(s), 0, 0, -1};
  c.root = c.p / 2;
  int rn = simple_node_of(s, c.root);
  if (c.root + 1 < c.p && simple_node_of(s, c.root + 1) == rn) c.alt_root = c.root + 1;
  if (c.alt_root < 0 && c.root > 0 && simple_node_of(s, c.root - 1) == rn) c.alt_root = c.root - 1;
  int P = c.P;
  CHECK(P <= 64);
  /* 32 B: every path; 24000 B: the large ones; 160000 B: messages among
   * nodes in segments (src/xchg: SIMPLE__XCHG_SEG_BYTES). */
  static const size_t sizes[] = {4, 3000, 20000};
  for (size_t si = 0; si < 3; si++) {
    c.n = sizes[si];
    size_t bytes = c.n * 8;
    for (int w = 0; w < W_N; w++) {
      call(&c, w, 0, -1);
      if (P < 2) continue;
      int alg = algorithm(w, P, max_threads(s), bytes);
      int odds[2] = {P - 1, 0};
      for (int k = 0; k < 2; k++)
        for (int d = 0; d < D_N; d++) {
          if ((w == W_ALLTOALL || w == W_ALLTOALLV) && d == D_OP) continue; /* no op */
          int sig[64], bad[64];
          for (int j = 0; j < P; j++) sig[j] = j == odds[k];
          int root_node = simple_node_of(s, c.root);
          simulate(alg, P, root_node, sig, bad);
          int want = bad[c.node] == 2 ? SIMPLE_ERR_ARG : bad[c.node] ? SIMPLE_ERR_PEER : 0;
          int rc = call(&c, w, d, odds[k]);
          if (rc != want)
            simple_abort(s, "%s n %zu (alg %d), %s differs on node %d: returned %s, expected %s",
                         wname[w], c.n, alg, dname[d], odds[k], simple_errname(rc),
                         simple_errname(want));
          call(&c, w, 0, -1); /* the next, correct call: right data */
        }
    }
    for (int w = 0; w < R_N; w++) {
      rooted_case(&c, w, 0, -1);
      if (P < 2) continue;
      int odds[2] = {rn, rn ? 0 : P - 1}; /* the root's node, and another */
      for (int k = 0; k < 2; k++)
        for (int d = 0; d < RD_N; d++) {
          if (d == RD_ROOT && c.alt_root < 0) continue;
          rooted_case(&c, w, d, odds[k]);
          rooted_case(&c, w, 0, -1); /* the next, correct call: right data */
        }
    }
  }
}

TEST_MAIN(test)
