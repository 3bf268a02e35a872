/* The MPI part of src/msg: point-to-point messages between threads of
 * different nodes, on the communicator simple__net(n)->msg that only src/msg
 * uses. A message is one MPI message whose tag names its destination thread,
 * source thread and user tag (src/msg chooses the encoding); nodes are MPI
 * ranks of that communicator.
 *
 * Handles (MPI_Request, MPI_Message) are kept opaque as long long, so that
 * src/msg never sees an MPI type. Sizes are bytes, at most INT_MAX. */
#ifndef SIMPLE_NET_NET_MSG_H
#define SIMPLE_NET_NET_MSG_H

#include <stddef.h>

#include "run/job.h"

/* MPI_TAG_UB of the msg communicator (at least 32767 by the standard). */
int simple__net_msg_tag_ub(simple__node_t *n);

/* Blocking and nonblocking standard-mode sends of bytes to node `dest`. */
int simple__net_msg_send(simple__node_t *n, const void *buf, size_t bytes, int dest, int tag);
int simple__net_msg_isend(simple__node_t *n, const void *buf, size_t bytes, int dest, int tag,
                          long long *req);

/* A matched probe (MPI_Improbe) for any source and any tag: *found = 1 and
 * the message's node, tag, size and handle if one has arrived. The message
 * then belongs to the caller: nobody else can receive it, and it must be
 * received with simple__net_msg_mrecv or _imrecv. Cost: one MPI progress
 * poll (~0.2-1 us with shared memory or TCP). */
int simple__net_msg_improbe(simple__node_t *n, int *found, int *src, int *tag, size_t *bytes,
                            long long *msg);

/* Receives a matched message into buf (room for exactly its size). */
int simple__net_msg_mrecv(long long *msg, void *buf, size_t bytes);
int simple__net_msg_imrecv(long long *msg, void *buf, size_t bytes, long long *req);

/* A receive posted in MPI for one source node and one MPI tag (tag -1:
 * any tag), for a thread that owns every message this can match. */
int simple__net_msg_irecv(simple__node_t *n, void *buf, size_t bytes, int src, int tag,
                          long long *req);

/* A blocking receive from node src with MPI tag `tag` (-1: any), for a
 * node whose only thread is the caller; *mtag and *got: what arrived
 * (both NULL: MPI is asked for no status at all). */
int simple__net_msg_recv(simple__node_t *n, void *buf, size_t bytes, int src, int tag, int *mtag,
                         size_t *got);

/* Completes a request of isend/irecv/imrecv: test sets *done, wait blocks
 * (MPI_Wait, which yields the core when Open MPI runs with
 * mpi_yield_when_idle). tag and bytes (may be NULL) get the MPI tag and the
 * size received. A message longer than an irecv's buffer returns
 * SIMPLE_ERR_COUNT (the buffer holds its first bytes). */
int simple__net_msg_test(long long *req, int *done, int *tag, size_t *bytes);
int simple__net_msg_wait(long long *req, int *tag, size_t *bytes);

#endif
