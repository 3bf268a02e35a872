/* The exchange engine's lanes (xchg.h): one communicator per thread of the
 * largest node (at most SIMPLE__XCHG_MAX_LANES), taken when the job starts
 * (an open hook: every node at once, before any thread runs) and freed
 * when it ends. Cost: one MPI_Comm_dup per lane per job. */
#include <stdlib.h>

#include "xchg/xchg.h"

#include "run/options.h"

simple__layer_key_t simple__xchg_key;

/* One job at a time runs in a process (simple_run), so the lanes of its
 * one node need no allocation (nothing to fail before the collective
 * duplicates, which every node must make alike). */
static simple__xchg_lanes_t lanes;

static int lanes_open(simple__node_t *n) {
  simple__xchg_lanes_t *L = &lanes;
  int want = 1, rc = 0;
  for (int k = 0; k < n->nodes; k++)
    if (n->threads_of[k] > want) want = n->threads_of[k];
  if (want > SIMPLE__XCHG_MAX_LANES) want = SIMPLE__XCHG_MAX_LANES;
  L->n = 0;
  for (int l = 0; l < want; l++) {
    simple__comm_t *c = NULL;
    int r = simple__comm_dup(n, &c);
    if (r && !rc) rc = r;
    if (c) L->lane[L->n++] = c;
  }
  /* The signature's tag bits above bit 15 (simple__xchg_sig_tag): the
   * largest power of two of 0x8000-wide ranges under MPI_TAG_UB (16 bits
   * at most: a tag is a positive int). */
  long long ranges = L->n ? ((long long)simple__comm_tag_ub(L->lane[0]) + 1) >> 15 : 1;
  for (L->sig_hi_bits = 0; ranges >= 2 && L->sig_hi_bits < 16; L->sig_hi_bits++) ranges >>= 1;
  /* Between nodes on one host messages go whole, unless
   * SIMPLE_SEGMENT_ONE_HOST=1 cuts them as between hosts (so that tests
   * of several nodes on one host reach the segments' paths). */
  L->one_host_seg = simple__env_long("SIMPLE_SEGMENT_ONE_HOST", 0) == 1 ? SIMPLE__XCHG_SEG_BYTES
                                                                        : SIMPLE__XCHG_ONE_HOST_SEG;
  /* Several lanes even where threads share cores, with
   * SIMPLE_LANES_SHARED=1 (so that tests on this machine reach the paths
   * of several drivers; simple__xchg_lanes). */
  n->lanes_shared = simple__env_long("SIMPLE_LANES_SHARED", 0) == 1;
  *simple__layer_slot(n, &simple__xchg_key) = L;
  n->lanes = L->n;
  return rc;
}

static void lanes_close(simple__node_t *n) {
  void **slot = simple__layer_slot(n, &simple__xchg_key);
  simple__xchg_lanes_t *L = *slot;
  simple__xchg_room_release(); /* the layer's other job-long state (room.c) */
  if (!L) return;
  for (int l = 0; l < L->n; l++) simple__comm_free(&L->lane[l]);
  L->n = 0;
  *slot = NULL;
  n->lanes = 0;
}

__attribute__((constructor)) static void register_hooks(void) {
  static const simple__layer_hooks_t h = {"xchg", lanes_open, lanes_close};
  if (simple__layer_hooks(&h) != 0) abort(); /* a build error: more layers than slots */
}
