/* simple_barrier: node barrier, node masters in MPI's barrier, release. */
#include "coll/coll.h"
#include "simple/coll.h"

static int barrier_(simple_t *s) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  simple__node_t *n = s->node;
  if (n->nodes == 1) {
    s->sig = 0; /* a counting barrier posts no signature */
    return simple__node_finish(s);
  }
  /* The node's last thread to arrive takes it into MPI's barrier; the
   * others wait for it once, and its result reaches them as the barrier's
   * flag. */
  int rc, lead;
  if (!simple__node_publish_lead(s, NULL, NULL, NULL, 0, 0, &rc, &lead)) return rc;
  return lead ? simple__node_lead_done(s, simple__comm_barrier(simple__coll_comm(n))) : 0;
}

int simple_barrier(simple_t *s) {
  SIMPLE__COLL_CHECK(s, "barrier", -1, -1, -1, -1);
  return simple__coll_verdict(s, barrier_(s));
}
