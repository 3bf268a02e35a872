/* Threads of one node whose calls move different messages among nodes:
 * on 2 x 2, thread 0 of node 1 passes the larger count where every other
 * thread passes the smaller. The tie makes thread 0's call node 1's
 * reference, so node 1 runs that call's error path while node 0 runs the
 * other schedule: no verdict can reach node 0. The node must say so at
 * once, naming both calls, and where it then waits past the hang report's
 * limit (SIMPLE_HANG_REPORT, set by the test), end the job.
 *   allgather (default): 3 against 5000 elements (40000 bytes per thread:
 *     the table's direct exchange, against the packed MPI_Allgatherv);
 *     node 1 waits in the call itself.
 *   allreduce: 3 against 300000 elements (recursive doubling against
 *     Rabenseifner's schedule); the call returns, having taken a message
 *     of the next call, a correct allreduce, which then waits.
 *   alltoall: 3 against 750000 elements a block (the packed exchange
 *     against one message per block). */
#include <string.h>

#include "harness.h"

typedef enum { ALLGATHER, ALLREDUCE, ALLTOALL } call_t;

static void body(simple_t *s, void *arg) {
  call_t call = *(const call_t *)arg;
  size_t big = call == ALLREDUCE ? 300000 : call == ALLTOALL ? 750000 : 5000, small = 3;
  size_t n = simple_node(s) == 1 && simple_thread(s) == 0 ? big : small;
  size_t P = (size_t)simple_nprocs(s), nx = call == ALLTOALL ? big * P : big;
  double *x = calloc(nx, sizeof *x), *y = calloc(call == ALLREDUCE ? big : big * P, sizeof *y);
  CHECK(x && y);
  int rc = call == ALLREDUCE  ? simple_allreduce(s, x, y, n, SIMPLE_DOUBLE, SIMPLE_SUM)
           : call == ALLTOALL ? simple_alltoall(s, x, y, n, SIMPLE_DOUBLE)
                              : simple_allgather(s, x, y, n, SIMPLE_DOUBLE);
  printf("node %d thread %d: %s\n", simple_node(s), simple_thread(s), simple_errname(rc));
  fflush(stdout);
  if (call == ALLREDUCE) {
    for (size_t i = 0; i < small; i++) x[i] = 1.0;
    rc = simple_allreduce(s, x, y, small, SIMPLE_DOUBLE, SIMPLE_SUM);
    printf("node %d thread %d: next call %s\n", simple_node(s), simple_thread(s),
           simple_errname(rc));
    fflush(stdout);
  }
  simple_barrier(s);
  free(x);
  free(y);
}

int main(int argc, char **argv) {
  const char *name = argc > 1 ? argv[argc - 1] : "";
  call_t call = !strcmp(name, "allreduce")  ? ALLREDUCE
                : !strcmp(name, "alltoall") ? ALLTOALL
                                            : ALLGATHER;
  return simple_run(&argc, &argv, body, &call);
}
