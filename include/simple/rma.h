/* simple: one-sided communication in BSP supersteps (paper 004, and the
 * BSPlib standard of Hill et al. that it maps to): registration of memory
 * areas, put and get (buffered and unbuffered), the superstep barrier
 * simple_rma_sync, and bulk-synchronous message passing (BSMP).
 * include/simple/bsplib.h offers the same as the BSPlib API.
 *
 * Every thread is one BSP processor, named by its global rank (simple_pid).
 * A superstep ends when every thread of the job calls simple_rma_sync; the
 * communication a thread asked for during the superstep is done by the time
 * sync returns:
 *   - puts: the source is copied at the call into a per-thread queue; the
 *     destination is written during the next sync;
 *   - gets: read the remote value as it stands at the end of the
 *     superstep's computation: every get is served before any put of the
 *     superstep is applied; the local destination is written during sync,
 *     after the puts aimed at the caller (a get's result wins over a put
 *     to the same local place; two gets of one superstep into the same
 *     bytes land in no promised order);
 *   - hpput / hpget: unbuffered; inside a node they are one memcpy at the
 *     call, between nodes they move during the next sync. The caller must
 *     keep the source unchanged and must not rely on the destination until
 *     the sync ends;
 *   - several puts to one place in one superstep: applied in order of the
 *     source's global rank, and in program order for one source, so the
 *     highest-ranked processor's last put wins.
 *
 * Registration (the paper's labelled windows): every thread pushes one
 * memory area per registration, in the same order on every thread; a
 * registration takes effect at the next sync and is named, in every later
 * call, by the address the calling thread registered. Several may be live
 * at once; when one address is registered twice, the latest registration
 * is used. Pops follow the same rules and also take effect at the next
 * sync (the area stays usable until then). The calls of one superstep take
 * effect in call order: a pop of an address pushed earlier in the same
 * superstep undoes that push (the pair leaves the registrations as they
 * were), a push after a pop registers anew.
 *
 * Backends. Inside a node a put is one memcpy from the queue into the
 * destination (done by the thread that owns the destination, so puts to
 * one thread never race), and a get one memcpy into the queue and one out.
 * Between nodes the traffic of a superstep is combined into one packet per
 * node pair (all its threads' puts, get requests and messages), and the
 * threads of a node move the packets at once, as one exchange of the
 * library's node-pair engine: D = min(P - 1, L) threads drive, L the
 * engine's lanes (the fewest threads of any node; 1 when some host runs
 * more threads than it has cores), each the node pairs of its lane. Packets move
 * either with MPI one-sided windows (MPI_Put into a staging window under a
 * lock_all epoch, MPI_Win_flush, one MPI_Barrier) or with two-sided
 * messages (MPI_Isend/MPI_Irecv); both give identical results. The backend
 * is chosen at run time: SIMPLE_RMA=onesided|twosided (default twosided),
 * or simple_rma_set_backend.
 *
 * Costs, per sync, with P nodes, r threads per node, h the largest number
 * of bytes a node sends or receives, b a node barrier (~0.1-0.3 us), B the
 * memory bandwidth, alpha + beta m an inter-node message:
 *   empty:     2b (+ an alltoall of 96 bytes per node pair among P nodes);
 *   one node:  3b (4b with gets) + (bytes put to the thread)/B;
 *   P nodes:   3-4b + alltoall of counts among P + (P-1)/D packets per
 *              driving thread ~ (P-1)/D alpha + beta h + bytes/B to pack
 *              and unpack (D = min(P - 1, L), as above),
 *              with gets one more round (alpha + beta h_get, and one more
 *              MPI_Barrier for one-sided), one-sided one MPI_Barrier.
 * Registration changes add an allgather of (address, size) among nodes and
 * a barrier.
 *
 * Errors: a put, get or send with a bad argument does nothing and returns
 * an error code; simple_rma_error names the call, the processors and the
 * area. Collective calls that disagree among threads (different numbers of
 * pushes or pops, different tag sizes) make the next sync return
 * SIMPLE_ERR_ARG on every thread, with the pending changes discarded.
 */
#ifndef SIMPLE_RMA_H
#define SIMPLE_RMA_H

#include <stddef.h>

#include "simple/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Backends for the traffic between nodes. */
enum { SIMPLE_RMA_ONESIDED = 1, SIMPLE_RMA_TWOSIDED = 2 };

/* The backend the next sync will use (SIMPLE_RMA_ONESIDED or
 * SIMPLE_RMA_TWOSIDED). */
SIMPLE_API int simple_rma_backend(simple_t *s);

/* Collective over every thread of the job, same value everywhere: selects
 * the backend for the syncs from now on. SIMPLE_ERR_ARG for another value.
 * Cost: 2b. */
SIMPLE_API int simple_rma_set_backend(simple_t *s, int backend);

/* Collective over the processors taking part: from the next sync on, only
 * processors 0..nprocs-1 take part in the supersteps (BSPlib's
 * bsp_begin(P) with P smaller than the job). The others make no call but
 * simple_rma_sync, once per superstep of those taking part, and find the
 * new count in simple_rma_procs after the sync; a call of theirs fails with
 * SIMPLE_ERR_RANK, and so do transfers naming them. Registrations are kept
 * when the count shrinks; when it grows, every registration ends (the
 * processors coming back know none of them). SIMPLE_ERR_RANK if nprocs is
 * outside 1..simple_nprocs. Cost: O(1) now; the next sync checks agreement
 * (part of its count exchange) and costs one more node barrier. */
SIMPLE_API int simple_rma_set_procs(simple_t *s, int nprocs);

/* The number of processors taking part in the supersteps (simple_nprocs
 * unless simple_rma_set_procs said otherwise); 0 when s is not the calling
 * thread's handle in a running job. Cost: O(1). */
SIMPLE_API int simple_rma_procs(simple_t *s);

/* Collective: registers [addr, addr + size) of the calling thread,
 * effective from the next sync. addr may be NULL when size is 0.
 * Cost: O(1) now; at the sync an allgather of 16 bytes per thread. */
SIMPLE_API int simple_rma_push_reg(simple_t *s, const void *addr, size_t size);

/* Collective: removes the latest live registration of addr at the next
 * sync. SIMPLE_ERR_ARG if addr is not registered (or already popped).
 * Cost: O(registrations). */
SIMPLE_API int simple_rma_pop_reg(simple_t *s, const void *addr);

/* Copies nbytes from src into processor pid's copy of the area the caller
 * registered at dst, at byte offset `offset`, during the next sync. src is
 * read now. Errors: SIMPLE_ERR_RANK (pid), SIMPLE_ERR_NULL (src NULL with
 * nbytes > 0), SIMPLE_ERR_ARG (dst not registered, or offset + nbytes
 * beyond the area's size on pid), SIMPLE_ERR_NOMEM.
 * Cost: nbytes/B now, nbytes/B (+ beta nbytes between nodes) at sync. */
SIMPLE_API int simple_rma_put(simple_t *s, int pid, const void *src, void *dst, size_t offset,
                              size_t nbytes);
/* Unbuffered put: inside a node one memcpy now; between nodes as a put.
 * Same errors. */
SIMPLE_API int simple_rma_hpput(simple_t *s, int pid, const void *src, void *dst, size_t offset,
                                size_t nbytes);

/* Copies nbytes at byte offset `offset` of processor pid's copy of the
 * area the caller registered at src into the caller's dst, as they stand
 * at the end of this superstep's computation; dst is written during the
 * next sync. Errors as simple_rma_put (SIMPLE_ERR_NULL: dst NULL). */
SIMPLE_API int simple_rma_get(simple_t *s, int pid, const void *src, size_t offset, void *dst,
                              size_t nbytes);
/* Unbuffered get: inside a node one memcpy now; between nodes as a get. */
SIMPLE_API int simple_rma_hpget(simple_t *s, int pid, const void *src, size_t offset, void *dst,
                                size_t nbytes);

/* Ends the superstep on every thread of the job (collective): moves every
 * put, get and message, applies pending registrations, pops and tag size.
 * Errors: SIMPLE_ERR_ARG (collective calls disagreed: see
 * simple_rma_error), SIMPLE_ERR_PEER, SIMPLE_ERR_NOMEM, SIMPLE_ERR_MPI,
 * SIMPLE_ERR_FATAL.
 * Cost (P nodes, r threads per node, b a node barrier ~0.1-0.3 us, B memory
 * bandwidth, alpha + beta m an inter-node message of m bytes, h the most
 * bytes a node sends or receives):
 *   intra-node (P = 1): 2b when nothing moves; 3b + the bytes put to the
 *     thread / B; gets one node barrier more and 2 copies of their bytes;
 *   inter-node: + one MPI_Alltoall of 96 bytes per node pair among P nodes
 *     (~(P-1) alpha, even when nothing moves), then D = min(P - 1, L)
 *     threads (L the exchange engine's lanes: the fewest threads of any
 *     node, 1 when threads share cores) drive (P-1)/D node pairs each, all
 *     posted at once: ~(P-1)/D alpha + beta h, packing and unpacking
 *     2h/B; the one-sided backend adds one MPI_Barrier (~log2 P alpha)
 *     when any packet moves; gets add a round of replies (alpha + beta
 *     h_get, one-sided: and one more MPI_Barrier);
 *   registration changes: + an allgather of 16 bytes per processor among
 *     nodes and a node barrier. */
SIMPLE_API int simple_rma_sync(simple_t *s);

/* The calling thread's last one-sided error, naming the call, the
 * processors and the area; "" if none. Valid until its next rma call. */
SIMPLE_API const char *simple_rma_error(simple_t *s);

/* ------------------------------------------------------------------------
 * BSMP: messages of a tag (tagsize bytes, 0 at start) and a payload,
 * delivered to the destination at the next sync, readable there during the
 * following superstep. */

/* Collective: the tag size from the next sync on; *tagsize is set to the
 * size in force now. Cost: O(1); the next sync checks agreement. */
SIMPLE_API int simple_bsmp_set_tagsize(simple_t *s, size_t *tagsize);

/* Sends tag (tagsize bytes) and nbytes of payload to pid, both copied now.
 * Errors: SIMPLE_ERR_RANK, SIMPLE_ERR_NULL, SIMPLE_ERR_NOMEM.
 * Cost: (tagsize + nbytes)/B now, the same plus beta between nodes at sync,
 * one more copy into the receiver's queue. */
SIMPLE_API int simple_bsmp_send(simple_t *s, int pid, const void *tag, const void *payload,
                                size_t nbytes);

/* Messages not yet moved, and the sum of their payload sizes. */
SIMPLE_API int simple_bsmp_qsize(simple_t *s, size_t *nmessages, size_t *nbytes);

/* The next message's payload size in *status and its tag copied into tag
 * (tagsize bytes as sent); *status = -1 and tag untouched when the queue
 * is empty. */
SIMPLE_API int simple_bsmp_get_tag(simple_t *s, ptrdiff_t *status, void *tag);

/* Copies at most `room` bytes of the next message's payload into payload
 * and removes the message. SIMPLE_ERR_ARG if the queue is empty. */
SIMPLE_API int simple_bsmp_move(simple_t *s, void *payload, size_t room);

/* Removes the next message without copying: *tag and *payload point into
 * the library's buffer (valid until the next sync), *status is the payload
 * size; *status = -1 when the queue is empty. */
SIMPLE_API int simple_bsmp_hpmove(simple_t *s, const void **tag, const void **payload,
                                  ptrdiff_t *status);

#ifdef __cplusplus
}
#endif

#endif /* SIMPLE_RMA_H */
