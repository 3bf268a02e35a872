/* simple_scan (and, with SCAN_EXCLUSIVE set, simple_exscan: see
 * test_exscan.c): every type and op, counts on both sides of the inline
 * (256 B) and multi-lane (8 KiB) switches and one above 1 MiB per thread,
 * in place and not, against a serial reference over the pids; guards on
 * both sides of recv; the input untouched; exscan's pid 0 left untouched;
 * a non-commutative user op that checks the exact rank order. */
#include "harness.h"

#ifndef SCAN_EXCLUSIVE
#define SCAN_EXCLUSIVE 0
#endif

#define GUARD 64

static int call(simple_t *s, const void *send, void *recv, size_t n, simple_type_t t,
                simple_op_t op) {
  return SCAN_EXCLUSIVE ? simple_exscan(s, send, recv, n, t, op)
                        : simple_scan(s, send, recv, n, t, op);
}

static void scan_one(simple_t *s, simple_type_t t, simple_op_t op, size_t n, int in_place) {
  int me = simple_pid(s);
  size_t es = simple_type_size(t), bytes = n * es;
  unsigned char *send = malloc(bytes + 1), *base = malloc(bytes + 2 * GUARD),
                *want = malloc(bytes + 1), *recv = base + GUARD;
  CHECK(send && base && want);
  test_fill(op, t, send, n, me);
  memset(base, 0xA5, bytes + 2 * GUARD);
  if (in_place) test_fill(op, t, recv, n, me);
  CHECK_OK(call(s, in_place ? SIMPLE_IN_PLACE : send, recv, n, t, op));
  int last = SCAN_EXCLUSIVE ? me - 1 : me;
  if (last >= 0)
    test_expect(op, t, want, n, 0, last);
  else if (in_place)
    test_fill(op, t, want, n, me); /* exscan's pid 0: the input stays */
  else
    memset(want, 0xA5, bytes);
  long bad = test_diff(t, recv, want, n);
  if (bad >= 0)
    simple_abort(s, "type %s op %s count %zu in_place %d: element %ld wrong", simple_type_name(t),
                 simple_op_name(op), n, in_place, bad);
  for (size_t i = 0; i < GUARD; i++) CHECK(base[i] == 0xA5 && recv[bytes + i] == 0xA5);
  test_fill(op, t, want, n, me);
  CHECK(test_diff(t, send, want, n) < 0);
  free(send);
  free(base);
  free(want);
}

/* Intervals of ranks [lo, hi] as (lo << 32 | hi); two combine only if the
 * left one ends just before the right one starts, anything else gives BAD.
 * Associative, not commutative: a result is right only if the library
 * combined exactly the ranks it should, in rank order. */
#define BAD UINT64_MAX
static void join(void *acc, const void *in, size_t n, simple_type_t type, void *ctx) {
  (void)type;
  (void)ctx;
  uint64_t *a = acc;
  const uint64_t *b = in;
  for (size_t i = 0; i < n; i++)
    a[i] = (a[i] == BAD || b[i] == BAD || (a[i] & 0xffffffffu) + 1 != b[i] >> 32)
               ? BAD
               : (a[i] & ~(uint64_t)0xffffffffu) | (b[i] & 0xffffffffu);
}

static simple_op_t join_op;

static void check_order(simple_t *s, size_t n, int in_place) {
  int me = simple_pid(s);
  uint64_t *send = malloc(n * 8 + 8), *recv = malloc(n * 8 + 8);
  CHECK(send && recv);
  for (size_t i = 0; i < n; i++) send[i] = recv[i] = (uint64_t)me << 32 | (uint64_t)me;
  CHECK_OK(call(s, in_place ? SIMPLE_IN_PLACE : send, recv, n, SIMPLE_UINT64, join_op));
  int last = SCAN_EXCLUSIVE ? me - 1 : me;
  uint64_t want = last >= 0 ? (uint64_t)last : (uint64_t)me << 32 | (uint64_t)me;
  for (size_t i = 0; i < n; i++)
    if (recv[i] != want)
      simple_abort(s, "user op: count %zu element %zu is %#llx, expected %#llx", n, i,
                   (unsigned long long)recv[i], (unsigned long long)want);
  free(send);
  free(recv);
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  static const size_t counts[] = {0, 1, 7, 64, 333, 5001};
  for (size_t ti = 0; ti < TEST_NTYPES; ti++) {
    simple_type_t t = test_types[ti];
    for (size_t oi = 0; oi < TEST_NOPS; oi++) {
      simple_op_t op = test_ops[oi];
      if (!test_op_valid(op, t)) {
        char buf[16];
        CHECK_RC(call(s, buf, buf, 1, t, op), SIMPLE_ERR_OP);
        continue;
      }
      for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
        for (int in_place = 0; in_place < 2; in_place++) scan_one(s, t, op, counts[ci], in_place);
    }
  }
  /* Above 1 MiB per thread: many slices, chunks and lanes. */
  scan_one(s, SIMPLE_INT32, SIMPLE_SUM, 300001, 0);
  scan_one(s, SIMPLE_DOUBLE, SIMPLE_MAX, 150003, 1);

  /* Rank order, with a user op (created in the same order on every node). */
  if (simple_thread(s) == 0) CHECK_OK(simple_op_create(join, NULL, &join_op));
  CHECK_OK(simple_barrier(s));
  static const size_t ocounts[] = {1, 7, 333, 5001};
  for (size_t ci = 0; ci < sizeof ocounts / sizeof ocounts[0]; ci++)
    for (int in_place = 0; in_place < 2; in_place++) check_order(s, ocounts[ci], in_place);
  CHECK_OK(simple_barrier(s));
  if (simple_thread(s) == 0) CHECK_OK(simple_op_free(join_op));

  /* Arguments refused on every thread alike. */
  int x = 0;
  CHECK_RC(call(s, &x, &x, 1, (simple_type_t)99, SIMPLE_SUM), SIMPLE_ERR_TYPE);
  CHECK_RC(call(s, NULL, &x, 1, SIMPLE_INT32, SIMPLE_SUM), SIMPLE_ERR_NULL);
  CHECK_RC(call(s, &x, NULL, 1, SIMPLE_INT32, SIMPLE_SUM), SIMPLE_ERR_NULL);
  CHECK_RC(call(s, &x, &x, SIZE_MAX / 2, SIMPLE_INT32, SIMPLE_SUM), SIMPLE_ERR_COUNT);
  CHECK_OK(call(s, NULL, NULL, 0, SIMPLE_INT32, SIMPLE_SUM));
  /* One thread's bad argument: its whole node returns, nobody hangs
   * (only one node, so that the others are not left in the exchange). */
  if (simple_nodes(s) == 1) {
    int bad = simple_thread(s) == simple_threads(s) - 1;
    CHECK_RC(call(s, bad ? NULL : &x, &x, 1, SIMPLE_INT32, SIMPLE_SUM),
             bad ? SIMPLE_ERR_NULL : (simple_threads(s) > 1 ? SIMPLE_ERR_PEER : SIMPLE_ERR_NULL));
  }
}

TEST_MAIN(test)
