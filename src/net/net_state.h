/* Internal to src/net: what a communicator handle holds, and the wrappers
 * every MPI call of src/net goes through. Only the sources of src/net
 * include this (they alone may see MPI types); the layers above reach MPI
 * through the functions of net.h, net_comm.h and net_win.h. */
#ifndef SIMPLE_NET_NET_STATE_H
#define SIMPLE_NET_NET_STATE_H

#include <mpi.h>

#include "net/net.h"
#include "net/net_comm.h"
#include "run/watchdog.h"

/* MPI counts are ints: larger transfers go in pieces of this many bytes. */
#define SIMPLE__NET_PART_BYTES ((size_t)1 << 30)

/* Request and matched-message handles travel as opaque long longs. */
_Static_assert(sizeof(MPI_Request) <= sizeof(long long), "MPI_Request fits a long long");
_Static_assert(sizeof(MPI_Message) <= sizeof(long long), "MPI_Message fits a long long");

/* A communicator handle (net_comm.h): the MPI communicator and this
 * node's place in it, read by the collectives without asking MPI. */
struct simple__comm {
  MPI_Comm comm;
  int rank, size;
};

/* A blocking MPI call, marked for the watchdog (SIMPLE_WATCHDOG): the
 * comma operator marks the thread as waiting before the call is made, and
 * simple__net_watched unmarks it after. Every blocking MPI call of src/net
 * goes through this one wrapper, so the watchdog sees every wait on
 * another node. Cost: with the watchdog and the hang report off, one
 * atomic load on each side; on (the hang report is by default), three
 * stores to the thread's own cache line and no clock read (src/run/
 * watchdog.c), against a blocking MPI call's microseconds. */
static inline int simple__net_watched(int mpi_rc) {
  simple__watch_leave();
  return mpi_rc;
}
#define SIMPLE__NET_WATCHED(call) \
  (simple__watch_enter("MPI (an inter-node transfer or collective)"), simple__net_watched(call))

/* A duplicate of `base` that reports errors as return codes: the one
 * way src/net makes a communicator. Collective over base. */
int simple__comm_init(simple__comm_t *c, MPI_Comm base);

/* An MPI return code as a simple error code. */
static inline int simple__net_ok(int mpi_rc) { return mpi_rc == MPI_SUCCESS ? 0 : SIMPLE_ERR_MPI; }

#endif
