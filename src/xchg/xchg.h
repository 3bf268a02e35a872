/* Internal: the node-pair exchange plan, the one place that decides which
 * threads drive which node pairs, on which lanes, in which order. The
 * collectives (src/coll), the redistributions (src/dist) and the one-sided
 * layer (src/rma, after its port) take these answers from here instead of
 * each deriving its own, so both ends of every transfer always agree.
 *
 * Lanes: src/net opens one MPI communicator per lane; a lane is driven by
 * at most one thread per node at a time (thread l drives lane l), so
 * concurrent transfers never match each other's messages.
 *
 * Every function here is a few integer operations (header-only, inlined
 * into the drivers' loops); none allocates or communicates. */
#ifndef SIMPLE_XCHG_XCHG_H
#define SIMPLE_XCHG_XCHG_H

#include "run/job.h"
#include "xchg/tags.h"

/* Lanes that run in parallel with a driving thread on every node: the
 * threads of the smallest node (at most n->lanes, at least 1); or 1 when
 * some host of the job is oversubscribed, a job-wide verdict (every node
 * must drive the same lanes, or messages wait on lanes nobody serves).
 * Why one lane when threads share cores: concurrent lanes only take turns
 * on the cores. Measured on 2 cores with 2 x 2 threads, a 64 KiB allreduce
 * took 120 us on one lane and 4-5 ms (a scheduler tick) on two, the
 * threads polling MPI in turn pushing each other's progress out to the
 * next tick. */
static inline int simple__xchg_lanes(const simple__node_t *n) {
  if (n->shared_anywhere) return 1;
  int m = n->threads_of[0];
  for (int k = 1; k < n->nodes; k++)
    if (n->threads_of[k] < m) m = n->threads_of[k];
  if (m > n->lanes) m = n->lanes;
  return m < 1 ? 1 : m;
}

/* The all-pairs schedule (every node sends to and receives from every
 * other node once): P - 1 steps st = 1..P-1. At step st node a sends to
 * node *to and receives from node *from:
 *   P a power of two: both a ^ st (pairwise exchange);
 *   otherwise: a + st and a - st (mod P), the shifted schedule.
 * Node a's send at step st meets node *to's receive at the same step, so
 * both ends handle a message at one step, on one lane. */
static inline void simple__xchg_step(const simple__node_t *n, int st, int *to, int *from) {
  int P = n->nodes, a = n->node;
  if ((P & (P - 1)) == 0) {
    *to = *from = a ^ st;
  } else {
    *to = (a + st) % P;
    *from = (a - st + P) % P;
  }
}

/* The shifted schedule alone (a + st, a - st mod P), for exchanges that
 * post every receive before any send and so need no pairing. */
static inline void simple__xchg_shift(const simple__node_t *n, int st, int *to, int *from) {
  int P = n->nodes, a = n->node;
  *to = (a + st) % P;
  *from = (a - st + P) % P;
}

/* An all-pairs exchange whose every message goes in `chunks` pieces: the
 * items i = (st - 1) chunks + ch, (P - 1) chunks of them, are dealt
 * round-robin to `drivers` threads (thread l takes items l, l + drivers,
 * ...) and item i travels on lane i mod drivers at both ends. */
typedef struct {
  int drivers; /* threads 0..drivers-1 drive; the others copy node-local data */
  int chunks;  /* pieces per node-pair message */
} simple__xchg_split_t;

/* The split for an all-pairs exchange: drivers D = min(items, max(1, L -
 * 1)), L = simple__xchg_lanes, leaving one thread of the smallest node to
 * copy node-local blocks; with chunking allowed (want_chunks), each message
 * is cut into C = max(1, (L - 1) / (P - 1)) pieces so that L - 1 threads
 * drive even when the nodes are fewer than the threads (several streams
 * between two nodes). One node: no drivers. */
static inline simple__xchg_split_t simple__xchg_split(const simple__node_t *n, int want_chunks) {
  simple__xchg_split_t x = {0, 1};
  int P = n->nodes;
  if (P < 2) return x;
  int L = simple__xchg_lanes(n), d = L - 1 > 1 ? L - 1 : 1;
  if (want_chunks && d / (P - 1) > 1) x.chunks = d / (P - 1);
  int items = (P - 1) * x.chunks;
  x.drivers = items < d ? items : d;
  return x;
}

/* Lane (and driving thread, at both ends) of item i of a split. */
static inline int simple__xchg_item_lane(const simple__xchg_split_t *x, int i) {
  return i % x->drivers;
}

/* A rooted exchange (gather, scatter): the lane, and the thread that
 * drives it at both ends, of the transfer between root_node and node k !=
 * root_node. The P - 1 other nodes are dealt round-robin over `lanes`
 * lanes, starting after the root. */
static inline int simple__xchg_rooted_lane(const simple__node_t *n, int k, int root_node,
                                           int lanes) {
  return ((k - root_node - 1 + n->nodes) % n->nodes) % lanes;
}

#endif
