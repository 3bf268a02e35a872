/* The exchange engine's message room (src/xchg/room.c), shared by
 * simple_alltoall, the redistributions, the reductions, gather, scatter
 * and allgatherv, under every job layout:
 *   - calls of every kind back to back, growing and shrinking, with no
 *     barrier between them (a redistribution over threads returns while
 *     its threads may still unpack from the room), every received element
 *     compared with its closed form, so that a room reused or freed under
 *     a reader shows as wrong data (or, under ASan, a use after free);
 *   - on several nodes, on thread 0: a redistribution whose messages fit
 *     in the room an alltoall grew allocates nothing, nor do an alltoall,
 *     an allreduce, a gather, a scatter and an allgatherv in the room a
 *     redistribution grew, nor in the node scratch (one room, not one per
 *     client), and a block the room outgrew is freed two calls later;
 *   - the rule for such a block, driven directly on thread 0 (kept until a
 *     publish has passed, freed at the next request). Links the static
 *     library: the room is internal. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "xchg/xchg.h"

static double a2a_val(int from, int to, size_t e) { return from * 1e6 + to * 1e3 + (double)e; }

static void alltoall(simple_t *s, size_t count) {
  int p = simple_nprocs(s), me = simple_pid(s);
  double *snd = malloc(sizeof(double) * (size_t)p * count);
  double *rcv = malloc(sizeof(double) * (size_t)p * count);
  CHECK(snd && rcv);
  for (int j = 0; j < p; j++)
    for (size_t e = 0; e < count; e++) snd[(size_t)j * count + e] = a2a_val(me, j, e);
  CHECK_OK(simple_alltoall(s, snd, rcv, count, SIMPLE_DOUBLE));
  for (int i = 0; i < p; i++)
    for (size_t e = 0; e < count; e++) CHECK(rcv[(size_t)i * count + e] == a2a_val(i, me, e));
  free(snd);
  free(rcv);
}

/* Element i of pid's vector: pid + i; the sum over the job in closed form. */
static void allreduce(simple_t *s, size_t count) {
  long long p = simple_nprocs(s);
  double *x = malloc(sizeof(double) * count), *y = malloc(sizeof(double) * count);
  CHECK(x && y);
  for (size_t i = 0; i < count; i++) x[i] = (double)simple_pid(s) + (double)i;
  CHECK_OK(simple_allreduce(s, x, y, count, SIMPLE_DOUBLE, SIMPLE_SUM));
  for (size_t i = 0; i < count; i++) CHECK(y[i] == (double)(p * (p - 1) / 2 + p * (long long)i));
  free(x);
  free(y);
}

/* A gather to the last processor, then a scatter from it (blocks in
 * reverse order): element e of pid's block is pid 1e6 + e both ways. */
static double rooted_val(int pid, size_t e) { return pid * 1e6 + (double)e; }
static void gather_scatter(simple_t *s, size_t count) {
  int p = simple_nprocs(s), me = simple_pid(s), root = p - 1;
  double *own = malloc(sizeof(double) * count), *big = NULL;
  CHECK(own);
  if (me == root) CHECK((big = malloc(sizeof(double) * count * (size_t)p)) != NULL);
  for (size_t e = 0; e < count; e++) own[e] = rooted_val(me, e);
  CHECK_OK(simple_gather(s, own, big, count, SIMPLE_DOUBLE, root));
  if (me == root)
    for (int i = 0; i < p; i++)
      for (size_t e = 0; e < count; e++) CHECK(big[(size_t)i * count + e] == rooted_val(i, e));
  if (me == root)
    for (int i = 0; i < p; i++)
      for (size_t e = 0; e < count; e++) big[(size_t)i * count + e] = rooted_val(p - 1 - i, e);
  CHECK_OK(simple_scatter(s, big, own, count, SIMPLE_DOUBLE, root));
  for (size_t e = 0; e < count; e++) CHECK(own[e] == rooted_val(p - 1 - me, e));
  free(own);
  free(big);
}

/* allgatherv (always packed among nodes: its node blocks and result in
 * the room), pid's block of pid % 3 + count elements, pid 1e6 + e. */
static void allgatherv(simple_t *s, size_t count) {
  int p = simple_nprocs(s), me = simple_pid(s);
  size_t *counts = malloc(sizeof(size_t) * (size_t)p), *displs = malloc(sizeof(size_t) * (size_t)p);
  CHECK(counts && displs);
  size_t all = 0;
  for (int i = 0; i < p; i++) {
    counts[i] = (size_t)(i % 3) + count;
    displs[i] = all;
    all += counts[i];
  }
  double *own = malloc(sizeof(double) * counts[me]), *res = malloc(sizeof(double) * all);
  CHECK(own && res);
  for (size_t e = 0; e < counts[me]; e++) own[e] = rooted_val(me, e);
  CHECK_OK(simple_allgatherv(s, own, counts[me], res, counts, displs, SIMPLE_DOUBLE));
  for (int i = 0; i < p; i++)
    for (size_t e = 0; e < counts[i]; e++) CHECK(res[displs[i] + e] == rooted_val(i, e));
  free(own);
  free(res);
  free(counts);
  free(displs);
}

/* Rows dealt out in blocks to columns dealt out in blocks, element (i, j)
 * = i n + j. */
static void redistribute(simple_t *s, long n) {
  simple_dist_t dr = simple_dist_2d(n, n, SIMPLE_ROWS, SIMPLE_BLOCK, 1, SIMPLE_OVER_THREADS);
  simple_dist_t dc = simple_dist_2d(n, n, SIMPLE_COLS, SIMPLE_BLOCK, 1, SIMPLE_OVER_THREADS);
  simple_domain_t a, b;
  CHECK_OK(simple_dist_domain(s, &dr, simple_pid(s), &a));
  CHECK_OK(simple_dist_domain(s, &dc, simple_pid(s), &b));
  double *src = malloc(sizeof(double) * (size_t)(a.local_rows * a.local_cols + 1));
  double *dst = malloc(sizeof(double) * (size_t)(b.local_rows * b.local_cols + 1));
  CHECK(src && dst);
  for (long i = 0; i < a.local_rows; i++)
    for (long j = 0; j < n; j++) src[i * n + j] = (double)((a.row.lo + i) * n + j);
  CHECK_OK(simple_redistribute(s, src, &dr, dst, &dc, sizeof(double)));
  for (long i = 0; i < n; i++)
    for (long j = 0; j < b.local_cols; j++)
      CHECK(dst[i * b.local_cols + j] == (double)(i * n + b.col.lo + j));
  free(src);
  free(dst);
}

/* Thread 0: the room's bytes and those waiting to be freed; elsewhere
 * -1 and 0 (in these calls thread 0 is the one that asks for the room). */
static long long room_now(simple_t *s, long long *waiting) {
  *waiting = 0;
  if (simple_thread(s) != 0) return -1;
  size_t w = 0, b = simple__xchg_room_bytes(&w);
  *waiting = (long long)w;
  return (long long)b;
}

/* The rule itself, on thread 0 while the others wait in a barrier (nobody
 * else touches the room): a block the room outgrew stays allocated until
 * thread 0 has passed a publish after the growth, then goes at the next
 * request; on a node of one thread at once. */
static void retire_rule(simple_t *s) {
  CHECK_OK(simple_barrier(s));
  if (simple_thread(s) == 0) CHECK(simple__xchg_room(s, 64) != NULL); /* a block to outgrow */
  CHECK_OK(simple_barrier(s));
  if (simple_thread(s) == 0) {
    size_t w, had = simple__xchg_room_bytes(&w);
    /* The old block waits, but on a node of one thread (no other reader). */
    size_t waits = simple_threads(s) > 1 ? had : 0;
    CHECK(simple__xchg_room(s, had + 1) != NULL);
    CHECK(simple__xchg_room_bytes(&w) > had);
    CHECK_EQ(w, waits);
    CHECK(simple__xchg_room(s, 1) != NULL);
    simple__xchg_room_bytes(&w);
    CHECK_EQ(w, waits); /* no publish since: still waiting */
  }
  int one = 1, sum = 0; /* a publish on every layout (a one-node barrier only counts) */
  CHECK_OK(simple_allreduce(s, &one, &sum, 1, SIMPLE_INT32, SIMPLE_SUM));
  CHECK_EQ(sum, simple_nprocs(s));
  if (simple_thread(s) == 0) {
    size_t w;
    CHECK(simple__xchg_room(s, 1) != NULL);
    simple__xchg_room_bytes(&w);
    CHECK_EQ(w, 0);
  }
  CHECK_OK(simple_barrier(s));
}

/* Thread 0: the node scratch's bytes (src/node, both blocks); 0 elsewhere. */
static size_t node_scratch(simple_t *s) {
  if (simple_thread(s) != 0) return 0;
  return s->node->scratch[0].cap + s->node->scratch[1].cap;
}

/* The largest alltoall block, in doubles, that nodes of several threads
 * pack through the room (from 256 KiB each block is a message of its
 * own: src/coll/choose.c). */
#define PACKED_MAX (((size_t)256 << 10) / sizeof(double) - 1)
static size_t packed(size_t count) { return count < PACKED_MAX ? count : PACKED_MAX; }

static void run(simple_t *s, void *arg) {
  (void)arg;
  int p = simple_nprocs(s);
  long long w, before, after;
  if (simple_nodes(s) > 1) {
    /* The job's first exchange, an alltoall of 64 KiB blocks: on a node
     * of several threads (a node of one sends from and receives into its
     * own buffers) its room holds a message of at least 2 x 64 KiB each
     * way; a 64 x 64 redistribution moves at most the node's 32 KiB each
     * way. Packed: one message per block starts at 256 KiB. */
    alltoall(s, 8192);
    before = room_now(s, &w);
    redistribute(s, 64);
    after = room_now(s, &w);
    if (simple_threads(s) > 1) CHECK_EQ(after, before);
    /* A 1024 x 1024 redistribution: the node's part each way, n^2 r / p
     * doubles, more than the alltoall's room (one driver on these
     * layouts: a message of at most r r_k 64 KiB each way); it grows the
     * same room. An alltoall of n^2 / (2 p^2) doubles a pair moves at
     * most half of the node's part each way (at most PACKED_MAX doubles,
     * so that it is packed through the room). */
    redistribute(s, 1024);
    after = room_now(s, &w);
    if (simple_thread(s) == 0) CHECK(after > before);
    alltoall(s, packed(1024 * 1024 / (2 * (size_t)p * (size_t)p)));
    before = room_now(s, &w);
    alltoall(s, packed(1024 * 1024 / (2 * (size_t)p * (size_t)p)));
    after = room_now(s, &w);
    CHECK_EQ(after, before);
    /* The block the redistribution outgrew went at the alltoall after next. */
    CHECK_EQ(w, 0);
    /* An allreduce takes its accumulator from the same room: 2 x 128 KiB,
     * less than the redistribution's node part each way. */
    before = room_now(s, &w);
    allreduce(s, 16384);
    after = room_now(s, &w);
    CHECK_EQ(after, before);
    /* So do a gather's and a scatter's node messages (at most the node's
     * r 128 KiB) and an allgatherv's blocks and result (about 128 KiB). */
    size_t scratch = node_scratch(s);
    gather_scatter(s, 16384);
    allgatherv(s, 16384 / (size_t)p);
    after = room_now(s, &w);
    CHECK_EQ(after, before);
    /* ... and not in the node scratch either: tables only (a few words
     * per node; a node of one thread may not have needed one before),
     * against messages of 128 KiB. */
    CHECK(node_scratch(s) <= (scratch > 1024 ? scratch : 1024));
  }
  /* Back to back: a redistribution, then an alltoall that outgrows its
   * room (2 r_k n^2 / p doubles a node pair against n^2 r / p each way)
   * while the redistribution's threads may still unpack from it; then
   * sizes up and down, the kinds alternating. */
  for (long n = 96; n <= 224; n += 64) {
    redistribute(s, n);
    size_t count = (size_t)(2 * n * n / p);
    alltoall(s, packed(count));
  }
  static const size_t counts[] = {1, 700, 40, 3000, 8};
  static const long sizes[] = {16, 200, 8, 96, 300};
  for (int k = 0; k < 5; k++) {
    alltoall(s, counts[k]);
    redistribute(s, sizes[k]);
    allreduce(s, 3 * counts[(k + 1) % 5]);
    gather_scatter(s, counts[(k + 3) % 5]);
    allgatherv(s, counts[(k + 4) % 5]);
    redistribute(s, sizes[(k + 2) % 5]);
  }
  retire_rule(s);
}

TEST_MAIN(run)
