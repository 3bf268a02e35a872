/* simple: collectives over every thread of the job (the papers' "Simple"
 * library, combining the SMP node library with the inter-node layer).
 *
 * Every thread of the job makes the same calls in the same order. Arguments
 * follow MPI's order with a count and a simple_type_t; roots are global
 * thread ranks (simple_pid); counts of gather/scatter/allgather/alltoall
 * are per thread (per destination thread for alltoall). SIMPLE_IN_PLACE
 * works wherever MPI accepts MPI_IN_PLACE.
 *
 * Every algorithm is two-level: threads of a node combine or exchange in
 * shared memory, reading each other's buffers in place; then the nodes
 * exchange, one message per node pair carrying the data of all the node's
 * threads, with several threads of a node driving different transfers at
 * once; then the result is spread in shared memory.
 *
 * On one node (P = 1) small data never leaves the threads' own shared
 * lines: up to 1 KiB of blocks per thread travel inside the threads'
 * slots (copied in before the call's one barrier, copied out after it),
 * and small reductions, scans and broadcasts (up to 112-1072 bytes by
 * call, simple/node.h) inside posted cache lines with no barrier at all.
 * Nobody then reads another thread's buffer, so nobody waits for the
 * reads to finish; the v forms make that choice from what every thread
 * sees alike (the counts a thread holds, or those the root copies into
 * its slot).
 *
 * Costs use P nodes, r threads per node, n bytes per thread, alpha + beta m
 * for an inter-node message of m bytes, b for a node barrier (~0.1-0.3 us)
 * and B for memory bandwidth.
 *
 * Results of reductions and scans combine contributions in global rank
 * order, so they are bitwise reproducible for a given layout and
 * non-commutative user ops get rank order.
 *
 * Errors: a thread whose arguments are refused returns its code, and its
 * node still takes part in every exchange among nodes, carrying an error
 * mark instead of data (the message that was due anyway, or a verdict
 * word in it), so that no node waits forever, nothing stays queued, and
 * the other threads return SIMPLE_ERR_PEER: on every node for the
 * reductions, allgather(v) and alltoall(v); on the nodes the offender's
 * data flows to (directly or through others) for bcast, scatter(v),
 * gather(v) and the scans (docs/api.md has the table). No extra message
 * on the success path.
 */
#ifndef SIMPLE_COLL_H
#define SIMPLE_COLL_H

#include "simple/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Waits until every thread of the job has called it.
 * One node barrier whose last thread to arrive takes the node into
 * MPI_Barrier before it releases the others (no thread waits twice, none
 * has to be woken to do the MPI step: on cores shared by threads, one or
 * two thread switches less per call).
 * Cost: b + barrier among P processes (~ceil(log2 P) alpha). */
SIMPLE_API int simple_barrier(simple_t *s);

/* Copies root's buf into every thread's buf.
 * The root thread's buffer goes in place to the other node masters, then
 * every thread copies from its master's buffer. Among nodes: on 2 nodes
 * (3-4 from 256 KiB) a binomial tree of point-to-point messages in 63 KiB
 * segments from the root's node, sent from the caller's buffer; otherwise
 * MPI_Bcast among the masters (binomial or pipelined), an 8-byte verdict
 * word beside the data.
 * Cost: 2b + bcast among P of n bytes (~log2 P (alpha + beta n); MPI's
 * large-message bcast ~2 beta n) + n/B. */
SIMPLE_API int simple_bcast(simple_t *s, void *buf, size_t count, simple_type_t type, int root);

/* recv at thread root gets the combination of every thread's send.
 * With a built-in op: the node phase as allreduce's, then a binomial tree
 * to the root's node, one way (nothing comes back: a node is done once
 * its data has left, as with MPI_Reduce); above 8 KiB each lane's slice
 * goes up in 128 KiB segments, each combined as it arrives (on 5 nodes
 * and more above 32 KiB, and with user ops, the allreduce's schedule, the
 * result kept at the root only; docs/api.md, "Which algorithm runs among
 * nodes").
 *   Cost up to 8 KiB: b + r n/B + ceil(log2 P) (alpha + beta n), P - 1
 *   messages; above, with the tree: 2b + 2 n/B + ceil(log2 P) (alpha +
 *   beta n): for 2 nodes one message of n bytes, one way, against the
 *   allreduce's 2 of n/2 each way. */
SIMPLE_API int simple_reduce(simple_t *s, const void *send, void *recv, size_t count,
                             simple_type_t type, simple_op_t op, int root);

/* Every thread's recv gets the combination of every thread's send.
 * Small (n <= 8 KiB): the node combines into its master in shared memory
 * (paper 001: flags in shared memory, no messages inside a node), masters
 * run recursive doubling among nodes (one message per step), the result
 * is read from the master's buffer. The node's master is the last thread
 * to arrive at the node's one barrier (as in simple_barrier).
 *   Cost: b + r n/B + ceil(log2 P) (alpha + beta n) [+ 2 (alpha + beta n)
 *   when P is not a power of two].
 * Large: every thread combines a slice of the node's inputs; the node's
 * array is cut into L lanes (L = fewest threads on any node; 1 when the
 * host runs more threads than it has cores) and lane l is
 * reduced among nodes by thread l of every node at once: recursive-halving
 * reduce-scatter then recursive-doubling allgather (Rabenseifner); on 2
 * nodes below 1 MiB (512 KiB with one thread a node) one exchange of the
 * piece instead (recursive doubling: alpha + beta n, where Rabenseifner's
 * two steps cost 2 alpha + beta n).
 *   Cost: 2b + 2 n/B + 2 log2 P alpha + 2 (P-1)/P beta n, the inter-node
 *   part shared by L threads driving transfers concurrently. */
SIMPLE_API int simple_allreduce(simple_t *s, const void *send, void *recv, size_t count,
                                simple_type_t type, simple_op_t op);

/* Inclusive scan over global ranks: thread i's recv combines threads 0..i.
 * Node-local scan in shared memory, an exclusive scan of the node totals
 * among nodes (recursive doubling; at its last step only the lower node
 * of each pair sends, as it needs no data from above), and a local fix-up
 * combining the node prefix with each thread's result.
 * Cost: 2b + 2 n/B + exscan among P (~log2 P (alpha + beta n); 2 nodes:
 * one message of n bytes, one way). */
SIMPLE_API int simple_scan(simple_t *s, const void *send, void *recv, size_t count,
                           simple_type_t type, simple_op_t op);
/* Exclusive scan: thread i > 0 gets threads 0..i-1; thread 0's recv is
 * left untouched (MPI leaves it undefined). Same algorithm as scan. */
SIMPLE_API int simple_exscan(simple_t *s, const void *send, void *recv, size_t count,
                             simple_type_t type, simple_op_t op);

/* Root's recv gets count elements from every thread, in rank order
 * (p * count elements). With SIMPLE_IN_PLACE as send at the root, the
 * root's own block is already in place in recv.
 * Every other node sends the root's node one message, its threads'
 * blocks together: up to 64 KiB straight from their send buffers (an MPI
 * datatype over them), above that copied together first; on the root's
 * node each thread copies its own block.
 * Cost: b + (P-1)(alpha) + (p - r) n beta + p n/B at the root. */
SIMPLE_API int simple_gather(simple_t *s, const void *send, void *recv, size_t count,
                             simple_type_t type, int root);
/* As gather with per-thread counts: thread i sends `count` elements,
 * which land at recv + displs[i] (elements); counts and displs (p entries)
 * are significant at the root only. One more barrier than gather, to
 * publish the root's counts to its node (none on one node when the blocks
 * fit the slots). */
SIMPLE_API int simple_gatherv(simple_t *s, const void *send, size_t count, void *recv,
                              const size_t *counts, const size_t *displs, simple_type_t type,
                              int root);

/* Thread i's recv gets block i (count elements) of root's send. With
 * SIMPLE_IN_PLACE as recv at the root, the root's block stays in send.
 * The reverse of gather (the message of another node lands in its
 * threads' recv directly); same cost. */
SIMPLE_API int simple_scatter(simple_t *s, const void *send, void *recv, size_t count,
                              simple_type_t type, int root);
/* As scatter with per-thread counts and displacements (significant at the
 * root); thread i receives `count` elements, which must equal counts[i].
 * One more barrier than scatter, to publish the root's counts (none on one
 * node when the blocks fit the root's slot). */
SIMPLE_API int simple_scatterv(simple_t *s, const void *send, const size_t *counts,
                               const size_t *displs, void *recv, size_t count, simple_type_t type,
                               int root);

/* Every thread's recv gets count elements from every thread, in rank
 * order. SIMPLE_IN_PLACE as send: each thread's block is already at
 * recv + pid * count.
 * Node blocks assembled in shared memory, node masters exchange them
 * (MPI_Allgatherv of one block per node), every thread copies the whole.
 * Cost: 2b + allgather among P of r n bytes + p n/B. Larger blocks (the
 * decision table, docs/api.md: on up to 4 nodes from 16 KiB per thread,
 * above 32 KiB on 2 nodes of two threads or more; from 1 MiB on more
 * nodes) are assembled in thread 0's recv and exchanged in place there,
 * point to point (the verdict in error marks, the signature in the tags):
 * thread 0 copies nothing out, and with one thread per node nothing is
 * copied at all; cost 4b + allgather among P of r n bytes + p n/B on the
 * other threads. */
SIMPLE_API int simple_allgather(simple_t *s, const void *send, void *recv, size_t count,
                                simple_type_t type);
/* As allgather with per-thread counts: thread i sends `count` elements,
 * landing at recv + displs[i] everywhere; counts and displs have p entries
 * on every thread. */
SIMPLE_API int simple_allgatherv(simple_t *s, const void *send, size_t count, void *recv,
                                 const size_t *counts, const size_t *displs, simple_type_t type);

/* Thread i sends block j (count elements) of its send to thread j, which
 * stores it as block i of its recv. SIMPLE_IN_PLACE as send: recv holds the
 * outgoing blocks and is overwritten.
 * Paper 000's multithreaded alltoall: one thread moves the node-local
 * blocks in shared memory while the others each exchange with a share of
 * the other nodes; the blocks of all threads of a node for one destination
 * node travel as one message (r_src r_dst n bytes); pairwise XOR schedule
 * when P is a power of two, a shifted schedule otherwise. Blocks of 1 MiB
 * and more (where some node has two threads or more) travel between nodes as one
 * message each instead, straight from
 * the sender's buffer into the receiver's (no packing: there a copy costs
 * more than a message's latency).
 * Cost: 2b + (P-1)/T (alpha + beta r^2 n) with T = min(P-1, max(1, L-1))
 * threads sending at once (L as for allreduce; where every node-pair
 * message is at most 63 KiB, each of them keeps up to 32 steps in flight:
 * T = min(P-1, 32 T) for the latencies) + local packing (r^2 n / B
 * per node pair; none for blocks of 1 MiB or more, which pay r^2 alpha
 * instead of alpha); in place, one more barrier (every outgoing block is
 * staged before any is overwritten). In-place is all or nothing: every
 * thread passes SIMPLE_IN_PLACE, or none does (SIMPLE_ERR_ARG). */
SIMPLE_API int simple_alltoall(simple_t *s, const void *send, void *recv, size_t count,
                               simple_type_t type);
/* As alltoall with per-pair counts and displacements (elements), p entries
 * each: scounts[j] elements at send + sdispls[j] go to thread j, rcounts[i]
 * elements from thread i land at recv + rdispls[i]. Same algorithm, plus
 * one barrier to publish the counts (3b), but always one message per node
 * pair, whatever the block sizes: per-block messages need both ends of a
 * transfer to agree on every block's size, which the regular form's one
 * count guarantees and per-pair counts do not (inconsistent counts, which
 * MPI also declares erroneous, then give wrong contents or a truncation
 * error, never a message that nobody receives and a hang). With
 * SIMPLE_IN_PLACE as send (every thread or none), recv holds the outgoing
 * blocks described by rcounts and rdispls, as MPI_Alltoallv. */
SIMPLE_API int simple_alltoallv(simple_t *s, const void *send, const size_t *scounts,
                                const size_t *sdispls, void *recv, const size_t *rcounts,
                                const size_t *rdispls, simple_type_t type);

#ifdef __cplusplus
}
#endif

#endif /* SIMPLE_COLL_H */
