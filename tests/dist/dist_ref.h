/* A serial reference of the distributions, written from their definition
 * in include/simple/dist.h and independent of src/dist: who owns global
 * index g, where it is stored, and how many indices a part holds, by
 * brute force over the indices where a formula would repeat the
 * library's. */
#ifndef SIMPLE_TEST_DIST_REF_H
#define SIMPLE_TEST_DIST_REF_H

#include "harness.h"

/* Owner of g among np parts for n indices. */
static inline int ref_owner(long n, int np, simple_kind_t kind, long b, long g) {
  if (kind == SIMPLE_CYCLIC) return (int)(g % np);
  if (kind == SIMPLE_BLOCK_CYCLIC) return (int)((g / b) % np);
  /* Block: the first n mod np parts hold floor(n/np) + 1 indices. */
  long start = 0;
  for (int t = 0; t < np; t++) {
    long len = n / np + (t < n % np ? 1 : 0);
    if (g < start + len) return t;
    start += len;
  }
  return -1;
}

/* Local index of g at its owner: how many indices before g it owns. */
static inline long ref_local(long n, int np, simple_kind_t kind, long b, long g) {
  int o = ref_owner(n, np, kind, b, g);
  long c = 0;
  if (kind == SIMPLE_BLOCK) {
    for (long x = g - 1; x >= 0 && ref_owner(n, np, kind, b, x) == o; x--) c++;
    return c;
  }
  /* Cyclic forms: whole cycles before g, then the offset within its block. */
  long bb = kind == SIMPLE_CYCLIC ? 1 : b;
  return (g / (bb * np)) * bb + g % bb;
}

static inline long ref_count(long n, int np, simple_kind_t kind, long b, int t) {
  long c = 0;
  for (long g = 0; g < n; g++) c += ref_owner(n, np, kind, b, g) == t;
  return c;
}

/* A distribution described for the reference: shape, axis, kind, block. */
typedef struct {
  long rows, cols;
  int axis; /* 0 rows, 1 columns */
  simple_kind_t kind;
  long b;
  int np;
  long ld; /* local leading dimension; 0: the local row length */
} ref_dist_t;

/* Tables of one distribution, built once per case: owner and local index
 * of every row (axis 0) or column (axis 1), and local storage extents. */
typedef struct {
  ref_dist_t d;
  int *own;  /* [n along the axis] */
  long *loc; /* [n along the axis] */
  long *cnt; /* [np] */
} ref_tab_t;

static inline void ref_tab_init(ref_tab_t *t, ref_dist_t d) {
  long n = d.axis ? d.cols : d.rows;
  t->d = d;
  t->own = malloc(sizeof(int) * (size_t)(n + 1));
  t->loc = malloc(sizeof(long) * (size_t)(n + 1));
  t->cnt = calloc((size_t)d.np, sizeof(long));
  /* Block: positions by counting; cyclic forms: the reference formula. */
  for (long g = 0; g < n; g++) {
    t->own[g] = ref_owner(n, d.np, d.kind, d.b, g);
    t->loc[g] = d.kind == SIMPLE_BLOCK ? t->cnt[t->own[g]] : ref_local(n, d.np, d.kind, d.b, g);
    t->cnt[t->own[g]]++;
  }
}

static inline void ref_tab_free(ref_tab_t *t) {
  free(t->own);
  free(t->loc);
  free(t->cnt);
}

/* Local storage extents of part `part`. */
static inline long ref_lrows(const ref_tab_t *t, int part) {
  return t->d.axis ? t->d.rows : t->cnt[part];
}
static inline long ref_lcols(const ref_tab_t *t, int part) {
  return t->d.axis ? t->cnt[part] : t->d.cols;
}

/* The distance from one local row to the next in part's storage. */
static inline long ref_ld(const ref_tab_t *t, int part) {
  return t->d.ld ? t->d.ld : ref_lcols(t, part);
}

/* Elements from the first of part's storage to its last (gaps included). */
static inline long ref_extent(const ref_tab_t *t, int part) {
  long r = ref_lrows(t, part), c = ref_lcols(t, part);
  return r && c ? (r - 1) * ref_ld(t, part) + c : 0;
}

/* Where global element (i, j) lives: its owner, and its offset (elements)
 * in the owner's local storage. */
static inline int ref_where(const ref_tab_t *t, long i, long j, long *off) {
  if (t->d.axis == 0) {
    int o = t->own[i];
    *off = t->loc[i] * ref_ld(t, o) + j;
    return o;
  }
  int o = t->own[j];
  *off = i * ref_ld(t, o) + t->loc[j];
  return o;
}

static inline simple_dist_t ref_to_dist(ref_dist_t d) {
  simple_dist_t x;
  x.rows = d.rows;
  x.cols = d.cols;
  x.axis = d.axis ? SIMPLE_COLS : SIMPLE_ROWS;
  x.kind = d.kind;
  x.block = d.b;
  x.over = SIMPLE_OVER_THREADS;
  x.ld = d.ld;
  return x;
}

#endif
