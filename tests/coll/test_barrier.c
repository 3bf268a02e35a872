/* simple_barrier: no thread of any node leaves round k before every thread
 * of the job has entered it. The count of arrivals lives in an MPI window on
 * node 0 and is updated and read with MPI's own atomics, independently of
 * the library. */
#include <mpi.h>

#include "harness.h"

#define ROUNDS 200

static void test(simple_t *s, void *arg) {
  (void)arg;
  static MPI_Win win; /* one per process, set up by thread 0 */
  static long *counter;
  int p = simple_nprocs(s);
  if (simple_thread(s) == 0) {
    MPI_Win_allocate(simple_node(s) == 0 ? (MPI_Aint)sizeof(long) : 0, sizeof(long),
                     MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &win);
    if (simple_node(s) == 0) *counter = 0;
    MPI_Win_lock_all(0, win);
  }
  CHECK_OK(simple_barrier(s));
  long one = 1, seen = 0, none = 0;
  for (int k = 0; k < ROUNDS; k++) {
    MPI_Fetch_and_op(&one, &seen, MPI_LONG, 0, 0, MPI_SUM, win);
    MPI_Win_flush(0, win);
    CHECK_OK(simple_barrier(s));
    MPI_Fetch_and_op(&none, &seen, MPI_LONG, 0, 0, MPI_NO_OP, win);
    MPI_Win_flush(0, win);
    CHECK_EQ(seen, (long long)p * (k + 1));
    CHECK_OK(simple_barrier(s));
  }
  if (simple_thread(s) == 0) {
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
  }
}

TEST_MAIN(test)
