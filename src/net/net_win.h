/* Internal: passive-target MPI windows for layers that read and update
 * other nodes' memory without the owner's code taking part (one-sided
 * gets, puts and atomics inside one MPI_Win_lock_all epoch that lasts as
 * long as the window).
 *
 * A window is made collectively by one thread per node (every node at
 * once, in the same order as the other node-level collectives); after
 * that any thread of any node may get, put and update at any time, and
 * several threads may do so at once (MPI_THREAD_MULTIPLE; a node of one
 * thread needs no more than MPI_THREAD_SINGLE).
 *
 * Transfers are non-blocking until simple__win_flush: the bytes a get
 * names may not be read, and those a put names may not be changed, before
 * it returns. Atomics complete before they return.
 *
 * Costs (alpha = one network round trip, beta = per byte): a get of b
 * bytes from another node costs alpha + b beta once flushed, gets to one
 * node issued together overlap (one alpha for the group); between
 * processes of one host (Open MPI's osc/sm) a get is a memcpy. An atomic
 * costs alpha. On a transport without remote memory access (TCP) MPI
 * serves the target's side when the target next enters the MPI library. */
#ifndef SIMPLE_NET_NET_WIN_H
#define SIMPLE_NET_NET_WIN_H

#include <stddef.h>
#include <stdint.h>

#include "net/net_comm.h"
#include "run/job.h"

typedef struct simple__win simple__win_t;

/* One thread per node, every node at once: a window of `bytes` (the same
 * on every node, >= 64) of this node's memory, 64-byte aligned at *base,
 * zero-filled, open for access from every node. The window gets its own
 * duplicate of the communicator (so its creation and free never
 * interleave with other traffic): of the job's communicator (create, in
 * the order of the node's other communicator duplicates, simple__comm_dup),
 * or of the caller's (create_on, in the order of its collectives on c). Cost: a
 * communicator duplicate, MPI_Win_allocate, a memset of bytes and a
 * barrier among the nodes: for windows made once, or grown rarely. */
int simple__win_create(simple__node_t *n, size_t bytes, void **base, simple__win_t **out);
int simple__win_create_on(simple__comm_t *c, size_t bytes, void **base, simple__win_t **out);
/* One thread per node, every node at once, after every access ended. */
void simple__win_free(simple__win_t *w);

/* Starts copying `bytes` at byte `disp` of node `node`'s window into buf
 * (MPI_Get, split at 1 GiB). Complete with simple__win_flush. */
int simple__win_get(simple__win_t *w, int node, size_t disp, void *buf, size_t bytes);
/* Starts copying `bytes` from buf to byte `disp` of node `node`'s window. */
int simple__win_put(simple__win_t *w, int node, size_t disp, const void *buf, size_t bytes);
/* Waits until every transfer this process started to `node` (every node
 * for node -1) is complete at both ends (MPI_Win_flush(_all)). */
int simple__win_flush(simple__win_t *w, int node);
/* Makes what other nodes put into this node's window visible to this
 * node's loads (MPI_Win_sync: a memory barrier, no communication); with a
 * barrier among the nodes after their flushes, the target's side of a
 * put's completion. */
int simple__win_sync(simple__win_t *w);

/* Atomically adds `add` to the int64 at byte `disp` of node `node`'s
 * window and returns the former value in *old (MPI_Fetch_and_op). */
int simple__win_fetch_add(simple__win_t *w, int node, size_t disp, int64_t add, int64_t *old);
#endif
