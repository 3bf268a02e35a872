/* Internal: the MPI side of the one-sided layer (src/rma): the per-sync
 * exchange of counts among nodes, the registration exchange, and the
 * staging window that the one-sided backend puts the combined node-pair
 * packets into. Everything here runs on the communicator reserved for
 * one-sided traffic (simple__net(n)->rma); the two-sided backend's packets
 * travel on the lanes of net.h (simple__net_isend/irecv). */
#ifndef SIMPLE_NET_NET_RMA_H
#define SIMPLE_NET_NET_RMA_H

#include <stddef.h>
#include <stdint.h>

#include "run/job.h"

typedef struct simple__net_rma simple__net_rma_t;

/* Thread 0 of every node at once (collective among nodes): the layer's
 * MPI objects. No window yet: simple__net_rma_win_ensure makes it. */
int simple__net_rma_open(simple__node_t *n, simple__net_rma_t **out);
/* Frees the window and the communicator; after every thread returned. */
void simple__net_rma_close(simple__net_rma_t *r);

/* MPI_Alltoall of `per` uint64 values per node pair. Cost: one alltoall
 * among P of 8 per bytes per pair (~(P-1) alpha or log P alpha). */
int simple__net_rma_alltoall(simple__net_rma_t *r, const uint64_t *send, uint64_t *recv, int per);

/* Every node contributes counts[node] bytes; rbuf gets them packed in node
 * order (MPI_Allgatherv). */
int simple__net_rma_allgatherv(simple__net_rma_t *r, int me, const void *sbuf, const size_t *counts,
                               void *rbuf);

/* MPI_Barrier among the nodes, then MPI_Win_sync so that the bytes other
 * nodes put into this node's window are visible to its loads. */
int simple__net_rma_barrier(simple__net_rma_t *r);

/* Collective among nodes (every node passes the same `bytes`): makes the
 * staging window at least `bytes` long on every node, creating it anew
 * (MPI_Win_allocate, then MPI_Win_lock_all for the passive-target epoch
 * that lasts as long as the window) when it is smaller. *base is this
 * node's window memory. */
int simple__net_rma_win_ensure(simple__net_rma_t *r, size_t bytes, void **base);

/* Any thread: copies `bytes` from buf into node `node`'s window at byte
 * displacement disp (MPI_Put, in parts of at most 1 GiB), then waits until
 * the data is in place at the target (MPI_Win_flush). Several threads may
 * put to different nodes at once. */
int simple__net_rma_put(simple__net_rma_t *r, int node, const void *buf, size_t bytes, size_t disp);

#endif
