/* simple_bcast: the root thread's buffer goes to every node's master,
 * then every thread copies from its master.
 *
 * Among nodes, by choose.c's table: a binomial tree of point-to-point
 * messages from the root's node (2 nodes: one message, sent from the
 * caller's buffer in 63 KiB segments below 1 MiB: one way, xchg.c), the
 * verdict in error marks and the signature in the tags
 * (simple__coll_net_bcast_tree); or one MPI_Bcast
 * among the masters with a verdict word beside the data (bit 0 set when
 * the root's node found an error in the call, the call's signature above
 * it: simple__comm_bcast_word). Either way every thread of the job returns
 * SIMPLE_ERR_PEER (the offender its own code) when a thread of the root's
 * node erred. A node other than the root's that erred still takes its
 * part: in MPI_Bcast into a temporary block, so it fails alone; in the
 * tree it drains its parent's message and sends marks to its children,
 * which fail with it (the nodes below it in the tree; none on 2 nodes). */
#include <string.h>

#include "coll/coll.h"
#include "simple/coll.h"
#include "simple/node.h"

/* The node's master's part among nodes: buf's bytes from the root's node
 * to every other node's master, by the tree or by one MPI_Bcast (tree).
 * In MPI_Bcast the root's node sends its call's signature above the
 * verdict bit (the node's threads agreed on it: src/node's check); another
 * node whose own differs called something else with the same message
 * size (a different type, count or call), and fails with SIMPLE_ERR_ARG:
 * no extra message. The root's node cannot hear of it (the data flows
 * away from it) and succeeds. */
static int node_bcast(simple__node_t *n, void *buf, size_t bytes, int root_node, int tree,
                      unsigned sig) {
  if (tree) return simple__coll_net_bcast_tree(n, 0, buf, bytes, root_node, 0, sig);
  long long mine = (long long)sig << 1, word = mine;
  int rc = simple__comm_bcast_word(simple__coll_comm(n), &word, buf, bytes, root_node);
  return rc ? rc : (word & 1) ? SIMPLE_ERR_PEER : word != mine ? SIMPLE_ERR_ARG : 0;
}

/* An argument error on this node: its master still takes part in the
 * broadcast, with marks or the error word (root's node) or into a
 * temporary block (elsewhere). A root out of range is every thread's
 * error, and a size that overflows every node's: nothing crosses. */
static void node_error(simple__node_t *n, size_t count, simple_type_t type, int root, size_t bytes,
                       int tree) {
  if (!count || root < 0 || root >= n->nprocs || bytes / count != simple_type_size(type)) return;
  long long word = 1;
  if (tree)
    simple__coll_net_bcast_tree(n, 0, NULL, bytes, simple__node_of(n, root), 1, 0);
  else
    simple__comm_bcast_word(simple__coll_comm(n), &word, NULL, bytes, simple__node_of(n, root));
}

static int bcast_(simple_t *s, void *buf, size_t count, simple_type_t type, int root) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  /* A malformed SIMPLE_COLL_ALG, the same in every process: every thread
   * refuses alike, nothing crosses. */
  if (simple__coll_choose_status()) return SIMPLE_ERR_ARG;
  simple__node_t *n = s->node;
  if (n->nodes == 1) return simple_node_bcast(s, buf, count, type, root);
  int err =
      root < 0 || root >= n->nprocs ? SIMPLE_ERR_RANK : simple__check_buffer(buf, count, type);
  size_t bytes = count * simple_type_size(type);
  /* The same on every node whose call matches (the layout and the
   * bytes). */
  int tree = simple__coll_choose(SIMPLE__COLL_BCAST, n, bytes) == SIMPLE__ALG_TREE;
  /* A node of one thread: its thread is the node's master and source,
   * and the data lands in its buffer; no publish, no node barrier. */
  if (n->threads == 1) {
    unsigned sig = s->sig; /* taken, as a publish takes it */
    s->sig = 0;
    if (err) node_error(n, count, type, root, bytes, tree);
    return err ? err : count ? node_bcast(n, buf, bytes, simple__node_of(n, root), tree, sig) : 0;
  }
  int rc;
  const simple__slot_t *slots = simple__node_publish(s, buf, buf, NULL, count, err, &rc);
  if (!slots) {
    if (rc != SIMPLE_ERR_FATAL && s->thread == 0) node_error(n, count, type, root, bytes, tree);
    return rc;
  }
  if (count == 0) return 0;
  int root_node = simple__node_of(n, root);
  /* The node's source: the root thread itself on the root's node, the
   * master (whose buffer MPI fills) elsewhere. */
  int src = n->node == root_node ? root - n->first_pid[root_node] : 0;
  if (s->thread == 0) rc = node_bcast(n, slots[src].recv, bytes, root_node, tree, slots[0].sig);
  if ((rc = simple__coll_sync_rc(s, rc))) return rc;
  simple__node_fan_out(slots, n->threads, src, s->thread, bytes);
  /* The source's buffer is read, and the others' written, until everyone
   * has copied. */
  return simple__node_finish(s);
}

int simple_bcast(simple_t *s, void *buf, size_t count, simple_type_t type, int root) {
  SIMPLE__COLL_CHECK(s, "bcast", count, type, -1, root);
  /* One node: the node library is the whole job, and gives the verdict of
   * a mismatch itself (a tail call, as before the check). */
  if (SIMPLE__IN_JOB(s) && s->node->nodes == 1 && !simple__coll_choose_status())
    return simple_node_bcast(s, buf, count, type, root);
  return simple__coll_verdict(s, bcast_(s, buf, count, type, root));
}
