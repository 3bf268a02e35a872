/* simple_bcast: the root's node master broadcasts the root thread's buffer
 * in place among the node masters; every thread copies from its master. */
#include <string.h>

#include "coll/coll.h"
#include "net/net.h"
#include "simple/coll.h"
#include "simple/node.h"

int simple_bcast(simple_t *s, void *buf, size_t count, simple_type_t type, int root) {
  SIMPLE__COLL_CHECK(s, "bcast", count, type, -1, root);
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  simple__node_t *n = s->node;
  if (n->nodes == 1) return simple_node_bcast(s, buf, count, type, root);
  int err =
      root < 0 || root >= n->nprocs ? SIMPLE_ERR_RANK : simple__check_buffer(buf, count, type);
  int rc;
  const simple__slot_t *slots = simple__node_publish(s, buf, buf, NULL, count, err, &rc);
  if (!slots) return rc;
  if (count == 0) return 0;
  size_t bytes = count * simple_type_size(type);
  int root_node = simple__node_of(n, root);
  /* The node's source: the root thread itself on the root's node, the
   * master (whose buffer MPI fills) elsewhere. */
  int src = n->node == root_node ? root - n->first_pid[root_node] : 0;
  if (s->thread == 0) rc = simple__net_bcast(n, slots[src].recv, bytes, root_node);
  if ((rc = simple__sync_rc(s, rc))) return rc;
  if (s->thread != src) memcpy(buf, slots[src].recv, bytes);
  /* The source's buffer is read until everyone has copied. */
  return simple__node_finish(s);
}
