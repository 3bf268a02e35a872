/* Shared by the global reduce and allreduce tests: every type, op and
 * count, in place and not, against a serial reference over all pids. */
#ifndef SIMPLE_TEST_REDUCE_CHECK_H
#define SIMPLE_TEST_REDUCE_CHECK_H

#include "harness.h"

/* Counts: empty, one, odd, both sides of the small/large switch (8 KiB),
 * and one above 1 MiB per thread. */
static const size_t reduce_counts[] = {0, 1, 7, 300, 5001};

/* root < 0: allreduce. */
static void reduce_one(simple_t *s, simple_type_t t, simple_op_t op, size_t n, int in_place,
                       int root) {
  int me = simple_pid(s), p = simple_nprocs(s);
  int has_result = root < 0 || me == root;
  in_place = in_place && has_result;
  size_t es = simple_type_size(t), bytes = n * es + 16;
  unsigned char *send = malloc(bytes), *recv = malloc(bytes), *want = malloc(bytes);
  CHECK(send && recv && want);
  test_fill(op, t, send, n, me);
  memset(recv, 0xA5, bytes);
  if (in_place) test_fill(op, t, recv, n, me);
  const void *src = in_place ? SIMPLE_IN_PLACE : send;
  if (root < 0)
    CHECK_OK(simple_allreduce(s, src, recv, n, t, op));
  else
    CHECK_OK(simple_reduce(s, src, recv, n, t, op, root));
  if (has_result)
    test_expect(op, t, want, n, 0, p - 1);
  else
    memset(want, 0xA5, n * es);
  long bad = test_diff(t, recv, want, n);
  if (bad >= 0)
    simple_abort(s, "type %s op %s count %zu in_place %d root %d: element %ld wrong",
                 simple_type_name(t), simple_op_name(op), n, in_place, root, bad);
  for (size_t i = n * es; i < bytes; i++) CHECK(recv[i] == 0xA5);
  test_fill(op, t, want, n, me);
  CHECK(test_diff(t, send, want, n) < 0);
  free(send);
  free(recv);
  free(want);
}

static void reduce_all(simple_t *s, int is_reduce) {
  int p = simple_nprocs(s);
  int roots[3] = {0, p - 1, p / 2};
  for (size_t ti = 0; ti < TEST_NTYPES; ti++) {
    simple_type_t t = test_types[ti];
    for (size_t oi = 0; oi < TEST_NOPS; oi++) {
      simple_op_t op = test_ops[oi];
      if (!test_op_valid(op, t)) {
        char buf[16];
        if (is_reduce)
          CHECK_RC(simple_reduce(s, buf, buf, 1, t, op, 0), SIMPLE_ERR_OP);
        else
          CHECK_RC(simple_allreduce(s, buf, buf, 1, t, op), SIMPLE_ERR_OP);
        continue;
      }
      for (size_t ci = 0; ci < sizeof reduce_counts / sizeof reduce_counts[0]; ci++)
        for (int in_place = 0; in_place < 2; in_place++)
          reduce_one(s, t, op, reduce_counts[ci], in_place,
                     is_reduce ? roots[(ci + (size_t)in_place) % 3] : -1);
    }
  }
  /* Above 1 MiB per thread: many lanes, pieces and accumulator chunks. */
  reduce_one(s, SIMPLE_INT32, SIMPLE_SUM, 300001, 0, is_reduce ? p - 1 : -1);
  reduce_one(s, SIMPLE_DOUBLE, SIMPLE_MAX, 200003, 1, is_reduce ? p / 2 : -1);
  reduce_one(s, SIMPLE_DOUBLE_COMPLEX, SIMPLE_PROD, 70001, 0, is_reduce ? 0 : -1);
}

#endif
