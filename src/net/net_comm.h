/* Internal: communicator handles, and the transport calls made on them.
 *
 * A layer that needs traffic of its own (messages whose tags it alone
 * chooses, collectives it alone orders, windows) asks src/net for its own
 * duplicate of the node communicator when it sets up, keeps the handle in
 * its own per-node state, and gives it back when the job closes (its
 * at-close hook, or the close hook it registered with the runtime:
 * run/job.h). A duplicate is a separate matching space: nothing sent on it
 * can match a receive on any other, so a layer owns its tags and the order
 * of its collectives outright. src/net names no layer and keeps no state
 * of its own.
 *
 * Nodes are ranks of every such communicator. Sizes are bytes, at most
 * INT_MAX for a single message here (the lanes of net.h split larger
 * ones, net.h). Request and matched-message handles (MPI_Request, MPI_Message)
 * are opaque long longs, so that no layer above sees an MPI type.
 * Blocking calls are watched (SIMPLE_WATCHDOG, the hang report). */
#ifndef SIMPLE_NET_NET_COMM_H
#define SIMPLE_NET_NET_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "run/job.h"

typedef struct simple__comm simple__comm_t;

/* One thread per node, every node at once and in the same order as the
 * node's other such calls (MPI_Comm_dup is collective): a new
 * communicator over the job's nodes. Cost: one MPI_Comm_dup (a context-id
 * agreement among the nodes, ~one allreduce). */
int simple__comm_dup(simple__node_t *n, simple__comm_t **out);
/* Frees *c (NULL: nothing) and sets it to NULL; after every transfer on it
 * completed. */
void simple__comm_free(simple__comm_t **c);
/* A layer's own communicator kept in one of its node slots (a runtime
 * open/close hook's whole work): the duplicate made into *slot (NULL on
 * failure, with the error returned), and freed from it. */
int simple__comm_open_slot(simple__node_t *n, void **slot);
void simple__comm_close_slot(void **slot);
/* MPI_TAG_UB of the communicator (at least 32767 by the standard). */
int simple__comm_tag_ub(const simple__comm_t *c);

/* --- Point to point (any thread, MPI_THREAD_MULTIPLE). */

/* Blocking and nonblocking standard-mode sends of bytes to node `dest`. */
int simple__comm_send(simple__comm_t *c, const void *buf, size_t bytes, int dest, int tag);
int simple__comm_isend(simple__comm_t *c, const void *buf, size_t bytes, int dest, int tag,
                       long long *req);

/* A receive posted for one source node and one tag (tag -1: any tag).
 * Room for `bytes` (a longer message is cut: SIMPLE_ERR_TRUNCATE when it
 * completes). */
int simple__comm_irecv(simple__comm_t *c, void *buf, size_t bytes, int src, int tag,
                       long long *req);

/* A blocking receive from node src with tag `tag` (-1: any); *mtag and
 * *got: what arrived (both NULL: MPI is asked for no status at all). */
int simple__comm_recv(simple__comm_t *c, void *buf, size_t bytes, int src, int tag, int *mtag,
                      size_t *got);

/* A matched probe (MPI_Improbe) for any source and any tag: *found = 1 and
 * the message's node, tag, size and handle if one has arrived. The message
 * then belongs to the caller: nobody else can receive it, and it must be
 * received with simple__comm_mrecv or _imrecv. Cost: one MPI progress
 * poll (~0.2-1 us with shared memory or TCP). */
int simple__comm_improbe(simple__comm_t *c, int *found, int *src, int *tag, size_t *bytes,
                         long long *match);
/* Receives a matched message into buf (room for exactly its size). */
int simple__comm_mrecv(long long *match, void *buf, size_t bytes);
int simple__comm_imrecv(long long *match, void *buf, size_t bytes, long long *req);

/* Completes a request of isend/irecv/imrecv: test sets *done, wait blocks
 * (MPI_Wait, which yields the core when Open MPI runs with
 * mpi_yield_when_idle). tag and bytes (may be NULL) get the tag and the
 * size received. A message longer than an irecv's buffer returns
 * SIMPLE_ERR_TRUNCATE; the buffer holds what MPI left there (Open MPI:
 * the message's first bytes; MPICH: what it held before) and bytes what
 * MPI's status says. */
int simple__comm_test(long long *req, int *done, int *tag, size_t *bytes);
int simple__comm_wait(long long *req, int *tag, size_t *bytes);

/* --- Collectives: one thread per node, every node at once, in the same
 * order on every node. MPI's own algorithms. */

int simple__comm_barrier(simple__comm_t *c);
/* A nonblocking job-wide vote: every node's int, for a verdict that
 * travels while the caller works. vote_start sends this node's word;
 * vote_wait completes the vote and puts the largest word in v->max.
 * Between the two the caller leaves *v alone (it holds the request: keep
 * it where an abandoned call cannot free it). Every node takes both calls
 * for the same step, the nodes that fail too. A vote_start that fails
 * (SIMPLE_ERR_MPI) has taken back what it posted: no vote_wait. It is
 * MPI_Iallreduce with MAX (Open MPI's libnbc below 64 KiB: a binomial
 * reduce, then a broadcast, 2 log2 P alpha); on fewer nodes an exchange
 * carries its verdict in band instead (src/xchg: simple__xchg_t's
 * verdict). MPI moves it on inside any MPI call of the process. */
typedef struct {
  int word, max, nreq;
  long long req[1];
} simple__comm_vote_t;
int simple__comm_vote_start(simple__comm_t *c, int word, simple__comm_vote_t *v);
int simple__comm_vote_wait(simple__comm_vote_t *v);
/* Sizes in bytes (split at 1 GiB). */
int simple__comm_bcast(simple__comm_t *c, void *buf, size_t bytes, int root);
/* A broadcast that carries the root node's verdict in band: the root's
 * *word and its `bytes` at buf travel as one message (copied into one
 * block up to 48 KiB, on the stack up to 1 KiB; above, or where that
 * block cannot be allocated, an MPI datatype over both places); the others
 * receive the word into *word and the data at buf (NULL with bytes > 0:
 * into a temporary block, dropped; the error path only). Bit 0 of the
 * word is the verdict: with it set, buf is left as it was where the data
 * came through the copy, else what it holds is unspecified (the error
 * path); the other bits are the caller's (a call signature). Cost: one
 * MPI_Bcast of bytes + 8, and up to 48 KiB two copies of bytes (the
 * root's in, the others' out). */
int simple__comm_bcast_word(simple__comm_t *c, long long *word, void *buf, size_t bytes, int root);
/* Every node contributes `bytes`; rbuf gets them in node order. */
int simple__comm_allgather(simple__comm_t *c, const void *sbuf, size_t bytes, void *rbuf);
/* `per` uint64 values to and from every node (MPI_Alltoall). Cost: one
 * all-to-all of 8 per bytes per node pair ((P-1) alpha, or log P alpha). */
int simple__comm_alltoall_u64(simple__comm_t *c, const uint64_t *send, uint64_t *recv, int per);
/* Node k contributes counts[k] bytes, placed at displs[k] (bytes) in rbuf
 * (MPI_Allgatherv); counts and displacements must fit an int
 * (SIMPLE_ERR_COUNT otherwise). sbuf may not lie inside rbuf. */
int simple__comm_allgatherv(simple__comm_t *c, const void *sbuf, const size_t *counts,
                            const size_t *displs, void *rbuf);

#endif
