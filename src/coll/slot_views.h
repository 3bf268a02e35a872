/* Internal: the typed views of a slot's inline data (simple__slot_t.data)
 * that the collectives of src/coll use. A slot's data is written by its
 * thread before a publish and read by the node's other threads after it;
 * each use below has one layout, a header struct whose size and field
 * offsets are pinned by _Static_asserts, and accessors. Fields are moved
 * with memcpy (the data is a byte array: no aliasing of it through another
 * type), which compiles to plain loads and stores. Nothing in src/coll
 * reads or writes slot bytes at an offset of its own: a layout changes
 * here, in one place. Block accessors take a const slot (readers hold the
 * node's slots as const) and return a writable pointer, for the writer.
 *
 * The layouts put what every reader needs first (a count, a flag), in the
 * slot's first data line (which shares the posted line with the sequence
 * number), so a reader touches only the lines it copies from. */
#ifndef SIMPLE_COLL_SLOT_VIEWS_H
#define SIMPLE_COLL_SLOT_VIEWS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "run/job.h"

/* ------------------------------------------------------------------------
 * Plain: the data is one block (a node scan's or reduction's contribution),
 * no header. */
static inline unsigned char *simple__sv_block(const simple__slot_t *s) {
  return (unsigned char *)s->data;
}

/* ------------------------------------------------------------------------
 * Counted: a thread's element count, then its block (allgather(v) on one
 * node; the count is compared with the counts every thread holds). */
typedef struct {
  uint64_t count;
} simple__sv_counted_t;
#define SIMPLE__SV_COUNTED_BLOCK 8 /* the block's offset */
#define SIMPLE__SV_COUNTED_CAP   (SIMPLE__INLINE_BYTES - SIMPLE__SV_COUNTED_BLOCK)
_Static_assert(sizeof(simple__sv_counted_t) == SIMPLE__SV_COUNTED_BLOCK, "counted header");

static inline void simple__sv_counted_put(simple__slot_t *s, size_t count) {
  uint64_t c = count;
  memcpy(s->data, &c, sizeof c);
}
static inline size_t simple__sv_counted_count(const simple__slot_t *s) {
  uint64_t c;
  memcpy(&c, s->data, sizeof c);
  return (size_t)c;
}
static inline unsigned char *simple__sv_counted_block(const simple__slot_t *s) {
  return (unsigned char *)s->data + SIMPLE__SV_COUNTED_BLOCK;
}

/* ------------------------------------------------------------------------
 * All-to-all on one node: the thread's in-place choice, then its p blocks
 * (block j for thread j at j n). */
typedef struct {
  uint8_t in_place;
  uint8_t pad_[7];
} simple__sv_a2a_t;
#define SIMPLE__SV_A2A_BLOCKS 8
#define SIMPLE__SV_A2A_CAP    (SIMPLE__INLINE_BYTES - SIMPLE__SV_A2A_BLOCKS)
_Static_assert(sizeof(simple__sv_a2a_t) == SIMPLE__SV_A2A_BLOCKS, "a2a header");

static inline void simple__sv_a2a_put(simple__slot_t *s, int in_place) {
  s->data[offsetof(simple__sv_a2a_t, in_place)] = (unsigned char)in_place;
}
static inline int simple__sv_a2a_in_place(const simple__slot_t *s) {
  return s->data[offsetof(simple__sv_a2a_t, in_place)];
}
static inline unsigned char *simple__sv_a2a_blocks(const simple__slot_t *s) {
  return (unsigned char *)s->data + SIMPLE__SV_A2A_BLOCKS;
}

/* ------------------------------------------------------------------------
 * All-to-allv on one node of at most SIMPLE__SV_A2AV_THREADS threads: the
 * byte size of each block (16 bits; entry p is SIMPLE__SV_A2AV_NONE when
 * the thread did not pack), the in-place choice, then block j at a fixed
 * place, SIMPLE__SV_A2AV_BLOCKS + j stride, stride = CAP / p, so that a
 * receiver knows where its block is before it has read the header. */
#define SIMPLE__SV_A2AV_THREADS 8 /* the header's sizes have room for 8 threads */
#define SIMPLE__SV_A2AV_NONE    0xffffu
typedef struct {
  uint16_t size[SIMPLE__SV_A2AV_THREADS + 1];
  uint8_t pad_[2];
  uint8_t in_place;
  uint8_t pad2_[3];
} simple__sv_a2av_t;
#define SIMPLE__SV_A2AV_BLOCKS 24
#define SIMPLE__SV_A2AV_CAP    (SIMPLE__INLINE_BYTES - SIMPLE__SV_A2AV_BLOCKS)
_Static_assert(sizeof(simple__sv_a2av_t) == SIMPLE__SV_A2AV_BLOCKS, "a2av header");
_Static_assert(offsetof(simple__sv_a2av_t, in_place) == 20, "a2av in-place flag");

/* Writes the sizes of p blocks (size[p]: 0 or NONE) and the flag. */
static inline void simple__sv_a2av_put(simple__slot_t *s, const uint16_t *size, int p,
                                       int in_place) {
  memcpy(s->data + offsetof(simple__sv_a2av_t, size), size, sizeof(uint16_t) * (size_t)(p + 1));
  s->data[offsetof(simple__sv_a2av_t, in_place)] = (unsigned char)in_place;
}
static inline unsigned simple__sv_a2av_size(const simple__slot_t *s, int j) {
  uint16_t v;
  memcpy(&v, s->data + offsetof(simple__sv_a2av_t, size) + sizeof v * (size_t)j, sizeof v);
  return v;
}
static inline int simple__sv_a2av_in_place(const simple__slot_t *s) {
  return s->data[offsetof(simple__sv_a2av_t, in_place)];
}
static inline unsigned char *simple__sv_a2av_block(const simple__slot_t *s, int j, int p) {
  return (unsigned char *)s->data + SIMPLE__SV_A2AV_BLOCKS +
         (size_t)j * (SIMPLE__SV_A2AV_CAP / (size_t)p);
}

/* The all-to-allv's four arrays of one thread ride in the slot's aux words
 * (the buffers' line), so that its data is free for the packed blocks. */
typedef struct {
  const size_t *sc, *sd, *rc, *rd;
} simple__sv_varrays_t;
_Static_assert(sizeof(simple__sv_varrays_t) == sizeof(((simple__slot_t *)0)->aux),
               "the v arrays are the aux words");
static inline void simple__sv_varrays_put(simple__slot_t *s, const simple__sv_varrays_t *a) {
  memcpy((void *)s->aux, a, sizeof *a);
}
static inline const simple__sv_varrays_t *simple__sv_varrays(const simple__slot_t *s) {
  return (const simple__sv_varrays_t *)(const void *)s->aux;
}

/* ------------------------------------------------------------------------
 * Gather(v)/scatter(v) with several nodes: the root's slot carries the
 * layout of its big buffer (counts and displacements pointers; NULL for
 * the regular forms). */
typedef struct {
  const size_t *counts, *displs;
} simple__sv_rootlayout_t;
_Static_assert(sizeof(simple__sv_rootlayout_t) == 16, "root layout");
static inline void simple__sv_rootlayout_put(simple__slot_t *s, const size_t *counts,
                                             const size_t *displs) {
  simple__sv_rootlayout_t l = {counts, displs};
  memcpy(s->data, &l, sizeof l);
}
static inline simple__sv_rootlayout_t simple__sv_rootlayout(const simple__slot_t *s) {
  simple__sv_rootlayout_t l;
  memcpy(&l, s->data, sizeof l);
  return l;
}

/* ------------------------------------------------------------------------
 * Gatherv/scatterv on one node of at most SIMPLE__SV_ROOTV_THREADS threads:
 * every slot starts with its thread's count; the root's goes on with its
 * displs pointer (for the fallback, during which the root stays in the
 * call), whether it packed, and a copy of the r counts (the root may
 * return while the others still check them). The blocks follow the
 * header, whose size depends on r: block u at hdr + u (cap / r). */
#define SIMPLE__SV_ROOTV_THREADS 8
typedef struct {
  uint64_t count;
  uint64_t pad_;
  const size_t *displs;
  uint64_t packed;
  size_t counts[SIMPLE__SV_ROOTV_THREADS];
} simple__sv_rootv_t;
_Static_assert(offsetof(simple__sv_rootv_t, displs) == 16, "rootv displs");
_Static_assert(offsetof(simple__sv_rootv_t, packed) == 24, "rootv packed flag");
_Static_assert(offsetof(simple__sv_rootv_t, counts) == 32, "rootv counts");

/* The header's size for r threads, where the blocks start. */
static inline size_t simple__sv_rootv_hdr(int r) {
  return offsetof(simple__sv_rootv_t, counts) + sizeof(size_t) * (size_t)r;
}
static inline size_t simple__sv_rootv_cap(int r) {
  return SIMPLE__INLINE_BYTES - simple__sv_rootv_hdr(r);
}
/* Every thread: its count. */
static inline void simple__sv_rootv_put_count(simple__slot_t *s, size_t count) {
  uint64_t c = count;
  memcpy(s->data + offsetof(simple__sv_rootv_t, count), &c, sizeof c);
}
static inline size_t simple__sv_rootv_count(const simple__slot_t *s) {
  uint64_t c;
  memcpy(&c, s->data + offsetof(simple__sv_rootv_t, count), sizeof c);
  return (size_t)c;
}
/* The root: its layout and whether it packed the blocks. */
static inline void simple__sv_rootv_put_root(simple__slot_t *s, const size_t *counts,
                                             const size_t *displs, int r, int packed) {
  uint64_t pk = (uint64_t)packed;
  memcpy(s->data + offsetof(simple__sv_rootv_t, displs), &displs, sizeof displs);
  memcpy(s->data + offsetof(simple__sv_rootv_t, packed), &pk, sizeof pk);
  memcpy(s->data + offsetof(simple__sv_rootv_t, counts), counts, sizeof(size_t) * (size_t)r);
}
static inline int simple__sv_rootv_packed(const simple__slot_t *s) {
  uint64_t pk;
  memcpy(&pk, s->data + offsetof(simple__sv_rootv_t, packed), sizeof pk);
  return pk != 0;
}
static inline const size_t *simple__sv_rootv_displs(const simple__slot_t *s) {
  const size_t *d;
  memcpy(&d, s->data + offsetof(simple__sv_rootv_t, displs), sizeof d);
  return d;
}
static inline void simple__sv_rootv_counts(const simple__slot_t *s, size_t *counts, int r) {
  memcpy(counts, s->data + offsetof(simple__sv_rootv_t, counts), sizeof(size_t) * (size_t)r);
}
/* Block u of r (gather: at every thread's slot, u its own; scatter: at the
 * root's, one per thread). A thread's own block in a gather is block 0 of
 * its slot. */
static inline unsigned char *simple__sv_rootv_block(const simple__slot_t *s, int u, int r) {
  return (unsigned char *)s->data + simple__sv_rootv_hdr(r) +
         (size_t)u * (simple__sv_rootv_cap(r) / (size_t)r);
}

#endif
