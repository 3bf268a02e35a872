/* simple_reduce and simple_allreduce over every thread of the job. */
#include <limits.h>
#include <string.h>

#include "coll/coll.h"
#include "simple/coll.h"
#include "simple/node.h"

/* Two paths for the node phase, by size: up to SIMPLE__COLL_SMALL_REDUCE
 * bytes the first (reduce_small, whose master combines), above it the
 * second (reduce_large, sliced; Rabenseifner's schedule takes it at every
 * size); among nodes, by choose.c's table, recursive doubling or
 * Rabenseifner for an allreduce, the one-way tree for a reduce with a
 * built-in op. */

/* Lane `me`'s exchange among nodes of count elements at buf: the tree to
 * the root's node (root_node >= 0: half the bytes of an allreduce cross,
 * one way), else recursive doubling (rd) or Rabenseifner's allreduce. Each
 * may read the node's input at in instead of buf (coll.h; NULL: buf holds
 * it). */
static int lane_exchange(simple__node_t *n, int me, const void *in, void *buf, void *tmp,
                         size_t count, simple_type_t type, simple_op_t op, int root_node, int rd,
                         int bad, unsigned sig) {
  if (root_node >= 0)
    return simple__coll_net_reduce_tree(n, me, in, buf, tmp, count, type, op, root_node, bad, sig);
  return simple__coll_net_allreduce(n, me, in, buf, tmp, count, type, op, rd, bad, sig);
}

/* Small vectors, with one node barrier (simple__node_publish_lead): the
 * node's last thread to arrive combines the inputs into the scratch (paper
 * 001: the other threads only raise their flags, by arriving), reduces
 * among nodes (lane_exchange on lane 0) and releases the others; everyone
 * that wants the result reads it from the scratch (thread 0's, published
 * in its slot). Scratch: the accumulator and the exchange's tmp. On
 * failure (every thread of the node sees one then) a second barrier tells
 * the node's threads whether the leader found another node's signature
 * (SIMPLE_ERR_ARG on all of them); failure path only. */
static int reduce_small(simple_t *s, const void *send, void *recv, void *scratch, size_t count,
                        simple_type_t type, simple_op_t op, int want_result, int root_node, int err,
                        unsigned sig) {
  simple__node_t *n = s->node;
  int rc, lead;
  const simple__slot_t *slots =
      simple__node_publish_lead(s, send, recv, scratch, count, err, &rc, &lead);
  if (!slots) {
    /* An argument error on this node: the other nodes still wait on the
     * exchange, which the leader runs with error marks. */
    if (lead < 0 && count)
      lane_exchange(n, 0, NULL, NULL, NULL, count, type, op, root_node, 1, 1, 0);
    return rc == SIMPLE_ERR_FATAL ? rc : simple__coll_net_rc(s, rc, 0);
  }
  size_t bytes = count * simple_type_size(type);
  unsigned char *acc = slots[0].ptr;
  if (lead) {
    if (count) {
      simple__node_combine_into(slots, n->threads, type, op, 0, count, acc);
      rc = lane_exchange(n, 0, NULL, acc, acc + bytes, count, type, op, root_node, 1, 0, sig);
    }
    if ((rc = simple__node_lead_done(s, rc)))
      return simple__coll_net_rc(s, rc, rc == SIMPLE_ERR_ARG);
  }
  if (want_result && count) memcpy(recv, acc, bytes);
  return 0;
}

/* Large vectors: every thread combines a slice of the node's inputs into
 * the scratch; lane l of the scratch is then reduced among nodes by thread
 * l of every node, all lanes at once; everyone copies the result out. The
 * scratch: the accumulator (count elements, lane k's piece in its place),
 * then tmp. */
static int reduce_large(simple_t *s, const simple__slot_t *slots, size_t count, simple_type_t type,
                        simple_op_t op, int want_result, int root_node, int rd, void *recv, int rc,
                        unsigned sig) {
  simple__node_t *n = s->node;
  int me = s->thread, r = n->threads, lanes = simple__xchg_lanes(n);
  size_t es = simple_type_size(type), bytes = count * es, l0, l1;
  if (!slots) {
    /* An argument error on this node: each lane's driver still runs its
     * exchange, with error marks, for the nodes that wait on it. */
    if (rc != SIMPLE_ERR_FATAL && me < lanes) {
      simple__coll_lane_piece(count, es, lanes, me, &l0, &l1);
      if (l1 > l0) lane_exchange(n, me, NULL, NULL, NULL, l1 - l0, type, op, root_node, rd, 1, 0);
    }
    return rc;
  }
  unsigned char *acc = slots[0].ptr, *tmp = acc + bytes;
  size_t lo, hi;
  simple__node_slice(count, es, r, me, &lo, &hi);
  if (lo < hi) simple__node_combine_into(slots, r, type, op, lo, hi, acc);
  rc = simple__node_finish(s);
  if (rc) return rc;
  if (me < lanes) {
    simple__coll_lane_piece(count, es, lanes, me, &l0, &l1);
    if (l1 > l0)
      rc = lane_exchange(n, me, NULL, acc + l0 * es, tmp + l0 * es, l1 - l0, type, op, root_node,
                         rd, 0, sig);
  }
  if ((rc = simple__coll_net_rc(s, rc, rc == SIMPLE_ERR_ARG))) return rc;
  if (want_result) memcpy(recv, acc, bytes);
  return 0;
}

/* A node of one thread, at every size: no node phase to run, so the
 * exchange among nodes reads send where it is (lane 0 carries the whole
 * vector: the job's lanes are its smallest node's threads, 1), with no
 * node barrier. Above SIMPLE__COLL_SMALL_REDUCE bytes the result is
 * built in recv, which MPI's own collectives fill the same way (the first
 * partner's data received into it, then combined with send): against the
 * sliced path it saves the copies into and out of the scratch (one memory
 * pass of n each). The signature rides in the tags, as on every path; a
 * node that finds another one may have written recv there (the
 * documented partial result). Up to that size the result builds in the
 * scratch and is copied out on success, so that a failed call writes no
 * recv (one copy of n, against the master's two). */
static int reduce_alone(simple_t *s, const void *send, void *recv, void *scratch, size_t count,
                        simple_type_t type, simple_op_t op, int want_result, int root_node, int rd,
                        int err, unsigned sig) {
  simple__node_t *n = s->node;
  size_t bytes = count * simple_type_size(type);
  if (err || count == 0) {
    if (count) lane_exchange(n, 0, NULL, NULL, NULL, count, type, op, root_node, rd, 1, 0);
    return err;
  }
  unsigned char *acc = scratch, *tmp = acc + bytes;
  /* Where the result builds: recv where it is wanted above the small
   * size, else the scratch. Every schedule reads send where it is (no
   * copy into buf first; a leaf of the tree sends straight from it). */
  void *buf = want_result && bytes > SIMPLE__COLL_SMALL_REDUCE ? recv : acc;
  int rc = lane_exchange(n, 0, send, buf, tmp, count, type, op, root_node, rd, 0, sig);
  if (!rc && want_result && buf != recv) memcpy(recv, buf, bytes);
  return rc;
}

/* root < 0: allreduce. */
static int reduce_common(simple_t *s, const void *send, void *recv, size_t count,
                         simple_type_t type, simple_op_t op, int root) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  /* A malformed SIMPLE_COLL_ALG, the same in every process: every thread
   * refuses alike, nothing crosses. */
  if (simple__coll_choose_status()) return SIMPLE_ERR_ARG;
  simple__node_t *n = s->node;
  /* The call's signature, which publish clears: it rides between nodes. */
  unsigned sig = s->sig;
  if (n->nodes == 1) {
    /* One node: the node library is the whole job. */
    return root < 0 ? simple_node_allreduce(s, send, recv, count, type, op)
                    : simple_node_reduce(s, send, recv, count, type, op, root);
  }
  int want_result = root < 0 || s->pid == root;
  int err = root >= n->nprocs ? SIMPLE_ERR_RANK : simple__op_check(op, type);
  if (!err && send == SIMPLE_IN_PLACE) {
    if (!want_result) err = SIMPLE_ERR_ARG;
    send = recv;
  }
  if (!err) err = simple__check_buffer(send, count, type);
  if (!err && want_result) err = simple__check_buffer(recv, count, type);
  /* The path follows from count and type alone, the same on every thread
   * of the job, also on one whose buffers are wrong: a node with an error
   * runs the same inter-node steps as the others, with error marks. */
  size_t bytes = count * simple_type_size(type);
  if (bytes / (simple_type_size(type) ? simple_type_size(type) : 1) != count) bytes = 0;
  simple__coll_alg_t alg =
      simple__coll_choose(root < 0 ? SIMPLE__COLL_ALLREDUCE : SIMPLE__COLL_REDUCE, n, bytes);
  /* The scratch, in src/xchg's room (written only after the publish):
   * accumulator and tmp (reduce_small, reduce_large). A node of one
   * thread runs its schedule on the caller's buffers (reduce_alone): the
   * same messages on lane 0 as reduce_small's, without its copies through
   * the scratch. */
  int rd = alg == SIMPLE__ALG_RD, small = simple__coll_reduce_small(alg, bytes);
  int root_node = simple__coll_tree_root(n, root, op, alg == SIMPLE__ALG_TREE);
  void *scratch = NULL;
  if (s->thread == 0 && !err && !(scratch = simple__xchg_room(s, 2 * bytes)))
    err = SIMPLE_ERR_NOMEM;
  if (n->threads == 1)
    return reduce_alone(s, send, recv, scratch, count, type, op, want_result, root_node, rd, err,
                        sig);
  if (small)
    return reduce_small(s, send, recv, scratch, count, type, op, want_result, root_node, err, sig);
  int rc;
  const simple__slot_t *slots = simple__node_publish(s, send, recv, scratch, count, err, &rc);
  return reduce_large(s, slots, count, type, op, want_result, root_node, rd, recv, rc, sig);
}

int simple_allreduce(simple_t *s, const void *send, void *recv, size_t count, simple_type_t type,
                     simple_op_t op) {
  SIMPLE__COLL_CHECK(s, "allreduce", count, type, op, -1);
  /* One node: the node library is the whole job and gives a mismatch's
   * verdict itself (a tail call). */
  if (SIMPLE__IN_JOB(s) && s->node->nodes == 1 && !simple__coll_choose_status())
    return simple_node_allreduce(s, send, recv, count, type, op);
  return simple__coll_verdict(s, reduce_common(s, send, recv, count, type, op, -1));
}

int simple_reduce(simple_t *s, const void *send, void *recv, size_t count, simple_type_t type,
                  simple_op_t op, int root) {
  SIMPLE__COLL_CHECK(s, "reduce", count, type, op, root);
  /* Out of range like any other bad root (reduce_common reads a negative
   * one as an allreduce's): the thread still meets the others. */
  if (root < 0) root = INT_MAX;
  if (SIMPLE__IN_JOB(s) && s->node->nodes == 1 && !simple__coll_choose_status())
    return simple_node_reduce(s, send, recv, count, type, op, root);
  return simple__coll_verdict(s, reduce_common(s, send, recv, count, type, op, root));
}
