/* The inter-node communication layer (paper 000's ICL): messages and
 * collectives between nodes, over MPI. With src/run (MPI start and end),
 * the only code that calls MPI. A transport that names no client and
 * keeps no state of its own: every call names the communicator handle
 * (net_comm.h) it runs on, which the calling layer took for itself when
 * the job started and keeps in its own per-node state. Every call that
 * may block on another node is marked for the watchdog
 * (SIMPLE__NET_WATCHED, net_state.h).
 *
 * This header holds the transfers that carry the job-wide verdict (error
 * marks) and split messages of any size: what src/xchg drives on its
 * lanes (one communicator per thread that may drive transfers at once,
 * so concurrent transfers never match each other's messages and MPI's
 * per-communicator ordering keeps successive exchanges apart without
 * sequence numbers in the tags). net_comm.h holds plain point-to-point
 * calls and MPI's collectives on a handle; net_win.h, windows.
 *
 * Sizes are in bytes; messages larger than MPI's int count are split. */
#ifndef SIMPLE_NET_NET_H
#define SIMPLE_NET_NET_H

#include <stddef.h>

#include "net/net_comm.h"

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

/* A receive's tag may be -1: any tag (simple__net_wait_tag then says
 * which came), for a client that carries something in the tag itself. */
int simple__net_isend(simple__comm_t *c, const void *buf, size_t bytes, int dest, int tag,
                      simple__net_req_t *req);
int simple__net_irecv(simple__comm_t *c, void *buf, size_t bytes, int src, int tag,
                      simple__net_req_t *req);
/* A transfer from or into several buffers: bytes [off, off + bytes) of
 * the concatenation of pieces[0..np) (in order), the other end's one
 * contiguous message, so that a node's message leaves from or lands in
 * each thread's own buffer without a copy into or out of a staging area.
 * A piece is one stretch of `bytes` at buf, or (lines > 1) `lines` lines
 * of `bytes` each, `stride` bytes apart (rows of a block in a wider
 * array). One MPI transfer with a datatype over the pieces it covers
 * (made, committed and freed per call: an indexed type of plain
 * stretches, 110 ns for two and 1.6 us for 64 with Open MPI 4.1 on the
 * development VM, or a struct whose lines are vectors, 0.4 us for one
 * piece of lines and 1.2 us for four, whatever their lines), bytes at
 * most SIMPLE__NET_PART_BYTES. Marks and tags as simple__net_isend and
 * simple__net_irecv: a mark writes nothing. A shorter message fills the
 * pieces in order; a longer one is an MPI error (truncation), nothing
 * written past the pieces. */
typedef struct {
  void *buf;
  size_t bytes;  /* of the stretch, or of each line */
  size_t lines;  /* 0 or 1: one stretch */
  size_t stride; /* bytes from a line's start to the next one's */
} simple__net_piece_t;

/* The bytes a piece holds. */
static inline size_t simple__net_piece_bytes(const simple__net_piece_t *p) {
  return p->lines > 1 ? p->bytes * p->lines : p->bytes;
}
int simple__net_isend_pieces(simple__comm_t *c, const simple__net_piece_t *pieces, int np,
                             size_t off, size_t bytes, int dest, int tag, simple__net_req_t *req);
int simple__net_irecv_pieces(simple__comm_t *c, const simple__net_piece_t *pieces, int np,
                             size_t off, size_t bytes, int src, int tag, simple__net_req_t *req);
/* Waits for every request, and releases it (a later wait or test of it
 * returns at once); 0, SIMPLE_ERR_MPI, or SIMPLE__NET_MARK when a receive
 * got an error mark (the other requests still completed). */
int simple__net_waitall(simple__net_req_t *reqs, int count);
/* simple__net_waitall of one receive's request, with the tag its message
 * came with in *tag (a mark's too; -1 for a request that
 * simple__net_testall completed): read from the status the wait fills
 * anyway, at no cost. */
int simple__net_wait_tag(simple__net_req_t *req, int *tag);
/* Makes progress on count transfers without blocking: *done is 1 once all
 * of them have completed (completed parts are released, so a later
 * simple__net_waitall on the same requests returns at once). 0 or
 * SIMPLE_ERR_MPI. Lets a thread that drives transfers do other work
 * between calls while MPI (which progresses only inside its calls) keeps
 * the transfers moving. Cost: one MPI_Test per part. */
int simple__net_testall(simple__net_req_t *reqs, int count, int *done);

/* Takes back posted receives whose messages will never be sent (the
 * exchange they were posted for was called off everywhere), and waits for
 * each: MPI_Cancel, then MPI_Wait. A receive that has matched a message
 * completes as usual. 0 or SIMPLE_ERR_MPI. The error path only. */
int simple__net_cancel(simple__net_req_t *reqs, int count);

/* An error mark to dest (nonblocking: complete with simple__net_waitall;
 * it never waits for a receive, being empty), and the taking of one
 * message from src whatever its length (a mark or data, received into a
 * temporary block and dropped: the error path only). */
int simple__net_mark(simple__comm_t *c, int dest, int tag, simple__net_req_t *req);
/* tag -1: whatever tag comes. *was_mark (when not NULL): 1 when the
 * message taken was empty (a mark); *got (when not NULL): its tag. */
int simple__net_drain(simple__comm_t *c, int src, int tag, int *was_mark, int *got);

#endif
