/* Threads of one node whose calls move different messages among nodes:
 * on 2 x 2, thread 0 of node 1 passes 3000 elements to simple_allgather
 * (24000 bytes per thread: the table's direct exchange) where every other
 * thread passes 3 (the packed MPI_Allgatherv). The tie makes thread 0's
 * call node 1's reference, so node 1 runs the direct exchange's error
 * path while node 0 waits in the packed one: no verdict can reach node 0.
 * The node must say so at once, naming both calls, before the watchdog
 * (SIMPLE_WATCHDOG, set by the test) ends the job. */
#include "harness.h"

static void body(simple_t *s, void *arg) {
  (void)arg;
  size_t big = 3000, small = 3;
  size_t n = simple_node(s) == 1 && simple_thread(s) == 0 ? big : small;
  double *x = calloc(big, sizeof *x), *y = calloc(big * (size_t)simple_nprocs(s), sizeof *y);
  CHECK(x && y);
  int rc = simple_allgather(s, x, y, n, SIMPLE_DOUBLE);
  /* Node 1 returns (thread 0 SIMPLE_ERR_ARG); node 0 waits until the
   * watchdog ends the job. */
  printf("node %d thread %d: %s\n", simple_node(s), simple_thread(s), simple_errname(rc));
  fflush(stdout);
  simple_barrier(s);
  free(x);
  free(y);
}

int main(int argc, char **argv) { return simple_run(&argc, &argv, body, NULL); }
