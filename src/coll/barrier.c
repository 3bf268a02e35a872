/* simple_barrier: node barrier, node masters in MPI's barrier, release. */
#include "coll/coll.h"
#include "net/net.h"
#include "simple/coll.h"

int simple_barrier(simple_t *s) {
  SIMPLE__COLL_CHECK(s, "barrier", -1, -1, -1, -1);
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  simple__node_t *n = s->node;
  int rc = simple__node_finish(s);
  if (rc || n->nodes == 1) return rc;
  if (s->thread == 0) rc = simple__net_barrier(n);
  /* The others wait here, asleep after a short spin, while the master is in
   * MPI; its result reaches them through the barrier's flag. */
  unsigned f = simple__barrier_wait(&n->barrier, rc ? 1u : 0u);
  if (f & SIMPLE__BARRIER_FATAL) return SIMPLE_ERR_FATAL;
  return f ? (rc ? rc : SIMPLE_ERR_PEER) : 0;
}
