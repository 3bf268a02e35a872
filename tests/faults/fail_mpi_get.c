/* Fault injection for the tests: an MPI_Get that fails on request, the
 * real MPI underneath (the profiling interface). Preloaded into a test
 * program (LD_PRELOAD); while SIMPLE_TEST_FAIL_GET=N is set in the
 * process, the N-th MPI_Get from then on returns MPI_ERR_OTHER, once. */
#include <mpi.h>
#include <stdlib.h>

int MPI_Get(void *buf, int count, MPI_Datatype type, int target, MPI_Aint disp, int tcount,
            MPI_Datatype ttype, MPI_Win win) {
  static int seen; /* gets since SIMPLE_TEST_FAIL_GET was set */
  const char *n = getenv("SIMPLE_TEST_FAIL_GET");
  if (!n) {
    seen = 0;
  } else if (++seen == atoi(n)) {
    return MPI_ERR_OTHER;
  }
  return PMPI_Get(buf, count, type, target, disp, tcount, ttype, win);
}
