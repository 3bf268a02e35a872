/* The inter-node communication layer (paper 000's ICL): messages and
 * collectives between nodes, over MPI. With src/run (MPI start and end),
 * the only code that calls MPI.
 *
 * Lanes: a node's threads may drive transfers to other nodes at the same
 * time. Each lane is its own MPI communicator, used by at most one thread
 * per node at a time (by convention thread t of each node uses lane t), so
 * concurrent transfers never match each other's messages and MPI's
 * per-communicator ordering keeps successive collectives apart without
 * sequence numbers in the tags. Node-level collectives (one thread per node
 * calling) run on a communicator of their own.
 *
 * Sizes are in bytes; messages larger than MPI's int count are split. */
#ifndef SIMPLE_NET_NET_H
#define SIMPLE_NET_NET_H

#include <stddef.h>

#include "run/job.h"

/* Lanes available: min(max threads on any node, SIMPLE__NET_MAX_LANES). */
#define SIMPLE__NET_MAX_LANES 64

/* Called once per process by simple_run after MPI is up. */
int simple__net_open(simple__node_t *n);
void simple__net_close(simple__node_t *n);

/* Error marks, the job-wide verdict's carrier: a node whose threads found
 * an error in a collective's arguments still takes part in every
 * inter-node step that other nodes wait on, sending a zero-length message
 * (simple__net_mark) where its data would go and taking whatever it is
 * sent with simple__net_drain. A receive that expected a non-empty message
 * and got an empty one returns SIMPLE__NET_MARK (a code of src/net only,
 * never returned to users: the layers above turn it into
 * SIMPLE_ERR_PEER) and writes nothing into its buffer. So a client that
 * carries verdicts never sends an empty data message: empty transfers are
 * skipped at both ends. Cost on the success path: the receive's status
 * is read (MPI_Get_count, a few ns); no extra message. */
#define SIMPLE__NET_MARK 1000

/* A nonblocking transfer; complete it with simple__net_waitall. Large
 * messages use several MPI requests. */
#define SIMPLE__NET_REQ_PARTS 4
typedef struct {
  int nparts;
  int markable; /* a receive of a non-empty message: an empty one is a mark */
  long long part[SIMPLE__NET_REQ_PARTS]; /* MPI_Request handles, opaque here */
} simple__net_req_t;

int simple__net_isend(simple__node_t *n, int lane, const void *buf, size_t bytes, int dest, int tag,
                      simple__net_req_t *req);
int simple__net_irecv(simple__node_t *n, int lane, void *buf, size_t bytes, int src, int tag,
                      simple__net_req_t *req);
/* Waits for every request; 0, SIMPLE_ERR_MPI, or SIMPLE__NET_MARK when a
 * receive got an error mark (the other requests still completed). */
int simple__net_waitall(simple__net_req_t *reqs, int count);
/* Makes progress on count transfers without blocking: *done is 1 once all
 * of them have completed (completed parts are released, so a later
 * simple__net_waitall on the same requests returns at once). 0 or
 * SIMPLE_ERR_MPI. Lets a thread that drives transfers do other work
 * between calls while MPI (which progresses only inside its calls) keeps
 * the transfers moving. Cost: one MPI_Test per part. */
int simple__net_testall(simple__net_req_t *reqs, int count, int *done);

/* An error mark to dest (nonblocking: complete with simple__net_waitall;
 * it never waits for a receive, being empty), and the taking of one
 * message from src whatever its length (a mark or data, received into a
 * temporary block and dropped: the error path only). */
int simple__net_mark(simple__node_t *n, int lane, int dest, int tag, simple__net_req_t *req);
int simple__net_drain(simple__node_t *n, int lane, int src, int tag);

int simple__net_send(simple__node_t *n, int lane, const void *buf, size_t bytes, int dest, int tag);
int simple__net_recv(simple__node_t *n, int lane, void *buf, size_t bytes, int src, int tag);
/* Sends to dest and receives from src at once (either may be -1: none). */
int simple__net_sendrecv(simple__node_t *n, int lane, const void *sbuf, size_t sbytes, int dest,
                         void *rbuf, size_t rbytes, int src, int tag);

/* Node-level collectives: exactly one thread per node calls, in the same
 * order on every node. They use MPI's own algorithms. simple__net_recv and
 * simple__net_sendrecv return SIMPLE__NET_MARK as simple__net_waitall. */
int simple__net_barrier(simple__node_t *n);
int simple__net_bcast(simple__node_t *n, void *buf, size_t bytes, int root);
/* A broadcast that carries the root node's verdict in band: the root's
 * *word and its `bytes` at buf travel as one message (an MPI datatype over
 * both places, no copy); the others receive the word into *word and the
 * data at buf (NULL with bytes > 0: into a temporary block, dropped; the
 * error path only). Bit 0 of the word is the verdict (set: the data need
 * not arrive); its other bits are the caller's. Cost: one MPI_Bcast of
 * bytes + 8. */
int simple__net_bcast_word(simple__node_t *n, long long *word, void *buf, size_t bytes, int root);
/* Every node contributes `bytes`; rbuf gets them in node order. */
int simple__net_allgather(simple__node_t *n, const void *sbuf, size_t bytes, void *rbuf);
/* Node k contributes counts[k] bytes, placed at displs[k] (bytes) in rbuf.
 * Counts and displacements must fit MPI's int. */
int simple__net_allgatherv(simple__node_t *n, const void *sbuf, const size_t *counts,
                           const size_t *displs, void *rbuf);

#endif
