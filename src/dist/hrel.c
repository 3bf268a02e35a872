/* The h-relation personalized communication (paper 000, section 4,
 * "Permutation"): every element carries its destination thread. Counts
 * are announced with one alltoall, the elements packed by destination and
 * moved with one alltoallv, then (with indices) scattered into place.
 *
 * Buffers: the per-thread count arrays (10 p words) and the packing
 * buffer live in the node's dist state and are reused from call to call;
 * thread 0 grows the count arrays under the call's first node barrier,
 * each thread its own packing buffer (its failure is caught by the
 * job-wide verdict that precedes any data movement). */
#include <stdint.h>
#include <string.h>

#include "dist/dist.h"
#include "simple/coll.h"
#include "simple/dist.h"

/* size_t as a datatype of the library. */
#define SIZE_TYPE (sizeof(size_t) == 8 ? SIMPLE_UINT64 : SIMPLE_UINT32)

/* Copies one element of es bytes; the common sizes as single moves. */
static inline void put(unsigned char *d, const unsigned char *s, size_t es) {
  switch (es) {
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    case 16: memcpy(d, s, 16); break;
    default: memcpy(d, s, es);
  }
}

/* Bytes per destination q (c[q] = n[2 q] records of rec bytes, as an
 * announcement holds them) and their displacements, in order. */
static void by_destination(const size_t *n, int p, size_t rec, size_t *c, size_t *d) {
  size_t at = 0;
  for (int q = 0; q < p; q++) {
    c[q] = n[2 * q] * rec;
    d[q] = at;
    at += c[q];
  }
}

/* The checks that need the announcement (got: per source, its count for
 * this thread and, at 2 q + 1, thread q's capacity): room at the receiver
 * (the receiver checks its total; senders check their indices against
 * their destinations' capacities), then the packing buffer (send bytes,
 * plus the incoming records with indices). Returns the thread's error. */
static int check_room(simple__buf_t *pack, const size_t *got, int p, size_t count, size_t rec,
                      const int *dest, const size_t *index, void *recv, size_t capacity,
                      size_t bytes, size_t *total) {
  size_t in_bytes = 0, need = bytes;
  *total = 0;
  for (int q = 0; q < p; q++)
    if (simple__size_add(total, got[2 * q])) return SIMPLE_ERR_COUNT;
  if (!index && *total > capacity) return SIMPLE_ERR_COUNT;
  if (*total && !recv) return SIMPLE_ERR_NULL;
  for (size_t e = 0; index && e < count; e++)
    if (index[e] >= got[2 * (size_t)dest[e] + 1]) return SIMPLE_ERR_RANK;
  if (simple__size_mul(*total, rec, &in_bytes) || in_bytes > (size_t)PTRDIFF_MAX ||
      (index && simple__size_add(&need, in_bytes)))
    return SIMPLE_ERR_COUNT;
  return simple__buf_grow(pack, need) ? SIMPLE_ERR_NOMEM : 0;
}

/* Packs by destination (records of [index] element), in element order
 * within a destination, so that the permutation is stable; pos[q] starts
 * at destination q's displacement. */
static void pack(unsigned char *pk, const unsigned char *src, size_t count, size_t es, size_t rec,
                 const int *dest, const size_t *index, size_t *pos) {
  for (size_t e = 0; e < count; e++) {
    unsigned char *d = pk + pos[dest[e]];
    if (index) memcpy(d, &index[e], sizeof(size_t));
    put(d + (index ? sizeof(size_t) : 0), src + e * es, es);
    pos[dest[e]] += rec;
  }
}

int simple_hrelation(simple_t *s, const void *send, size_t count, size_t es, const int *dest,
                     const size_t *index, void *recv, size_t capacity, size_t *received) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  simple__node_t *n = s->node;
  int p = n->nprocs, me = s->thread, rc;
  size_t rec = es + (index ? sizeof(size_t) : 0), bytes = 0;
  if (received) *received = 0;

  /* Local checks; their verdict waits for the job-wide vote below, so that
   * every thread still takes part in the announcement. */
  int err = 0;
  if (es == 0)
    err = SIMPLE_ERR_ARG;
  else if (simple__size_mul(count, rec, &bytes) || bytes > (size_t)PTRDIFF_MAX)
    err = SIMPLE_ERR_COUNT;
  else if (count && (!send || !dest))
    err = SIMPLE_ERR_NULL;
  for (size_t e = 0; e < count && !err; e++)
    if (dest[e] < 0 || dest[e] >= p) err = SIMPLE_ERR_RANK;

  /* Thread 0 sizes every thread's count arrays; a failure there is the
   * node's (the publish hands it to every thread). */
  int err0 = 0;
  if (me == 0) {
    simple__dist_t *st = simple__dist_state(s);
    if (!st) err0 = SIMPLE_ERR_NOMEM;
    for (int t = 0; t < n->threads && !err0; t++)
      if (simple__buf_grow(&st->cnt[t], 10 * (size_t)p * sizeof(size_t))) err0 = SIMPLE_ERR_NOMEM;
  }
  if (!simple__node_publish(s, NULL, NULL, NULL, 0, err0, &rc)) return rc;
  simple__dist_t *st = simple__dist_of(n);
  size_t *ann = st->cnt[me].p, *got = ann + 2 * (size_t)p, *sc = got + 2 * (size_t)p, *sd = sc + p,
         *rcn = sd + p, *rd = rcn + p, *pos = rd + p;

  /* Counts per destination, announced with this thread's capacity. */
  for (int q = 0; q < p; q++) ann[2 * q] = 0;
  for (int q = 0; q < p; q++) ann[2 * q + 1] = capacity;
  if (!err)
    for (size_t e = 0; e < count; e++) ann[2 * (size_t)dest[e]]++;
  if ((rc = simple_alltoall(s, ann, got, 2, SIZE_TYPE))) return rc;
  size_t total = 0;
  if (!err)
    err = check_room(&st->pack[me], got, p, count, rec, dest, index, recv, capacity, bytes, &total);
  if (received) *received = total;

  /* One verdict for the whole job before anything moves. */
  int32_t bad = err != 0, any = 0;
  if ((rc = simple_allreduce(s, &bad, &any, 1, SIMPLE_INT32, SIMPLE_MAX))) return rc;
  if (any) return err ? err : SIMPLE_ERR_PEER;

  unsigned char *pk = st->pack[me].p, *in = index ? pk + bytes : recv;
  by_destination(ann, p, rec, sc, sd);
  memcpy(pos, sd, (size_t)p * sizeof *pos);
  pack(pk, send, count, es, rec, dest, index, pos);
  by_destination(got, p, rec, rcn, rd);
  if ((rc = simple_alltoallv(s, pk, sc, sd, in, rcn, rd, SIMPLE_BYTE))) return rc;

  /* Into place. */
  for (size_t e = 0; index && e < total; e++) {
    size_t idx;
    memcpy(&idx, in + e * rec, sizeof(size_t));
    put((unsigned char *)recv + idx * es, in + e * rec + sizeof(size_t), es);
  }
  return 0;
}
