/* Internal: pieces shared by the hybrid collectives of src/coll. */
#ifndef SIMPLE_COLL_COLL_H
#define SIMPLE_COLL_COLL_H

#include <stddef.h>

#include "base/size.h"
#include "base/sync.h"
#include "coll/choose.h"
#include "node/node_sync.h"
#include "net/net_comm.h"
#include "node/ops.h"
#include "run/job.h"
#include "xchg/xchg.h"

/* Allreduce of count elements among the nodes, one thread per node on
 * `lane`, combining in node order (so the result is identical on every node
 * and non-commutative ops are applied in rank order). buf holds this node's
 * contribution and receives the result; tmp has room for count elements.
 *
 * recursive doubling: ceil(log2 P) steps of one exchange of the whole
 * vector, plus a fold step in and out when P is not a power of two:
 *   cost (log2 P + 2) (alpha + beta n). Best for small vectors.
 * Rabenseifner: recursive-halving reduce-scatter, recursive-doubling
 * allgather, with the same fold: cost 2 log2 P alpha + 2 beta n + 2 beta n
 * for the fold. Best for large vectors.
 *
 * The verdict: `bad` says this node found an error in the call (its
 * buffers are then not read); it runs the schedule all the same, sending
 * error marks (src/xchg: simple__xchg_sendrecv), and every node that
 * receives one passes it on, so that every node returns SIMPLE_ERR_PEER,
 * the result being made of every node's data. Returns 0, SIMPLE_ERR_PEER
 * or SIMPLE_ERR_MPI; on SIMPLE_ERR_PEER buf may hold partial results. */
int simple__coll_net_allreduce_rd(simple__node_t *n, int lane, void *buf, void *tmp, size_t count,
                                  simple_type_t type, simple_op_t op, int bad);
int simple__coll_net_allreduce_rab(simple__node_t *n, int lane, void *buf, void *tmp, size_t count,
                                   simple_type_t type, simple_op_t op, int bad);

/* Reduce of count elements to node root_node, one thread per node on
 * `lane`, for commutative ops only (the built-in ones: a subtree's
 * combination reaches its parent whatever the node order). Binomial tree
 * on ranks relative to the root: at step 2^j a node with bit j set sends
 * its subtree's combination up and stops; the vector travels in 128 KiB
 * segments, up to 4 in flight, each combined as it arrives while the next
 * ones are on the wire (as MPI's pipelined reduce). Then the root's verdict
 * goes back down the same tree as a 1-byte token, so that every node
 * returns the same verdict. buf holds this node's contribution and, on the
 * root's node, receives the result; elsewhere it is left partial. tmp has
 * room for count elements.
 * Cost: ceil(log2 P) (alpha + beta n) up (for 2 nodes one message of n
 * bytes, pipelined with the combining: beta n + one segment's op), plus
 * ceil(log2 P) alpha down. `bad` and the verdict as for the allreduces. */
int simple__coll_net_reduce_tree(simple__node_t *n, int lane, void *buf, void *tmp, size_t count,
                                 simple_type_t type, simple_op_t op, int root_node, int bad);

/* Exclusive scan of count elements among the nodes, by one thread per node
 * on `lane`, combining in node order. part holds this node's contribution
 * (destroyed); on return res holds the combination of nodes 0..node-1
 * (untouched on node 0). tmp and spare are work space; all four hold count
 * elements and do not overlap.
 * Recursive doubling (works for any P): at step 2^j, node i exchanges its
 * partial (the combination over its aligned block of 2^j nodes) with node
 * i ^ 2^j; a partner from below is combined on the left of both partial and
 * result. ceil(log2 P) steps of one message each way, except at the last
 * step, where the lower node needs no partial from above: a 1-byte token
 * goes down instead (the verdict's path): cost ceil(log2 P) (alpha + beta
 * n), for 2 nodes one message of n bytes. `bad` and the verdict as for the
 * allreduces (every node hears of an error: each takes part in steps that
 * cover every other node's block); res is untouched on SIMPLE_ERR_PEER. */
int simple__coll_net_exscan(simple__node_t *n, int lane, void *part, void *res, void *tmp,
                            void *spare, size_t count, simple_type_t type, simple_op_t op, int bad);

/* buf = in (op) buf, through tmp (count elements): the left operand is the
 * lower-ranked contribution, as simple__op_apply's acc. */
void simple__coll_apply_left(simple_op_t op, simple_type_t type, const void *in, void *buf,
                             void *tmp, size_t count);

/* Checked mode (SIMPLE_CHECK=1, src/coll/check.c): every thread of the job
 * compares the collective it called and its arguments (count -1, type,
 * op, root -1 where they do not apply) with the others'. Returns 0, or
 * SIMPLE_ERR_ARG on a thread whose call differs (SIMPLE_ERR_PEER on the
 * others) after printing the mismatch with its call sites. */
int simple__coll_check(simple_t *s, const simple__call_t *call);
/* At every collective's entry: records the call in the thread's context
 * (for the hang report), then, in checked mode, compares it. A context not
 * in the job is left alone: the call returns SIMPLE_ERR_NOT_IN_JOB. */
#define SIMPLE__COLL_CHECK(s, call, count, type, op, root)                                   \
  do {                                                                                       \
    if (!SIMPLE__IN_JOB(s)) break;                                                           \
    simple__call_record(&(s)->last, (call), __builtin_return_address(0), (long long)(count), \
                        (int)(type), (int)(op), (root));                                     \
    if ((s)->node->checked) {                                                                \
      int check_rc_ = simple__coll_check((s), &(s)->last);                                   \
      if (check_rc_) return check_rc_;                                                       \
    }                                                                                        \
  } while (0)

/* The collectives' own communicator (comm.c), for the node-level steps
 * that use MPI's own algorithms. One acquire load. */
extern simple__layer_key_t simple__coll_comm_key;
static inline simple__comm_t *simple__coll_comm(simple__node_t *n) {
  return *simple__layer_slot(n, &simple__coll_comm_key);
}

#endif
