/* simple_bcast: the root's node master broadcasts the root thread's buffer
 * in place among the node masters; every thread copies from its master.
 *
 * The verdict travels in band: one word (bit 0 set when the root's node
 * found an error in the call, the call's signature above it) rides with
 * the data in the one MPI_Bcast among nodes (simple__comm_bcast_word), so
 * every thread of the job returns SIMPLE_ERR_PEER (the offender its own
 * code) when a thread of the root's node erred. A node other than the
 * root's that erred still takes its part in the broadcast (into a
 * temporary block) and fails alone: the data flows away from it, so the
 * others' results are correct. */
#include <string.h>

#include "coll/coll.h"
#include "simple/coll.h"
#include "simple/node.h"

static int bcast_(simple_t *s, void *buf, size_t count, simple_type_t type, int root) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  simple__node_t *n = s->node;
  if (n->nodes == 1) return simple_node_bcast(s, buf, count, type, root);
  int err =
      root < 0 || root >= n->nprocs ? SIMPLE_ERR_RANK : simple__check_buffer(buf, count, type);
  int rc;
  const simple__slot_t *slots = simple__node_publish(s, buf, buf, NULL, count, err, &rc);
  size_t bytes = count * simple_type_size(type);
  if (!slots) {
    /* An argument error on this node: its master still takes part in the
     * broadcast, with the error word (root's node) or into a temporary
     * block (elsewhere). A root out of range is every thread's error. */
    long long word = 1;
    if (rc != SIMPLE_ERR_FATAL && count && s->thread == 0 && root >= 0 && root < n->nprocs &&
        bytes / count == simple_type_size(type))
      simple__comm_bcast_word(simple__coll_comm(n), &word, NULL, bytes, simple__node_of(n, root));
    return rc;
  }
  if (count == 0) return 0;
  int root_node = simple__node_of(n, root);
  /* The node's source: the root thread itself on the root's node, the
   * master (whose buffer MPI fills) elsewhere. */
  int src = n->node == root_node ? root - n->first_pid[root_node] : 0;
  if (s->thread == 0) {
    /* The root's node sends its call's signature above the verdict bit (the
     * node's threads agreed on it: src/node's check); another node whose
     * own differs called something else with the same message size (a
     * different type, count or call), and fails with SIMPLE_ERR_ARG: no
     * extra message. The root's node cannot hear of it (the data flows
     * away from it) and succeeds. */
    long long sig = (long long)slots[0].sig << 1, word = sig;
    rc = simple__comm_bcast_word(simple__coll_comm(n), &word, slots[src].recv, bytes, root_node);
    if (!rc && (word & 1)) rc = SIMPLE_ERR_PEER;
    if (!rc && word != sig) rc = SIMPLE_ERR_ARG;
  }
  if ((rc = simple__coll_sync_rc(s, rc))) return rc;
  if (s->thread != src) memcpy(buf, slots[src].recv, bytes);
  /* The source's buffer is read until everyone has copied. */
  return simple__node_finish(s);
}

int simple_bcast(simple_t *s, void *buf, size_t count, simple_type_t type, int root) {
  SIMPLE__COLL_CHECK(s, "bcast", count, type, -1, root);
  /* One node: the node library is the whole job, and gives the verdict of
   * a mismatch itself (a tail call, as before the check). */
  if (SIMPLE__IN_JOB(s) && s->node->nodes == 1) return simple_node_bcast(s, buf, count, type, root);
  return simple__coll_verdict(s, bcast_(s, buf, count, type, root));
}
