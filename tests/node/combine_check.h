/* Shared by the node reduction and scan tests: runs one node-level
 * combining call for every type, every op and several counts, in place and
 * not, and compares every thread's result with a serial reference. */
#ifndef SIMPLE_TEST_COMBINE_CHECK_H
#define SIMPLE_TEST_COMBINE_CHECK_H

#include "harness.h"

typedef enum { K_REDUCE, K_ALLREDUCE, K_SCAN, K_EXSCAN } test_kind_t;

/* Counts: empty, one element, odd, past each of the posted path's limits
 * (src/node/node_coll.c: 15 elements of 8 bytes past an allreduce's 112
 * bytes, 33 past a scan's 256, 68 of 16 bytes past the slot's 1072; each
 * below them for smaller types), several slices and accumulator chunks. */
static const size_t test_counts[] = {0, 1, 7, 15, 33, 68, 300, 5001};
#define TEST_NCOUNTS (sizeof test_counts / sizeof test_counts[0])

static int call(simple_t *s, test_kind_t k, const void *send, void *recv, size_t n, simple_type_t t,
                simple_op_t op, int root) {
  switch (k) {
    case K_REDUCE: return simple_node_reduce(s, send, recv, n, t, op, root);
    case K_ALLREDUCE: return simple_node_allreduce(s, send, recv, n, t, op);
    case K_SCAN: return simple_node_scan(s, send, recv, n, t, op);
    default: return simple_node_exscan(s, send, recv, n, t, op);
  }
}

/* One call and its check. Inputs are thread-rank based: the node's threads
 * play processors 0..r-1. */
static void check_one(simple_t *s, test_kind_t k, simple_type_t t, simple_op_t op, size_t n,
                      int in_place, int root) {
  int me = simple_thread(s), r = simple_threads(s);
  size_t es = simple_type_size(t), bytes = n * es + 16;
  unsigned char *send = malloc(bytes), *recv = malloc(bytes), *want = malloc(bytes);
  CHECK(send && recv && want);
  /* MPI's rule: a reduce is in place at its root only. */
  in_place = in_place && (k != K_REDUCE || me == root);
  test_fill(op, t, send, n, me);
  /* A sentinel after the end: nothing may be written past count. */
  memset(recv, 0xA5, bytes);
  if (in_place) test_fill(op, t, recv, n, me);
  const void *src = in_place ? SIMPLE_IN_PLACE : send;
  CHECK_OK(call(s, k, src, recv, n, t, op, root));

  int has_result = 1, last = r - 1;
  switch (k) {
    case K_REDUCE: has_result = me == root; break;
    case K_SCAN: last = me; break;
    case K_EXSCAN:
      has_result = me > 0;
      last = me - 1;
      break;
    default: break;
  }
  if (has_result) {
    test_expect(op, t, want, n, 0, last);
  } else if (in_place) {
    test_fill(op, t, want, n, me); /* untouched input */
  } else {
    memset(want, 0xA5, n * es);
  }
  long bad = test_diff(t, recv, want, n);
  if (bad >= 0)
    simple_abort(s, "kind %d type %s op %s count %zu in_place %d root %d: element %ld wrong", k,
                 simple_type_name(t), simple_op_name(op), n, in_place, root, bad);
  for (size_t i = n * es; i < bytes; i++)
    if (recv[i] != 0xA5) simple_abort(s, "write past the end (type %s)", simple_type_name(t));
  /* The input must be untouched when not in place. */
  test_fill(op, t, want, n, me);
  CHECK(test_diff(t, send, want, n) < 0);
  free(send);
  free(recv);
  free(want);
}

/* Every type x op x count x in-place; roots 0 and r-1 for reduce. Invalid
 * (op, type) pairs must be refused with SIMPLE_ERR_OP on every thread. */
static void check_all(simple_t *s, test_kind_t k) {
  int r = simple_threads(s);
  for (size_t ti = 0; ti < TEST_NTYPES; ti++) {
    simple_type_t t = test_types[ti];
    for (size_t oi = 0; oi < TEST_NOPS; oi++) {
      simple_op_t op = test_ops[oi];
      if (!test_op_valid(op, t)) {
        char buf[64];
        CHECK_RC(call(s, k, buf, buf, 1, t, op, 0), SIMPLE_ERR_OP);
        continue;
      }
      for (size_t ci = 0; ci < TEST_NCOUNTS; ci++)
        for (int in_place = 0; in_place < 2; in_place++) {
          check_one(s, k, t, op, test_counts[ci], in_place, 0);
          if (k == K_REDUCE && r > 1) check_one(s, k, t, op, test_counts[ci], in_place, r - 1);
        }
    }
  }
  /* A large array: many slices per thread and many chunks per slice. */
  check_one(s, k, SIMPLE_INT32, SIMPLE_SUM, 300001, 0, r - 1);
  check_one(s, k, SIMPLE_DOUBLE, SIMPLE_MAX, 200003, 1, 0);
}

#endif
