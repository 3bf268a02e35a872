/* simple: point-to-point messages between any two threads of the job.
 *
 * Any thread may send to any other thread (global ranks, simple_pid), on
 * its own node or another, with a tag; receives select by source and tag,
 * either of which may be a wildcard. Semantics follow MPI's standard mode:
 *
 *   - order: two messages from one thread to another with the same tag are
 *     received in the order they were sent (and a receive that matches
 *     both gets the first);
 *   - a blocking send returns when its buffer may be reused; a small
 *     message (<= 16 KiB) is copied at once, a larger one to a thread of
 *     the same node may wait until the receiver has taken it (as MPI's
 *     rendezvous), so two threads that both send large messages to each
 *     other before receiving deadlock, as in MPI; use simple_isend;
 *   - requests and buffer ids belong to the thread that created (or
 *     received) them: only that thread may pass them to a call.
 *
 * Buffer-id messages (paper 003): simple_buf_create makes a buffer that
 * belongs to the library, named by an id; data is packed into it or written
 * in place, and simple_buf_send hands the buffer over. simple_buf_recv
 * returns the id of a buffer that the receiver now owns. Inside a node the
 * payload is never copied: the receiver gets the sender's buffer.
 *
 * Costs, with alpha_n/beta_n the latency and inverse bandwidth of the
 * network (MPI), c a cache-line transfer between cores (~0.05-0.2 us) and B
 * the memory bandwidth:
 *   same node, blocked receiver, <= 220 B: ~2-3 c (payload inline in the
 *                                     receiver's mailbox lines)
 *   same node, receive posted first:  ~6 c + n/B (one copy, by the sender)
 *   same node, message first:         ~6 c + 2 n/B (copied in and out) for
 *                                     n <= 16 KiB, ~8 c + n/B above
 *   same node, buffer id:             ~3 c (blocked receiver) to ~6 c, no
 *                                     copy at any size
 *   between nodes, one source and tag: alpha_n + n beta_n + ~0.1 us: one
 *                                     MPI message, received in place by a
 *                                     receive posted in MPI
 *   between nodes, wildcards/buffers: the same + one MPI_Improbe (~0.3-1 us)
 *
 * Waiting: blocking calls spin briefly, then sleep (futex) and, when the
 * message may come from another node, poll MPI between short sleeps, so
 * more threads than cores never hang nor starve the sender.
 *
 * Errors (every call): SIMPLE_ERR_NOT_IN_JOB (s is NULL), SIMPLE_ERR_RANK
 * (a thread rank out of range), SIMPLE_ERR_ARG (tag out of 0..simple_tag_ub,
 * NULL request/flag/id pointer, unknown request or buffer id), SIMPLE_ERR_NULL
 * (NULL buffer with count > 0), SIMPLE_ERR_TYPE, SIMPLE_ERR_COUNT (size
 * overflows; a message larger than the receive buffer, whose first count
 * elements are then received; more than INT_MAX bytes to another node),
 * SIMPLE_ERR_NOMEM, SIMPLE_ERR_MPI, SIMPLE_ERR_FATAL. A call that fails
 * argument checks has no effect.
 */
#ifndef SIMPLE_MSG_H
#define SIMPLE_MSG_H

#include "simple/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Wildcards for the source and tag of receives and probes. */
#define SIMPLE_ANY_SOURCE (-1)
#define SIMPLE_ANY_TAG    (-1)

/* What a completed receive or a probe found. */
typedef struct {
  int source;   /* global rank of the sending thread */
  int tag;      /* the message's tag */
  size_t bytes; /* the message's size in bytes (also when larger than the buffer) */
} simple_status_t;

/* Pass for a status that is not wanted. */
#define SIMPLE_STATUS_IGNORE ((simple_status_t *)0)

/* A nonblocking operation in flight; SIMPLE_REQUEST_NULL when none. */
typedef uint64_t simple_request_t;
#define SIMPLE_REQUEST_NULL ((simple_request_t)0)

/* A message buffer owned by the library, named by an id; SIMPLE_BUF_NULL is
 * never a valid id. */
typedef uint64_t simple_buf_t;
#define SIMPLE_BUF_NULL ((simple_buf_t)0)

/* The largest tag of this job: tags are 0..simple_tag_ub(s). It depends on
 * MPI's tag range and the largest node (the MPI tag also names the source
 * and destination threads): 2^19-1 with Open MPI and up to 64 threads per
 * node, at least 2^(15 - 2 ceil(log2 THREADS_max)) - 1 with any MPI.
 * -1 if s is NULL. */
SIMPLE_API int simple_tag_ub(simple_t *s);

/* ------------------------------------------------------------------------
 * Typed messages. count elements of type from/to buf; dest and source are
 * global thread ranks (0..simple_nprocs-1), a thread may send to itself. */

/* Sends and returns when buf may be reused. Cost: see above. */
SIMPLE_API int simple_send(simple_t *s, const void *buf, size_t count, simple_type_t type, int dest,
                           int tag);

/* Receives the first message from source (or SIMPLE_ANY_SOURCE) with tag
 * (or SIMPLE_ANY_TAG) into buf, room for count elements; *status (may be
 * NULL) gets its source, tag and size. A larger message fills buf and
 * returns SIMPLE_ERR_TRUNCATE (the message is consumed). */
SIMPLE_API int simple_recv(simple_t *s, void *buf, size_t count, simple_type_t type, int source,
                           int tag, simple_status_t *status);

/* Nonblocking forms: start the operation, set *req; complete it with
 * simple_test or simple_wait. buf must stay untouched until then.
 * An intra-node isend of <= 16 KiB (or to a posted receive) is complete at
 * once; a larger one completes when the receiver takes it. */
SIMPLE_API int simple_isend(simple_t *s, const void *buf, size_t count, simple_type_t type,
                            int dest, int tag, simple_request_t *req);
SIMPLE_API int simple_irecv(simple_t *s, void *buf, size_t count, simple_type_t type, int source,
                            int tag, simple_request_t *req);

/* Waits for *req to complete, fills *status (receives; may be NULL) and sets
 * *req to SIMPLE_REQUEST_NULL. A null request returns 0 at once. Returns the
 * operation's own error (e.g. SIMPLE_ERR_TRUNCATE for a truncated receive). */
SIMPLE_API int simple_wait(simple_t *s, simple_request_t *req, simple_status_t *status);
/* Waits for count requests (statuses may be NULL, or has count entries);
 * returns the first error among them, completing all. */
SIMPLE_API int simple_waitall(simple_t *s, int count, simple_request_t *reqs,
                              simple_status_t *statuses);
/* *flag = 1 and as simple_wait if *req has completed, else *flag = 0.
 * Cost: one atomic load, plus an MPI poll when the request involves
 * another node. */
SIMPLE_API int simple_test(simple_t *s, simple_request_t *req, int *flag, simple_status_t *status);

/* Probes: the source, tag and size of the first message a receive with
 * these arguments would get, without receiving it. simple_probe waits for
 * one; simple_iprobe sets *flag (1: found, *status filled).
 * simple_iprobe that finds nothing costs one atomic load of the thread's
 * mailbox (~5-20 ns); on a job of several nodes, every 64th such call also
 * polls MPI (~0.3-1 us), so a remote message is seen after a few calls. */
SIMPLE_API int simple_probe(simple_t *s, int source, int tag, simple_status_t *status);
SIMPLE_API int simple_iprobe(simple_t *s, int source, int tag, int *flag, simple_status_t *status);

/* ------------------------------------------------------------------------
 * Buffer-id messages. A buffer has a size (bytes of payload) and a read
 * cursor (for unpack); capacity grows as needed. */

/* Creates an empty buffer with room for `capacity` bytes. Cost: one malloc. */
SIMPLE_API int simple_buf_create(simple_t *s, size_t capacity, simple_buf_t *id);
/* Frees a buffer the caller owns. */
SIMPLE_API int simple_buf_free(simple_t *s, simple_buf_t id);
/* Appends count elements of type from data. Cost: n/B (+ a realloc when
 * the capacity is exceeded). */
SIMPLE_API int simple_buf_pack(simple_t *s, simple_buf_t id, const void *data, size_t count,
                               simple_type_t type);
/* Appends `bytes` bytes, left for the caller to write, and sets *ptr to
 * them (valid until the next call on the buffer). No copy. */
SIMPLE_API int simple_buf_extend(simple_t *s, simple_buf_t id, size_t bytes, void **ptr);
/* Copies the next count elements from the read cursor into data and
 * advances it; SIMPLE_ERR_COUNT (nothing read) if fewer remain. */
SIMPLE_API int simple_buf_unpack(simple_t *s, simple_buf_t id, void *data, size_t count,
                                 simple_type_t type);
/* The payload in place: *ptr (may be NULL when empty) and *bytes; either
 * pointer argument may be NULL. No copy. */
SIMPLE_API int simple_buf_data(simple_t *s, simple_buf_t id, void **ptr, size_t *bytes);

/* Sends the buffer's payload to dest with tag; the buffer is given up (the
 * id is invalid afterwards, also when the call fails after its argument
 * checks). Same node: the buffer itself is handed over, no copy, and the
 * call never waits for the receiver. Another node: one MPI message
 * (blocking standard send), then the buffer is freed. */
SIMPLE_API int simple_buf_send(simple_t *s, simple_buf_t id, int dest, int tag);

/* Receives the first message from source with tag (wildcards allowed) as a
 * new buffer that the caller owns: *id, read cursor at 0. A buffer sent by
 * a thread of the same node is that very buffer; a typed message is copied
 * once into a new buffer; one from another node is received from MPI into
 * a new buffer. */
SIMPLE_API int simple_buf_recv(simple_t *s, int source, int tag, simple_buf_t *id,
                               simple_status_t *status);

#ifdef __cplusplus
}
#endif

#endif /* SIMPLE_MSG_H */
