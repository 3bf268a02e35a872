/* The inter-node calls of src/dist beyond those of net.h. */
#ifndef SIMPLE_NET_NET_DIST_H
#define SIMPLE_NET_NET_DIST_H

#include "net/net.h"

/* Makes progress on count transfers without blocking: *done is 1 once all
 * of them have completed (completed parts are released, so a later
 * simple__net_waitall on the same requests returns at once). 0 or
 * SIMPLE_ERR_MPI. Lets a thread that drives transfers do other work
 * between calls while MPI (which progresses only inside its calls) keeps
 * the transfers moving. */
int simple__net_testall(simple__net_req_t *reqs, int count, int *done);

#endif
