/* Bad arguments to node collectives: the offending thread gets the
 * documented code, the others SIMPLE_ERR_PEER, nobody hangs, no buffer is
 * written, and the node works normally afterwards. */
#include <stdint.h>

#include "harness.h"

/* Thread `bad` of the node makes the mistake; everyone checks its code. */
static void expect(simple_t *s, int rc, int bad, int code) {
  int me = simple_thread(s);
  if (me == bad)
    CHECK_RC(rc, code);
  else
    CHECK_RC(rc, simple_threads(s) > 1 ? SIMPLE_ERR_PEER : code);
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  int me = simple_thread(s), r = simple_threads(s), bad = r - 1;
  int32_t in[4] = {1, 2, 3, 4}, out[4] = {9, 9, 9, 9};
  int mine = me == bad;

  expect(s, simple_node_allreduce(s, mine ? NULL : in, out, 4, SIMPLE_INT32, SIMPLE_SUM), bad,
         SIMPLE_ERR_NULL);
  expect(s, simple_node_allreduce(s, in, mine ? NULL : out, 4, SIMPLE_INT32, SIMPLE_SUM), bad,
         SIMPLE_ERR_NULL);
  expect(s,
         simple_node_allreduce(s, in, out, 4, mine ? (simple_type_t)99 : SIMPLE_INT32, SIMPLE_SUM),
         bad, SIMPLE_ERR_TYPE);
  expect(s, simple_node_allreduce(s, in, out, 4, SIMPLE_INT32, mine ? (simple_op_t)42 : SIMPLE_SUM),
         bad, SIMPLE_ERR_OP);
  expect(s, simple_node_scan(s, in, out, mine ? SIZE_MAX / 2 : 4, SIMPLE_INT32, SIMPLE_SUM), bad,
         SIMPLE_ERR_COUNT);
  expect(s, simple_node_reduce(s, in, out, 4, SIMPLE_INT32, SIMPLE_SUM, mine ? r : 0), bad,
         SIMPLE_ERR_RANK);
  expect(s, simple_node_bcast(s, in, 4, SIMPLE_INT32, mine ? -1 : 0), bad, SIMPLE_ERR_RANK);
  expect(s, simple_node_bcast(s, mine ? NULL : in, 4, SIMPLE_INT32, 0), bad, SIMPLE_ERR_NULL);
  expect(s, simple_node_share(s, mine ? NULL : (void **)&out, 0), bad, SIMPLE_ERR_ARG);
  /* An op undefined for the type on every thread. */
  CHECK_RC(simple_node_allreduce(s, in, out, 4, SIMPLE_DOUBLE, SIMPLE_BXOR), SIMPLE_ERR_OP);
  CHECK_RC(simple_node_exscan(s, in, out, 4, SIMPLE_BYTE, SIMPLE_SUM), SIMPLE_ERR_OP);
  /* SIMPLE_IN_PLACE where the thread has no receive buffer. */
  if (r > 1)
    expect(s,
           simple_node_reduce(s, mine ? SIMPLE_IN_PLACE : in, out, 4, SIMPLE_INT32, SIMPLE_SUM, 0),
           bad, SIMPLE_ERR_ARG);
  for (int i = 0; i < 4; i++) CHECK_EQ(out[i], 9); /* nothing written */

  /* NULL buffers are fine with a zero count. */
  CHECK_OK(simple_node_allreduce(s, NULL, NULL, 0, SIMPLE_INT32, SIMPLE_SUM));
  CHECK_OK(simple_node_allreduce(s, in, out, 4, SIMPLE_INT32, SIMPLE_SUM));
  for (int i = 0; i < 4; i++) CHECK_EQ(out[i], (long long)r * (i + 1));
  CHECK_RC(simple_node_barrier(NULL), SIMPLE_ERR_NOT_IN_JOB);
}

TEST_MAIN(test)
