/* simple: the SMP node library (paper 000, section 2.1): collectives among
 * the threads of one node, through shared memory. Every thread of the node
 * must make the same call, in the same order, with compatible arguments.
 *
 * Costs use r = threads on the node, n = bytes per thread, b = the cost of
 * one node barrier (a few cache-line transfers: ~0.1-0.3 us not
 * oversubscribed), c = one cache-line transfer between cores (~0.05-0.2
 * us), and B = memory bandwidth. Buffers are read where they
 * stand (threads read each other's buffers), never staged through copies.
 *
 * Argument checks: a thread whose arguments are invalid still takes part in
 * the call's first synchronization, so the whole node returns an error
 * instead of hanging: that thread gets the specific code, the others
 * SIMPLE_ERR_PEER, and no buffer is written.
 */
#ifndef SIMPLE_NODE_H
#define SIMPLE_NODE_H

#include "simple/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Waits until every thread of the node has called it.
 * Algorithm: a shared arrival counter and a generation word; waiters spin
 * briefly, then sleep on a futex, so an oversubscribed node still makes
 * progress. Cost: b (r atomic increments on one line, one release). */
SIMPLE_API int simple_node_barrier(simple_t *s);

/* Copies count elements from thread `root`'s buf into every other thread's
 * buf (the paper's "replicate").
 * Up to 256 bytes, the root's data travels in its posted line (every
 * thread writes one cache line, with its argument check, and reads the
 * others'; no barrier): cost ~2c + (r - 1) c reads, plus one transfer
 * per 64 bytes past the first 48 for each reader. Above: 2b + n/B per
 * thread, all threads copying at once; from 16 KiB the root copies a 1/r
 * share of every other buffer while each other thread copies the rest of
 * its own: 2b + (r - 1) n / (r B). */
SIMPLE_API int simple_node_bcast(simple_t *s, void *buf, size_t count, simple_type_t type,
                                 int root);

/* Hands thread `root`'s pointer *ptr to every thread of the node (the
 * paper's "broadcast" of a shared read-only buffer): on return *ptr is the
 * root's value everywhere. No data moves. Cost: b. */
SIMPLE_API int simple_node_share(simple_t *s, void **ptr, int root);

/* Reductions and scans over arrays: element i of the result combines
 * element i of every thread's send buffer, in thread order 0..r-1, so the
 * result is bitwise reproducible for a given number of threads (and
 * non-commutative user ops are applied in rank order).
 * send may be SIMPLE_IN_PLACE (or equal recv): recv holds the input.
 *
 * Algorithm: the array is cut into r slices of at least 1 KiB; thread j
 * combines slice j of all r inputs through a small cache-resident
 * accumulator and writes it where the result goes. Each slice is read and
 * written by one thread only, which makes the in-place forms safe.
 * Cost: 2b + (r n / r)/B reading + writes: allreduce and scans write r n
 * bytes in all, spread over r threads. Up to 1072 bytes per thread for a
 * reduce and an exscan, 256 for a scan and 112 for an allreduce, the
 * inputs travel in the threads' posted lines instead (each thread writes
 * its line, reads the others' and combines for itself, no barrier): cost
 * ~2c + (r - 1) c, plus one transfer per 64 bytes past the first 48 of
 * each line read, against b plus the slots' reads for a barrier-based
 * path (measured with 2 threads on the development VM: an 8-byte
 * allreduce 0.41-0.47 -> 0.36-0.40 us, 0.12-0.15 -> 0.10 us on a faster
 * placement of its two cores). Those line transfers set the limits: with
 * 2 threads an allreduce of 512 bytes took 0.97-1.00 us posted and
 * 0.44-0.54 sliced (docs/api.md gives the measurements). */

/* recv (significant at thread root only; may be NULL elsewhere) gets the
 * combination of all threads' send. */
SIMPLE_API int simple_node_reduce(simple_t *s, const void *send, void *recv, size_t count,
                                  simple_type_t type, simple_op_t op, int root);
/* Every thread's recv gets the combination of all threads' send. */
SIMPLE_API int simple_node_allreduce(simple_t *s, const void *send, void *recv, size_t count,
                                     simple_type_t type, simple_op_t op);
/* Inclusive scan: thread t's recv gets the combination of threads 0..t. */
SIMPLE_API int simple_node_scan(simple_t *s, const void *send, void *recv, size_t count,
                                simple_type_t type, simple_op_t op);
/* Exclusive scan: thread t>0's recv gets the combination of threads 0..t-1;
 * thread 0's recv is left untouched (as MPI_Exscan leaves it undefined). */
SIMPLE_API int simple_node_exscan(simple_t *s, const void *send, void *recv, size_t count,
                                  simple_type_t type, simple_op_t op);

/* Collective: every thread of the node gets the same block of `bytes` bytes
 * (64-byte aligned) in *ptr. bytes must be equal on all threads. *ptr is
 * NULL and the code non-zero on failure (on every thread). Cost: b + malloc. */
SIMPLE_API int simple_node_malloc(simple_t *s, size_t bytes, void **ptr);
/* Collective: releases a block from simple_node_malloc; every thread passes
 * the same pointer, and none may use the block after its own call.
 * Cost: b + free. */
SIMPLE_API int simple_node_free(simple_t *s, void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* SIMPLE_NODE_H */
