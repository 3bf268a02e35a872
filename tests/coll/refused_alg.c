/* Run with a malformed SIMPLE_COLL_ALG: every collective that takes its
 * algorithm among nodes from the decision table refuses every call with
 * SIMPLE_ERR_ARG on every thread, writes nothing, and the job goes on
 * (a barrier, which the table does not steer, and the node library's
 * broadcast still work). */
#include "harness.h"

static void test(simple_t *s, void *arg) {
  (void)arg;
  int p = simple_nprocs(s);
  double x[4] = {1, 2, 3, 4}, y[4] = {-1, -1, -1, -1};
  double *a = calloc((size_t)p, sizeof *a), *b = malloc((size_t)p * sizeof *b);
  CHECK(a && b);
  for (int i = 0; i < p; i++) b[i] = -1;
  CHECK_RC(simple_allreduce(s, x, y, 4, SIMPLE_DOUBLE, SIMPLE_SUM), SIMPLE_ERR_ARG);
  CHECK_RC(simple_reduce(s, x, y, 4, SIMPLE_DOUBLE, SIMPLE_SUM, 0), SIMPLE_ERR_ARG);
  CHECK_RC(simple_scan(s, x, y, 4, SIMPLE_DOUBLE, SIMPLE_SUM), SIMPLE_ERR_ARG);
  CHECK_RC(simple_exscan(s, x, y, 4, SIMPLE_DOUBLE, SIMPLE_SUM), SIMPLE_ERR_ARG);
  CHECK_RC(simple_alltoall(s, a, b, 1, SIMPLE_DOUBLE), SIMPLE_ERR_ARG);
  int v = simple_pid(s) == 0 ? 42 : 0;
  CHECK_RC(simple_bcast(s, &v, 1, SIMPLE_INT32, 0), SIMPLE_ERR_ARG);
  CHECK(v == (simple_pid(s) == 0 ? 42 : 0));
  for (int i = 0; i < 4; i++) CHECK(y[i] == -1);
  for (int i = 0; i < p; i++) CHECK(b[i] == -1);
  CHECK_OK(simple_barrier(s));
  v = simple_thread(s) == 0 ? 42 : 0;
  CHECK_OK(simple_node_bcast(s, &v, 1, SIMPLE_INT32, 0));
  CHECK(v == 42);
  free(a);
  free(b);
}

TEST_MAIN(test)
