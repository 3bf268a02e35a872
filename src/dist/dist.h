/* Internal to src/dist: the arithmetic of block-cyclic sets, the per-node
 * state of the layer, and the node-level exchange engine shared by the
 * redistributions. */
#ifndef SIMPLE_DIST_DIST_H
#define SIMPLE_DIST_DIST_H

#include <stdatomic.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/size.h"
#include "base/sync.h"
#include "net/net_comm.h"
#include "node/node_sync.h"
#include "run/job.h"
#include "simple/dist.h"
#include "xchg/xchg.h"

/* One dimension of n indices dealt out to np parts. Every kind is
 * block-cyclic underneath (cyclic: b = 1); block keeps its own balanced
 * formula (q or q + 1 each), which block-cyclic cannot express. An axis
 * that is not dealt out is one part owning everything (np = 1, block). */
typedef struct {
  long n;
  int np;
  int cyc;     /* block-cyclic (and cyclic) */
  long b;      /* block-cyclic block, clamped to [1, max(n, 1)] */
  long q, rem; /* block: n / np, n % np */
} simple__axis_t;

void simple__axis_init(simple__axis_t *a, long n, int np, simple_kind_t kind, long b);
/* Part of index g (0 <= g < n). */
int simple__axis_owner(const simple__axis_t *a, long g);
/* Local index of g at its owner. */
long simple__axis_local(const simple__axis_t *a, long g);
/* Indices part t owns. */
long simple__axis_count(const simple__axis_t *a, int t);
/* The end of the run of consecutive indices owned by g's owner that g
 * starts: indices [g, end) have one owner and consecutive local indices. */
long simple__axis_run_end(const simple__axis_t *a, long g);
/* Part t's set as a range. */
void simple__axis_range(const simple__axis_t *a, int t, simple_range_t *r);

/* A validated descriptor: the row and column axes (one of them one part)
 * and the part count. Returns 0 or SIMPLE_ERR_ARG. */
typedef struct {
  simple__axis_t ax[2]; /* [0] rows, [1] columns */
  int dim;              /* the dealt-out dimension: 0 rows, 1 columns */
  int np;
  long ld; /* the descriptor's leading dimension; 0: each part's row length */
} simple__layout_t;
int simple__layout(const simple_t *s, const simple_dist_t *d, simple__layout_t *l);
/* Local storage of part t: rows, row length, and the distance in
 * elements from one local row to the next (the leading dimension). */
long simple__layout_rows(const simple__layout_t *l, int t);
long simple__layout_cols(const simple__layout_t *l, int t);
long simple__layout_ld(const simple__layout_t *l, int t);

/* ------------------------------------------------------------------------
 * Per-node state (simple__node_t.dist), created by thread 0 of the node
 * inside the first call and freed by an at-close hook. Buffers only grow.
 * Everything is touched inside collective calls only.
 *
 * A redistribution over per-thread storage returns without a closing
 * barrier: a thread may still unpack (reading its work list, the size
 * table, its message offsets and the messages) while thread 0 is already
 * in the next call. So thread 0 grows before a call's first barrier only
 * what the threads use before its second, the work lists and the size
 * table, in the set of the call's parity (s->call & 1 before the first
 * barrier, which advances s->call by one: the set comes round again only
 * after another node call that every thread entered); the requests it
 * grows after the first barrier, which every thread reaches only once
 * done with the call before, and there it asks src/xchg for the room the
 * messages go in (shared with the other exchanges, under the same rule).
 * A call that repeats a kept plan grows nothing: thread 0 asks for the
 * room before the first barrier (its bytes are written only after it)
 * and hands it out with the plan in its slot.
 * The h-relation's buffers: thread 0 grows the count arrays before its
 * call's first barrier, each thread its own packing buffer (hrel.c). */
typedef struct {
  int r;
  /* by call parity, per thread: work lists of the redistribution builder */
  simple__buf_t *work[2];
  /* by call parity, node: piece sizes, out[r][p] and in[r][p] (bytes) */
  simple__buf_t tab[2];
  /* per thread: h-relation packing, counts of the h-relation (6 p size_t) */
  simple__buf_t *pack, *cnt;
  /* per thread: MPI requests of a driver (req_room: simple__xchg_post's
   * bound each way, for the call's messages), then the thread's message
   * sizes and offsets (4 P words) */
  simple__buf_t *reqs;
  size_t req_room;
  /* node: the messages, out then in, in src/xchg's room (thread 0 asks
   * for it between the first and second barrier, the others read this
   * after the second; for a kept plan before the first, read after it) */
  unsigned char *msg;
  /* node: the next node-local piece to copy (a work queue, reset by thread
   * 0 before the call's first barrier, done with before its fourth) */
  atomic_int next;
  /* thread 0, during a redistribution on more nodes than carry the
   * verdict in band (src/xchg): the job-wide vote in flight (net_comm.h);
   * here rather than in the call's frame, so that a call cut short by a
   * failed job (SIMPLE_ERR_FATAL) leaves no MPI request writing into a
   * returned frame */
  simple__comm_vote_t vote;
  /* thread 0 -> the others, where the verdict travels in band and so
   * comes after the sends (redist.c): the call's verdict, published by a
   * bump of verdict_gen, and the nodes that failed (for the drivers) */
  atomic_uint verdict_gen, verdict_sleepers;
  int verdict_rc;
  unsigned char failed[SIMPLE__XCHG_INBAND_NODES];
  /* the drivers -> thread 0, in band: where each node's first message
   * lands among its driver's requests (simple__xchg_t's carrier) */
  int carrier[SIMPLE__XCHG_INBAND_NODES];
  /* thread 0: the redistributions planned last on several nodes (redist.c,
   * SIMPLE__DIST_PLANS of them, replaced in turn): a call that repeats one
   * takes its piece sizes from here and skips sizing them, and the node
   * barrier after it */
  struct simple__dist_plan *plans;
  int plan_next;
} simple__dist_t;

/* The plans' cache of a node state: how many, and freeing them (redist.c). */
#define SIMPLE__DIST_PLANS 4
void simple__dist_plans_free(simple__dist_t *d);

/* The node's state (created on first use, by any thread), or NULL when out
 * of memory; simple__dist_of reads it once created. */
simple__dist_t *simple__dist_state(simple_t *s);
extern simple__layer_key_t simple__dist_key;
static inline simple__dist_t *simple__dist_of(simple__node_t *n) {
  return *simple__layer_slot(n, &simple__dist_key);
}

#endif
