/* One redistribution case checked against the serial reference: every
 * thread fills its local source storage (placed by the reference) with a
 * function of the global element, calls the library, and checks every
 * element of its local destination storage against the element that
 * should have arrived there, plus guard bytes around it and an unchanged
 * source. */
#ifndef SIMPLE_TEST_REDIST_CHECK_H
#define SIMPLE_TEST_REDIST_CHECK_H

#include "dist_ref.h"

/* OP_REMOTE: simple_redistribute_remote, whose destination keeps its old
 * bytes where the source element is held on the caller's node. */
enum { OP_REDIST, OP_TRANSPOSE, OP_SHIFT, OP_REMOTE };

#define GUARD 32

/* Byte `k` of global source element (i, j). */
static inline unsigned char elem_byte(long i, long j, size_t k, int salt) {
  return (unsigned char)(i * 131 + j * 7 + (long)k * 29 + salt * 17 + 3);
}

/* bynode: both distributions over the nodes, storage node-shared
 * (simple_node_malloc), filled by thread 0 and checked by every thread. */
static void redist_case_ex(simple_t *s, int op, ref_dist_t ds, ref_dist_t dd, size_t es, long k,
                           int salt, int bynode) {
  int me = bynode ? simple_node(s) : simple_pid(s);
  ds.np = dd.np = bynode ? simple_nodes(s) : simple_nprocs(s);
  ref_tab_t ts, td;
  ref_tab_init(&ts, ds);
  ref_tab_init(&td, dd);
  size_t ns = (size_t)ref_extent(&ts, me), nd = (size_t)ref_extent(&td, me);
  unsigned char *src, *dst, *sref = malloc(ns * es + 1);
  void *sp0 = NULL, *dp0 = NULL;
  if (bynode) {
    CHECK_OK(simple_node_malloc(s, ns * es + 2 * GUARD, &sp0));
    CHECK_OK(simple_node_malloc(s, nd * es + 2 * GUARD, &dp0));
    src = sp0;
    dst = dp0;
  } else {
    src = malloc(ns * es + 2 * GUARD);
    dst = malloc(nd * es + 2 * GUARD);
  }
  CHECK(src && sref && dst);
  int filler = !bynode || simple_thread(s) == 0;
  if (filler) {
    memset(src, 0x5A, ns * es + 2 * GUARD);
    memset(dst, 0xA5, nd * es + 2 * GUARD);
  }
  for (long i = 0; i < ds.rows && filler; i++)
    for (long j = 0; j < ds.cols; j++) {
      long off;
      if (ref_where(&ts, i, j, &off) != me) continue;
      for (size_t b = 0; b < es; b++) src[GUARD + (size_t)off * es + b] = elem_byte(i, j, b, salt);
    }
  if (bynode) CHECK_OK(simple_node_barrier(s));
  memcpy(sref, src + GUARD, ns * es);
  simple_dist_t xs = ref_to_dist(ds), xd = ref_to_dist(dd);
  if (bynode) xs.over = xd.over = SIMPLE_OVER_NODES;
  /* NULL for empty local storage is allowed. */
  const void *sp = ns ? src + GUARD : NULL;
  void *dp = nd ? dst + GUARD : NULL;
  int rc = op == OP_REDIST      ? simple_redistribute(s, sp, &xs, dp, &xd, es)
           : op == OP_REMOTE    ? simple_redistribute_remote(s, sp, &xs, dp, &xd, es)
           : op == OP_TRANSPOSE ? simple_transpose(s, sp, &xs, dp, &xd, es)
                                : simple_shift(s, sp, &xs, dp, &xd, k, es);
  if (rc != 0)
    simple_abort(s, "op %d %ldx%ld axis %d/%d kind %d/%d b %ld/%ld es %zu: %s", op, ds.rows,
                 ds.cols, ds.axis, dd.axis, ds.kind, dd.kind, ds.b, dd.b, es, simple_errname(rc));
  long nr = ds.rows;
  for (long i = 0; i < dd.rows; i++)
    for (long j = 0; j < dd.cols; j++) {
      long off;
      if (ref_where(&td, i, j, &off) != me) continue;
      /* The source element that lands on (i, j). */
      long si = i, sj = j;
      if (op == OP_TRANSPOSE) si = j, sj = i;
      if (op == OP_SHIFT) si = (((i - k) % nr) + nr) % nr;
      /* Remote only: an element whose source part is on this node stays
       * (its owner from the reference's layout, not the library's). */
      long soff;
      int owner = op == OP_REMOTE ? ref_where(&ts, si, sj, &soff) : -1;
      int stays = op == OP_REMOTE && (bynode ? owner : simple_node_of(s, owner)) == simple_node(s);
      for (size_t b = 0; b < es; b++)
        if (dst[GUARD + (size_t)off * es + b] != (stays ? 0xA5 : elem_byte(si, sj, b, salt)))
          simple_abort(s,
                       "op %d %ldx%ld axis %d->%d kind %d->%d b %ld->%ld es %zu k %ld: element "
                       "(%ld, %ld) wrong",
                       op, ds.rows, ds.cols, ds.axis, dd.axis, ds.kind, dd.kind, ds.b, dd.b, es, k,
                       i, j);
    }
  for (size_t g = 0; g < GUARD; g++) {
    CHECK_EQ(dst[g], 0xA5);
    CHECK_EQ(dst[GUARD + nd * es + g], 0xA5);
  }
  /* The gaps after each local row (a leading dimension above the row
   * length) are neither written nor, in the source, changed. */
  long dld = ref_ld(&td, me), dcols = ref_lcols(&td, me);
  for (size_t e = 0; e < nd; e++)
    if ((long)e % dld >= dcols)
      for (size_t b = 0; b < es; b++)
        if (dst[GUARD + e * es + b] != 0xA5)
          simple_abort(s, "op %d %ldx%ld ld %ld: destination gap element %zu written", op, dd.rows,
                       dd.cols, dd.ld, e);
  CHECK(memcmp(src + GUARD, sref, ns * es) == 0);
  if (bynode) {
    CHECK_OK(simple_node_barrier(s)); /* everyone has checked */
    CHECK_OK(simple_node_free(s, sp0));
    CHECK_OK(simple_node_free(s, dp0));
  } else {
    free(src);
    free(dst);
  }
  free(sref);
  ref_tab_free(&ts);
  ref_tab_free(&td);
}

static void redist_case(simple_t *s, int op, ref_dist_t ds, ref_dist_t dd, size_t es, long k,
                        int salt) {
  redist_case_ex(s, op, ds, dd, es, k, salt, 0);
}

/* A rows -> columns redistribution (both in blocks) of a rows x cols
 * array of es-byte elements in which the last thread passes a NULL
 * destination: SIMPLE_ERR_NULL there, SIMPLE_ERR_PEER everywhere else,
 * nobody's destination written (the other nodes had posted their
 * receives before the verdict came, and must take them back); then the
 * same call with every argument right moves every element (no receive of
 * the first call is left to catch its messages). */
static inline void redist_called_off(simple_t *s, long rows, long cols, size_t es) {
  int last = simple_pid(s) == simple_nprocs(s) - 1;
  simple_dist_t dr = simple_dist_2d(rows, cols, SIMPLE_ROWS, SIMPLE_BLOCK, 1, SIMPLE_OVER_THREADS);
  simple_dist_t dc = simple_dist_2d(rows, cols, SIMPLE_COLS, SIMPLE_BLOCK, 1, SIMPLE_OVER_THREADS);
  simple_domain_t mr, mc;
  CHECK_OK(simple_dist_domain(s, &dr, simple_pid(s), &mr));
  CHECK_OK(simple_dist_domain(s, &dc, simple_pid(s), &mc));
  size_t ns = (size_t)(mr.local_rows * cols) * es, nd = (size_t)(rows * mc.local_cols) * es;
  unsigned char *a = malloc(ns + 1), *b = malloc(nd + 1);
  CHECK(a && b);
  for (long i = 0; i < mr.local_rows; i++)
    for (long j = 0; j < cols; j++)
      for (size_t k = 0; k < es; k++)
        a[((size_t)(i * cols + j)) * es + k] = elem_byte(mr.row.lo + i, j, k, 0);
  memset(b, 0xA5, nd);
  CHECK_RC(simple_redistribute(s, a, &dr, last ? NULL : b, &dc, es),
           last ? SIMPLE_ERR_NULL : SIMPLE_ERR_PEER);
  for (size_t k = 0; k < nd; k++)
    if (b[k] != 0xA5) simple_abort(s, "called-off redistribution wrote byte %zu", k);
  CHECK_OK(simple_redistribute(s, a, &dr, b, &dc, es));
  for (long i = 0; i < rows; i++)
    for (long j = 0; j < mc.local_cols; j++)
      for (size_t k = 0; k < es; k++)
        if (b[((size_t)(i * mc.local_cols + j)) * es + k] != elem_byte(i, mc.col.lo + j, k, 0))
          simple_abort(s, "element (%ld, %ld) wrong after a called-off redistribution", i,
                       mc.col.lo + j);
  free(a);
  free(b);
}

/* The distributions every case draws from. */
static const struct {
  int axis;
  simple_kind_t kind;
  long b;
} redist_kinds[] = {
    {0, SIMPLE_BLOCK, 1}, {0, SIMPLE_CYCLIC, 1}, {0, SIMPLE_BLOCK_CYCLIC, 3},
    {1, SIMPLE_BLOCK, 1}, {1, SIMPLE_CYCLIC, 1}, {1, SIMPLE_BLOCK_CYCLIC, 2},
};
#define REDIST_NKINDS (sizeof redist_kinds / sizeof redist_kinds[0])

static inline ref_dist_t redist_dist(long rows, long cols, size_t kind) {
  ref_dist_t d = {
      rows, cols, redist_kinds[kind].axis, redist_kinds[kind].kind, redist_kinds[kind].b, 1, 0};
  return d;
}

/* The same with a leading dimension `extra` elements above the longest
 * local row among np parts (part 0's, as the reference counts it). */
static inline ref_dist_t redist_dist_ld(long rows, long cols, size_t kind, long extra, int np) {
  ref_dist_t d = redist_dist(rows, cols, kind);
  d.ld = (d.axis ? ref_count(cols, np, d.kind, d.b, 0) : cols) + extra;
  return d;
}

#endif
