/* simple_scan and simple_exscan over every thread of the job.
 *
 * Three phases, as the header says: a node-local scan in shared memory, an
 * exclusive scan of the node totals among the nodes, and a local fix-up
 * that combines the node's prefix X (on the left: lower ranks) with each
 * thread's local result. Contributions are combined in global rank order:
 * thread pid's result is ((X_node) op local prefix), X_node being the
 * combination of nodes 0..node-1 in node order, each node's total itself
 * combined in thread order. The grouping depends only on the layout (both
 * paths below group alike), so results are bitwise reproducible for a
 * layout; with one node the node library's scan is the whole job's.
 *
 * Two paths:
 *  - small (n <= SIMPLE__INLINE_BYTES): inputs travel in the slots; the
 *    master combines the node total from the slot copies, runs the exscan
 *    among nodes, and after one more barrier every thread computes its own
 *    result from X and the slot copies. Two barriers (one on node 0, which
 *    needs no prefix); nobody writes into another thread's buffer, so no
 *    closing barrier. Cost: 2b + r n/B + exscan among P.
 *  - large: every thread scans one slice of all the node's buffers (the
 *    local results into the threads' recv, the node total into the
 *    scratch); a barrier; the
 *    node total, cut into L lanes, is scanned among nodes by L threads at
 *    once; a barrier; each thread fixes up its own buffer (reads X, writes
 *    only its own recv). Cost: 3b + 2 n/B + exscan among P of n/L bytes
 *    per lane (the header's 2b plus the barrier that publishes X). On
 *    node 0 (no prefix) the threads return after the local scan, the lane
 *    drivers after their exchange.
 * A node of one thread takes neither: it runs the exchange among nodes on
 * the caller's buffers (scan_alone).
 * An MPI failure in the exchange is returned by every thread of a node
 * that waits for the exchange; on node 0, which waits for nothing, by the
 * threads that drove it. */
#include <stdint.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/slot_views.h"
#include "simple/coll.h"
#include "simple/node.h"

/* The accumulator a thread scans through: small enough to stay in L1. */
#define CHUNK_BYTES 2048

/* The small path's regions: its largest vector. */
#define SMALL_STRIDE SIMPLE__INLINE_BYTES

/* out = x (op) in, count elements (in and out may be one buffer), through
 * a stack accumulator: the operation combines into its left operand. */
static void apply_left(simple_op_t op, simple_type_t type, const unsigned char *x,
                       const unsigned char *in, unsigned char *out, size_t count) {
  _Alignas(SIMPLE__CACHE_LINE) unsigned char acc[CHUNK_BYTES];
  size_t es = simple_type_size(type), per = CHUNK_BYTES / es;
  for (size_t off = 0; off < count; off += per) {
    size_t m = count - off < per ? count - off : per;
    memcpy(acc, x + off * es, m * es);
    simple__op_apply(op, type, acc, in + off * es, m);
    memcpy(out + off * es, acc, m * es);
  }
}

/* The stride of the scratch's four regions for a large scan: the vector,
 * on cache lines. */
static size_t large_stride(size_t bytes) {
  return (bytes + SIMPLE__CACHE_LINE - 1) / SIMPLE__CACHE_LINE * SIMPLE__CACHE_LINE;
}

/* The exchange among nodes for lane `lane` of L: thread `lane` of every
 * node scans its cache-line-aligned piece of the node total. The scratch
 * holds four regions of `stride` bytes: total (destroyed), X, and two work
 * regions; X ends in region 1 on every node but node 0. In each region
 * lane k's piece lies at l0 es. sig: the call's signature (coll.h). */
static int exchange(simple__node_t *n, int lane, int lanes, unsigned char *w, size_t stride,
                    size_t count, simple_type_t type, simple_op_t op, int bad, unsigned sig) {
  size_t es = simple_type_size(type), l0, l1;
  simple__coll_lane_piece(count, es, lanes, lane, &l0, &l1);
  if (l1 <= l0) return 0;
  if (bad) return simple__coll_net_exscan(n, lane, NULL, NULL, NULL, NULL, l1 - l0, type, op, 1, 0);
  size_t at = l0 * es;
  return simple__coll_net_exscan(n, lane, w + at, w + stride + at, w + 2 * stride + at,
                                 w + 3 * stride + at, l1 - l0, type, op, 0, sig);
}

static int scan_small(simple_t *s, const simple__slot_t *slots, int exclusive, size_t count,
                      simple_type_t type, simple_op_t op, void *recv, unsigned sig) {
  simple__node_t *n = s->node;
  int me = s->thread, r = n->threads;
  size_t bytes = count * simple_type_size(type), stride = SMALL_STRIDE;
  unsigned char *w = slots[0].ptr;
  int rc = 0;
  if (me == 0) {
    memcpy(w, simple__sv_block(&slots[0]), bytes);
    for (int u = 1; u < r; u++) simple__op_apply(op, type, w, simple__sv_block(&slots[u]), count);
    rc = simple__coll_net_exscan(n, 0, w, w + stride, w + 2 * stride, w + 3 * stride, count, type,
                                 op, 0, sig);
  }
  /* Node 0 has no prefix, but its threads wait for the exchange too: it
   * carries the job's verdict. */
  if ((rc = simple__coll_net_rc(s, rc, rc == SIMPLE_ERR_ARG)) != 0) return rc;
  int last = exclusive ? me - 1 : me;      /* local threads combined into the result */
  if (n->node == 0 && last < 0) return rc; /* exscan's pid 0: left untouched */
  /* X (op) (local prefix), grouped as on the large path, so that a result
   * does not depend on which path computed it. */
  _Alignas(SIMPLE__CACHE_LINE) unsigned char acc[SIMPLE__INLINE_BYTES];
  _Alignas(SIMPLE__CACHE_LINE) unsigned char loc[SIMPLE__INLINE_BYTES];
  if (last < 0) { /* exscan's thread 0 on a later node: X alone */
    memcpy(recv, w + stride, bytes);
    return rc;
  }
  memcpy(loc, simple__sv_block(&slots[0]), bytes);
  for (int u = 1; u <= last; u++)
    simple__op_apply(op, type, loc, simple__sv_block(&slots[u]), count);
  if (n->node > 0) {
    memcpy(acc, w + stride, bytes);
    simple__op_apply(op, type, acc, loc, count);
  }
  memcpy(recv, n->node > 0 ? acc : loc, bytes);
  return rc;
}

static int scan_large(simple_t *s, const simple__slot_t *slots, int exclusive, size_t count,
                      simple_type_t type, simple_op_t op, void *recv, unsigned sig) {
  simple__node_t *n = s->node;
  size_t es = simple_type_size(type), bytes = count * es;
  int me = s->thread, r = n->threads, lanes = simple__coll_scan_lanes(n, bytes);
  size_t stride = large_stride(bytes), l0, l1, lo, hi;
  unsigned char *w = slots[0].ptr;
  simple__node_slice(count, es, r, me, &lo, &hi);
  /* This thread's slice of the node total, in its place. */
  if (lo < hi) simple__node_scan_slice(slots, r, exclusive, type, op, lo, hi, w);
  int rc = simple__node_finish(s);
  if (rc) return rc;
  if (me < lanes) rc = exchange(n, me, lanes, w, stride, count, type, op, 0, sig);
  /* Node 0 has no prefix (its results are final), but its threads wait
   * for the exchange too: it carries the job's verdict. */
  if ((rc = simple__coll_net_rc(s, rc, rc == SIMPLE_ERR_ARG)) != 0) return rc;
  if (n->node == 0) return 0;
  for (int k = 0; k < lanes; k++) {
    simple__coll_lane_piece(count, es, lanes, k, &l0, &l1);
    if (l1 <= l0) continue;
    const unsigned char *x = w + stride + l0 * es;
    unsigned char *out = (unsigned char *)recv + l0 * es;
    if (exclusive && me == 0)
      memcpy(out, x, (l1 - l0) * es);
    else
      apply_left(op, type, x, out, out, l1 - l0);
  }
  return 0;
}

/* A node of one thread, at every size: no node phase, so the node's
 * total is the caller's send, which the exchange only reads when the
 * nodes are 2 (it combines into its partial only at steps that pass it on,
 * and with 2 nodes there is one step); the fix-up then writes recv = X op
 * send in one pass. Against the sliced path it saves the copy of send into
 * recv and, on 2 nodes, into the scratch (a memory pass of n each); against
 * the small path the copies through the slot and the node barriers. Lane 0
 * carries the whole vector (the job's lanes are its smallest node's
 * threads, 1), as on the small path. */
static int scan_alone(simple__node_t *n, const void *send, void *recv, unsigned char *w,
                      size_t stride, int exclusive, int small, size_t count, simple_type_t type,
                      simple_op_t op, int err, unsigned sig) {
  if (err) {
    if (count && simple_type_size(type)) exchange(n, 0, 1, NULL, 0, count, type, op, 1, 0);
    return err;
  }
  if (count == 0) return 0;
  size_t bytes = count * simple_type_size(type);
  unsigned char *part = (unsigned char *)(uintptr_t)send;
  if (n->nodes > 2) {
    memcpy(w, send, bytes);
    part = w;
  }
  /* On 2 nodes node 1's prefix X is node 0's send, received straight into
   * recv (node 1 sends nothing, so an exscan in place loses nothing), and a
   * scan then combines send into it: recv = X op send, one pass, no
   * scratch. Not on the small path's sizes, where a failed call writes no
   * recv (docs/api.md): X lands in the scratch. */
  int into_recv = !small && n->nodes == 2 && n->node == 1 && (exclusive || recv != send);
  unsigned char *x = into_recv ? recv : w + stride;
  int rc = simple__coll_net_exscan(n, 0, part, x, w + 2 * stride, w + 3 * stride, count, type, op,
                                   0, sig);
  if (rc) return rc;
  if (n->node == 0) {
    if (!exclusive && recv != send) memcpy(recv, send, bytes);
  } else if (exclusive) {
    if (!into_recv) memcpy(recv, x, bytes);
  } else if (into_recv) {
    simple__op_apply(op, type, recv, send, count);
  } else {
    apply_left(op, type, x, send, recv, count); /* recv = X op send */
  }
  return 0;
}

static int scan_common(simple_t *s, const void *send, void *recv, size_t count, simple_type_t type,
                       simple_op_t op, int exclusive) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  /* A malformed SIMPLE_COLL_ALG, the same in every process: every thread
   * refuses alike, nothing crosses. */
  if (simple__coll_choose_status()) return SIMPLE_ERR_ARG;
  simple__node_t *n = s->node;
  /* The call's signature, which publish clears: it rides between nodes. */
  unsigned sig = s->sig;
  /* One node: the node library's scan is the whole job's. */
  if (n->nodes == 1)
    return exclusive ? simple_node_exscan(s, send, recv, count, type, op)
                     : simple_node_scan(s, send, recv, count, type, op);
  int err = simple__op_check(op, type);
  if (!err && send == SIMPLE_IN_PLACE) send = recv;
  if (!err) err = simple__check_buffer(send, count, type);
  if (!err) err = simple__check_buffer(recv, count, type);
  size_t bytes = count * simple_type_size(type);
  int small = bytes <= SIMPLE__INLINE_BYTES;
  size_t stride = small ? SMALL_STRIDE : large_stride(bytes);
  void *w = NULL;
  /* In src/xchg's room: written only after the publish. */
  if (s->thread == 0 && !err && count && !(w = simple__xchg_room(s, 4 * stride)))
    err = SIMPLE_ERR_NOMEM;
  if (n->threads == 1)
    return scan_alone(n, send, recv, w, stride, exclusive, small, count, type, op, err, sig);
  if (small && bytes && !err) memcpy(simple__sv_block(simple__node_my_slot(s)), send, bytes);
  int rc;
  const simple__slot_t *slots = simple__node_publish(s, send, recv, w, count, err, &rc);
  if (!slots) {
    /* An argument error on this node: its lane drivers still run the
     * exchange among nodes, with error marks, for the nodes waiting on it.
     * The shape follows from count and type, as on every node. */
    int lanes = simple__coll_scan_lanes(n, bytes);
    if (rc != SIMPLE_ERR_FATAL && count && simple_type_size(type) && s->thread < lanes)
      exchange(n, s->thread, lanes, NULL, 0, count, type, op, 1, 0);
    return rc;
  }
  if (count == 0) return 0;
  return small ? scan_small(s, slots, exclusive, count, type, op, recv, sig)
               : scan_large(s, slots, exclusive, count, type, op, recv, sig);
}

int simple_scan(simple_t *s, const void *send, void *recv, size_t count, simple_type_t type,
                simple_op_t op) {
  SIMPLE__COLL_CHECK(s, "scan", count, type, op, -1);
  return simple__coll_verdict(s, scan_common(s, send, recv, count, type, op, 0));
}

int simple_exscan(simple_t *s, const void *send, void *recv, size_t count, simple_type_t type,
                  simple_op_t op) {
  SIMPLE__COLL_CHECK(s, "exscan", count, type, op, -1);
  return simple__coll_verdict(s, scan_common(s, send, recv, count, type, op, 1));
}
