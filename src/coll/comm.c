/* The collectives' own communicator, for their node-level steps that use
 * MPI's own algorithms (barrier, bcast, allgather(v), the checked mode's
 * comparison): one thread per node makes them, in the order of the
 * collectives themselves, which every thread of the job calls in one
 * order. Made when the job starts (an open hook: the first collective
 * may be called by any thread, with no collective point to make it at)
 * and freed when it ends. Cost: one MPI_Comm_dup per job. */
#include <stdlib.h>

#include "coll/coll.h"

simple__layer_key_t simple__coll_comm_key;

static int comm_open(simple__node_t *n) {
  return simple__comm_open_slot(n, simple__layer_slot(n, &simple__coll_comm_key));
}

static void comm_close(simple__node_t *n) {
  simple__comm_close_slot(simple__layer_slot(n, &simple__coll_comm_key));
}

__attribute__((constructor)) static void register_hooks(void) {
  static const simple__layer_hooks_t h = {"coll", comm_open, comm_close};
  if (simple__layer_hooks(&h) != 0) abort(); /* a build error: more layers than slots */
}
