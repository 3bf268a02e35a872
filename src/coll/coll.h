/* Internal: pieces shared by the hybrid collectives of src/coll. */
#ifndef SIMPLE_COLL_COLL_H
#define SIMPLE_COLL_COLL_H

#include <stddef.h>
#include <string.h>

#include "base/size.h"
#include "base/sync.h"
#include "coll/choose.h"
#include "net/net_comm.h"
#include "node/node_sync.h"
#include "node/ops.h"
#include "run/job.h"
#include "xchg/xchg.h"

/* Allreduce of count elements among the nodes, one thread per node on
 * `lane`, combining in node order (so the result is identical on every node
 * and non-commutative ops are applied in rank order). buf holds this node's
 * contribution and receives the result; tmp has room for count elements.
 *
 * rd set, recursive doubling: ceil(log2 P) steps of one exchange of the whole
 * vector, plus a fold step in and out when P is not a power of two:
 *   cost (log2 P + 2) (alpha + beta n). Best for small vectors.
 * rd clear, Rabenseifner: recursive-halving reduce-scatter, recursive-doubling
 * allgather, with the same fold: cost 2 log2 P alpha + 2 beta n + 2 beta n
 * for the fold. Best for large vectors.
 *
 * The verdict: `bad` says this node found an error in the call (its
 * buffers are then not read); it runs the schedule all the same, sending
 * error marks (src/xchg: simple__xchg_sendrecv), and every node that
 * receives one passes it on, so that every node returns SIMPLE_ERR_PEER,
 * the result being made of every node's data. Returns 0, SIMPLE_ERR_PEER
 * or SIMPLE_ERR_MPI; on SIMPLE_ERR_PEER buf may hold partial results.
 *
 * The signature between nodes: sig (the call's, s->sig; 0 in error mode)
 * rides in the MPI tag of every message of the schedule (src/xchg:
 * simple__xchg_sendrecv), and a node that receives another signature than
 * its own fails the call with SIMPLE_ERR_ARG, sending marks from then on,
 * so that the others return SIMPLE_ERR_PEER. Nothing on the wire, no
 * room needed after the data: buf and tmp may be the caller's buffers.
 *
 * in: the node's contribution where the caller has it, when not in buf
 * (NULL: buf holds it); read, never written. With P a power of two the
 * first step reads it there instead of a copy into buf first (a memory
 * pass of n saved on the step's critical path), the result order unchanged. */
int simple__coll_net_allreduce(simple__node_t *n, int lane, const void *in, void *buf, void *tmp,
                               size_t count, simple_type_t type, simple_op_t op, int rd, int bad,
                               unsigned sig);

/* Reduce of count elements to node root_node, one thread per node on
 * `lane`, for commutative ops only (the built-in ones: a subtree's
 * combination reaches its parent whatever the node order). Binomial tree
 * on ranks relative to the root: at step 2^j a node with bit j set sends
 * its subtree's combination up and stops; the vector travels in 63 KiB
 * segments (SIMPLE__XCHG_SEG_BYTES; whole from twice SIMPLE_SEGMENT_WHOLE,
 * one way), up to 8 in flight, each combined as it arrives while the
 * next ones are on the wire (as MPI's pipelined reduce). Nothing comes back
 * down: a node is done once its data has left. buf receives the
 * subtree's combination (the result on the root's node; elsewhere it is
 * left partial); this node's contribution is at in, or in buf already when
 * in is NULL. With in apart, the first child's data lands straight in buf
 * and in is combined into it there (no copy of in into buf first, as MPI's
 * linear reduce receives into the result), and a leaf sends from in. tmp
 * has room for count elements (unused on a leaf, and on a node of one
 * child whose input is apart).
 * Cost: ceil(log2 P) (alpha + beta n), P - 1 messages (for 2 nodes one
 * message of n bytes, pipelined with the combining: beta n + one
 * segment's op). `bad` as for the allreduces, but a mark travels up only:
 * SIMPLE_ERR_PEER reaches the nodes on the way from a failed node to the
 * root's node (the root's included), and the others return 0 (their data
 * reached the root, which refuses the call). sig likewise, in the tag of
 * every segment: SIMPLE_ERR_ARG on a node that received another
 * signature, SIMPLE_ERR_PEER above it. */
int simple__coll_net_reduce_tree(simple__node_t *n, int lane, const void *in, void *buf, void *tmp,
                                 size_t count, simple_type_t type, simple_op_t op, int root_node,
                                 int bad, unsigned sig);

/* Broadcast of `bytes` at buf from node root_node, one thread per node on
 * `lane`: the binomial tree of the reduce above, run downwards. A node
 * receives the whole message from its parent (its rank relative to the
 * root with the lowest set bit cleared), then sends it to each child,
 * the farthest first; a message above SIMPLE__XCHG_SEG_BYTES goes in
 * segments, up to 8 in flight (simple__xchg_sendrecv). Point to point
 * from the caller's buffer, where MPI_Bcast with the verdict word copies
 * word and data into one block up to 48 KiB and above needs a two-block
 * datatype, which Open MPI packs (2 x 1 on the virtual cluster, in one
 * job: 32 KiB 15.4-16.0 us through the datatype against 14.0-14.4 sent
 * as is; through the copy, MPI_Bcast of the data alone over simple's
 * 0.88-0.90 against 0.98-0.99 for the tree).
 * Cost: ceil(log2 P) (alpha + beta n) on the deepest path, P - 1
 * messages of n; no pipelining from one level to the next, so above one
 * segment on many nodes MPI's pipelined bcast moves less per level.
 * `bad` as for the allreduces, but marks travel down only: SIMPLE_ERR_PEER
 * on every node below a failed one (the root's failure reaches every
 * node); the others succeed. sig likewise, in the tag of every segment:
 * SIMPLE_ERR_ARG on a node that received another signature, which sends
 * marks on, SIMPLE_ERR_PEER below it. buf is written where data lands: on
 * the nodes that succeed, and on one whose signature differs (the root's
 * data); never on a failed node or below it. */
int simple__coll_net_bcast_tree(simple__node_t *n, int lane, void *buf, size_t bytes, int root_node,
                                int bad, unsigned sig);

/* Exclusive scan of count elements among the nodes, by one thread per node
 * on `lane`, combining in node order. part holds this node's contribution
 * (destroyed); on return res holds the combination of nodes 0..node-1
 * (untouched on node 0). tmp and spare are work space; all four hold count
 * elements and do not overlap.
 * Recursive doubling (works for any P): at step 2^j, node i exchanges its
 * partial (the combination over its aligned block of 2^j nodes) with node
 * i ^ 2^j; a partner from below is combined on the left of both partial and
 * result. ceil(log2 P) steps of one message each way, except at the last
 * step, where the lower node needs no partial from above and nothing goes
 * down: cost ceil(log2 P) (alpha + beta n), for 2 nodes one message of n
 * bytes. `bad` and the verdict as for the allreduces, on the nodes an
 * error reaches: every node above a failed one (its prefix depends on
 * it) and those below whose earlier steps meet its marks; the others
 * return 0 (their prefixes do not depend on it). res is untouched on
 * SIMPLE_ERR_PEER. sig as for the allreduces, on every message. */
int simple__coll_net_exscan(simple__node_t *n, int lane, void *part, void *res, void *tmp,
                            void *spare, size_t count, simple_type_t type, simple_op_t op, int bad,
                            unsigned sig);

/* Allgather among nodes in place, by one thread per node on `lane`: buf
 * holds the job's result in rank order, block bytes per thread, node k's
 * threads_of[k] blocks at first_pid[k] blocks (this node's filled in by
 * the caller); every node's end up in every node's buf. P a power of two:
 * recursive doubling, log2 P steps, the window swapped doubling each time;
 * otherwise a ring, P - 1 steps, each passing one node's blocks on.
 * Cost: log2 P alpha (ring: (P - 1) alpha) + beta (P - 1)/P of the result,
 * in segments (src/xchg). block > 0 (a zero-length message cannot carry a
 * mark). `bad` and sig as for the allreduces: the schedules pair every
 * node with every other, directly or through the ring, so a mark or a
 * signature that differs reaches every node; buf is partial then. */
int simple__coll_net_allgather(simple__node_t *n, int lane, void *buf, size_t block, int bad,
                               unsigned sig);

/* Checked mode (SIMPLE_CHECK=1, src/coll/check.c): every thread of the job
 * compares the collective it called and its arguments (count -1, type,
 * op, root -1 where they do not apply) with the others'. Returns 0, or
 * SIMPLE_ERR_ARG on a thread whose call differs (SIMPLE_ERR_PEER on the
 * others) after printing the mismatch with its call sites. */
int simple__coll_check(simple_t *s, const simple__call_t *call);
/* The signature of a call for the free check inside the node (and,
 * between nodes, in the verdict words of bcast and allgather and, mixed
 * by simple__xchg_sig_tag, in the MPI tags of every other collective's
 * messages): the call's identity (the literal's length and three of its
 * letters, which tell every collective apart, fold at compile time and
 * are the same in every process) xor its count, type, op and root, each
 * in a form that keeps it apart. Two calls that differ in one of them
 * always differ (counts below 2^32; every valid type and op; every
 * root); two that differ in several pass for the same only where the
 * differences cancel bit for bit. Never 0, the mark of a call that sets
 * none. About ten integer operations, most of them independent of each
 * other; a hash that mixed every bit would take dependent multiplies,
 * about 23 instructions, more than the rest of the check on an 8-byte
 * collective inside a node (callgrind, 1 x 2, the calling function's own
 * instructions a call: bcast 40 without the check, 69 with the hash, 60
 * with this; reduce 49, 81, 72). */
static inline unsigned simple__coll_id(const char *call, size_t size) {
  return (unsigned)size | (unsigned)(unsigned char)call[0] << 8 |
         (unsigned)(unsigned char)call[3] << 16 | (unsigned)(unsigned char)call[size - 2] << 24;
}
#define SIMPLE__COLL_ID(call) simple__coll_id((call), sizeof(call))
static inline unsigned simple__coll_sig(unsigned id, long long count, int type, int op, int root) {
  unsigned long long c = (unsigned long long)count;
  unsigned h = id ^ (unsigned)c ^ (unsigned)(c >> 32) * 0x9E3779B1u ^ (unsigned)type << 27 ^
               (unsigned)op << 22 ^ (unsigned)root * 0x85EBCA77u;
  return h ? h : 1;
}
/* The signature of a recorded call (a collective's, not barrier's). */
static inline unsigned simple__coll_call_sig(const simple__call_t *c) {
  return simple__coll_sig(simple__coll_id(c->name, strlen(c->name) + 1), c->count, c->type, c->op,
                          c->root);
}

/* After a publish found a mismatch among the node's threads
 * (s->mismatch): the thread's verdict (simple__node_mismatch); on a job
 * of several nodes, first every thread of the node runs the reference
 * thread's call again with no buffers, which sends error marks through
 * every inter-node step that the other nodes wait on. One node exchange
 * (the reference call's arguments) and the call's error path: failure
 * path only. */
int simple__coll_mismatch(simple_t *s);
/* A collective's return: rc, or the verdict when its publish found a
 * mismatch. One compare on the success path. */
static inline int simple__coll_verdict(simple_t *s, int rc) {
  return __builtin_expect(rc == SIMPLE_ERR_FATAL, 0) && s->mismatch ? simple__coll_mismatch(s) : rc;
}

/* A collective's plan among nodes, made by thread 0 and handed to the
 * node's threads through its slot's ptr: the message room (src/xchg,
 * written only after the publish) and a table of `words` size_t in the
 * node scratch (written before it, hence by call parity). 0,
 * SIMPLE_ERR_COUNT or SIMPLE_ERR_NOMEM (*out NULL then). Cost: two
 * compares when both fit. */
typedef struct {
  unsigned char *room;
  size_t tab[];
} simple__coll_plan_t;
static inline int simple__coll_plan(simple_t *s, size_t room_bytes, size_t words,
                                    simple__coll_plan_t **out) {
  size_t bytes;
  *out = NULL;
  if (simple__size_mul(words, sizeof(size_t), &bytes) ||
      simple__size_add(&bytes, sizeof(simple__coll_plan_t)))
    return SIMPLE_ERR_COUNT;
  unsigned char *room = simple__xchg_room(s, room_bytes);
  simple__coll_plan_t *p = simple__node_scratch(s, bytes);
  if (!room || !p) return SIMPLE_ERR_NOMEM;
  p->room = room;
  *out = p;
  return 0;
}

/* Whether the non-empty blocks of ranks [first, last) in a v layout
 * (counts, displs) follow each other in rank order without gaps; *base:
 * where the first one starts, *total: their elements (gather.c). */
int simple__coll_contiguous(const size_t *counts, const size_t *displs, int first, int last,
                            size_t *base, size_t *total);

/* Between nodes, where a verdict word from every node reaches every node
 * (allgather): word k (at base + off[k], the signature above bit 0) holds
 * node k's signature. Returns SIMPLE_ERR_ARG if node `me`'s differs from
 * the one most nodes sent (the lowest node's among equals), else
 * SIMPLE_ERR_PEER. For when they differ: O(P^2) compares. */
int simple__coll_node_sigs(const unsigned char *base, const size_t *off, int P, int me);

/* simple__sync_rc, for the step after a node master compared its node's
 * signature with other nodes' (bcast, allgather): a master's
 * SIMPLE_ERR_ARG (its node called differently) is every thread's code,
 * since every thread of the node made that call; other codes as
 * simple__sync_rc. The same one barrier. */
static inline int simple__coll_sync_rc(simple_t *s, int rc) {
  unsigned f = simple__barrier_wait(&s->node->barrier, rc == SIMPLE_ERR_ARG ? 3u : rc ? 1u : 0u);
  if (f & SIMPLE__BARRIER_FATAL) return SIMPLE_ERR_FATAL;
  return rc ? rc : (f & 2u) ? SIMPLE_ERR_ARG : f ? SIMPLE_ERR_PEER : 0;
}

/* Lane `lane`'s piece [*l0, *l1) of a node's vector of count elements
 * cut for `lanes` lanes (the large reductions and scans): equal pieces on
 * cache-line bounds, since different threads write them. */
static inline void simple__coll_lane_piece(size_t count, size_t es, int lanes, int lane, size_t *l0,
                                           size_t *l1) {
  size_t line = SIMPLE__CACHE_LINE / es ? SIMPLE__CACHE_LINE / es : 1;
  size_t per = ((count + (size_t)lanes - 1) / (size_t)lanes + line - 1) / line * line;
  *l0 = (size_t)lane * per < count ? (size_t)lane * per : count;
  *l1 = *l0 + per < count ? *l0 + per : count;
}

/* The tree's root node for a reduce to root by `tree` (-1: the allreduce
 * schedule). It follows from root and op alone, the same on every node (an
 * invalid root, refused on every node, still gives one). User ops need not
 * commute: they keep the allreduce's node order. */
static inline int simple__coll_tree_root(const simple__node_t *n, int root, simple_op_t op,
                                         int tree) {
  if (!tree || root < 0 || op >= SIMPLE_OP_USER_FIRST) return -1;
  return root < n->nprocs ? simple__node_of(n, root) : 0;
}

/* A reduction's path inside the node for the table's alg (choose.h): up
 * to SIMPLE__COLL_SMALL_REDUCE bytes under recursive doubling or the tree
 * the last thread to arrive combines and drives lane 0 alone; else every
 * thread combines a slice and every lane exchanges its piece. */
static inline int simple__coll_reduce_small(simple__coll_alg_t alg, size_t bytes) {
  return (alg == SIMPLE__ALG_RD || alg == SIMPLE__ALG_TREE) && bytes <= SIMPLE__COLL_SMALL_REDUCE;
}

/* How many lanes a scan of `bytes` per thread exchanges on among nodes:
 * one up to a slot's inline bytes (the master's path) and where the table
 * says so (choose.c: below 8 KiB a message costs alpha whatever its size,
 * splitting only adds messages), else every lane. */
static inline int simple__coll_scan_lanes(const simple__node_t *n, size_t bytes) {
  return bytes <= SIMPLE__INLINE_BYTES ||
                 simple__coll_choose(SIMPLE__COLL_SCAN, n, bytes) == SIMPLE__ALG_ONE_LANE
             ? 1
             : simple__xchg_lanes(n);
}

/* simple__sync_rc after a step among nodes that carries the signature
 * (net_arg: this thread's step found another node's signature, rc
 * SIMPLE_ERR_ARG): every thread of the node then returns SIMPLE_ERR_ARG
 * (they all made the call that differs from the other node's) but for a
 * thread's own MPI error; other codes as simple__sync_rc. One barrier. */
static inline int simple__coll_net_rc(simple_t *s, int rc, int net_arg) {
  unsigned f = simple__barrier_wait(&s->node->barrier, net_arg ? 3u : rc ? 1u : 0u);
  if (f & SIMPLE__BARRIER_FATAL) return SIMPLE_ERR_FATAL;
  if (f & 2u) return rc == 0 || rc == SIMPLE_ERR_PEER ? SIMPLE_ERR_ARG : rc;
  return rc ? rc : f ? SIMPLE_ERR_PEER : 0;
}

/* A v form's own count and arrays, kept (s->vargs, for the duration of
 * the call) so that its rerun after a mismatch (simple__coll_mismatch)
 * has the sizes its error path needs: a node cannot size its marks from
 * NULL arrays. a: counts, displs (gatherv, scatterv, allgatherv), or
 * scounts, sdispls, rcounts, rdispls (alltoallv). */
typedef struct {
  size_t count;
  const size_t *a[4];
} simple__coll_vargs_t;
/* SIMPLE__COLL_CHECK for the v forms: also keeps their arrays. */
#define SIMPLE__COLL_CHECK_V(s, call, type, root, va) \
  do {                                                \
    SIMPLE__COLL_CHECK(s, call, -1, type, -1, root);  \
    if (SIMPLE__IN_JOB(s)) (s)->vargs = (va);         \
  } while (0)

/* At every collective's entry: records the call in the thread's context
 * (for the hang report), then, in checked mode, compares it job-wide;
 * last, sets its signature for the node's free check (the checked mode's
 * own publish must not take it). A context not in the job is left alone:
 * the call returns SIMPLE_ERR_NOT_IN_JOB. The collective must return
 * through simple__coll_verdict. */
#define SIMPLE__COLL_CHECK(s, call, count, type, op, root)                                         \
  do {                                                                                             \
    if (!SIMPLE__IN_JOB(s)) break;                                                                 \
    simple__call_record(&(s)->last, (call), __builtin_return_address(0), (long long)(count),       \
                        (int)(type), (int)(op), (root));                                           \
    if ((s)->node->checked) {                                                                      \
      int check_rc_ = simple__coll_check((s), &(s)->last);                                         \
      if (check_rc_) return check_rc_;                                                             \
    }                                                                                              \
    (s)->sig = simple__coll_sig(SIMPLE__COLL_ID(call), (long long)(count), (int)(type), (int)(op), \
                                (root));                                                           \
  } while (0)

/* The collectives' own communicator (comm.c), for the node-level steps
 * that use MPI's own algorithms. One acquire load. */
extern simple__layer_key_t simple__coll_comm_key;
static inline simple__comm_t *simple__coll_comm(simple__node_t *n) {
  return *simple__layer_slot(n, &simple__coll_comm_key);
}

#endif
