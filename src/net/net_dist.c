/* The inter-node calls of src/dist beyond those of net.c. */
#include <mpi.h>
#include <string.h>

#include "net/net_dist.h"
#include "net/net_state.h"

int simple__net_testall(simple__net_req_t *reqs, int count, int *done) {
  int rc = 0, all = 1;
  for (int i = 0; i < count; i++)
    for (int p = 0; p < reqs[i].nparts; p++) {
      MPI_Request r;
      memcpy(&r, &reqs[i].part[p], sizeof r);
      if (r == MPI_REQUEST_NULL) continue;
      int flag = 0;
      if (MPI_Test(&r, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        rc = SIMPLE_ERR_MPI;
        flag = 1;
        r = MPI_REQUEST_NULL; /* not waited for again */
      }
      /* MPI_Test released a completed request (MPI_REQUEST_NULL): keep
       * that, so that nobody tests or waits on a freed handle. */
      memcpy(&reqs[i].part[p], &r, sizeof r);
      if (!flag) all = 0;
    }
  *done = all;
  return rc;
}
