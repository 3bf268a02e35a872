/* pardo ranges, distribution descriptors and their queries: arithmetic
 * only, no communication. Every query is O(1) but simple_dist_owners,
 * which is O(P). */
#include <limits.h>
#include <stdint.h>

#include "dist/dist.h"

/* ------------------------------------------------------------------------
 * Block-cyclic sets. */

void simple__axis_init(simple__axis_t *a, long n, int np, simple_kind_t kind, long b) {
  a->n = n;
  a->np = np;
  a->cyc = kind != SIMPLE_BLOCK;
  if (kind == SIMPLE_CYCLIC) b = 1;
  /* A block of n or more gives everything to part 0, as a block of n does;
   * clamping keeps b * np from overflowing. */
  if (b > n) b = n;
  a->b = b < 1 ? 1 : b;
  a->q = n / np;
  a->rem = n % np;
}

static long block_lo(const simple__axis_t *a, int t) {
  return (long)t * a->q + (t < a->rem ? t : a->rem);
}

int simple__axis_owner(const simple__axis_t *a, long g) {
  if (a->cyc) return (int)((g / a->b) % a->np);
  long big = a->rem * (a->q + 1);
  if (g < big) return (int)(g / (a->q + 1));
  return (int)(a->rem + (g - big) / a->q);
}

long simple__axis_local(const simple__axis_t *a, long g) {
  if (a->cyc) return (g / (a->b * a->np)) * a->b + g % a->b;
  return g - block_lo(a, simple__axis_owner(a, g));
}

long simple__axis_count(const simple__axis_t *a, int t) {
  if (!a->cyc) return a->q + (t < a->rem);
  long cycle = a->b * a->np, full = a->n / cycle, rest = a->n - full * cycle - (long)t * a->b;
  return full * a->b + (rest < 0 ? 0 : rest > a->b ? a->b : rest);
}

long simple__axis_run_end(const simple__axis_t *a, long g) {
  if (!a->cyc) {
    int o = simple__axis_owner(a, g);
    return block_lo(a, o) + simple__axis_count(a, o);
  }
  long e = (g / a->b + 1) * a->b;
  return e < a->n ? e : a->n;
}

void simple__axis_range(const simple__axis_t *a, int t, simple_range_t *r) {
  long c = simple__axis_count(a, t);
  r->count = c;
  if (!a->cyc) {
    r->lo = block_lo(a, t);
    r->hi = r->lo + c;
    r->stride = r->block = c > 0 ? c : 1;
    return;
  }
  long lo = (long)t * a->b;
  r->lo = lo < a->n ? lo : a->n;
  r->hi = a->n;
  r->block = a->b;
  r->stride = a->b * a->np;
}

/* ------------------------------------------------------------------------
 * Ranges. */

static void empty(simple_range_t *r, long lo) {
  r->lo = r->hi = lo;
  r->stride = r->block = 1;
  r->count = 0;
}

static int kind_ok(simple_kind_t kind, long block) {
  if (kind == SIMPLE_BLOCK || kind == SIMPLE_CYCLIC) return 1;
  return kind == SIMPLE_BLOCK_CYCLIC && block >= 1;
}

int simple_range_part(long lo, long hi, simple_kind_t kind, long block, int nparts, int part,
                      simple_range_t *out) {
  if (!out) return SIMPLE_ERR_ARG;
  empty(out, lo);
  if (!kind_ok(kind, block)) return SIMPLE_ERR_ARG;
  if (nparts < 1 || part < 0 || part >= nparts) return SIMPLE_ERR_RANK;
  if (hi <= lo) return 0;
  /* hi - lo must fit a long; so must the cycle b * nparts, which the
   * clamp of b to the extent keeps below n * nparts. */
  if (lo < 0 && hi > LONG_MAX + lo) return SIMPLE_ERR_COUNT;
  long n = hi - lo;
  if (n > LONG_MAX / ((long)nparts + 1)) return SIMPLE_ERR_COUNT;
  simple__axis_t a;
  simple__axis_init(&a, n, nparts, kind, block);
  simple__axis_range(&a, part, out);
  out->lo += lo;
  out->hi += lo;
  return 0;
}

static int parts_of(const simple_t *s, simple_over_t over, int *np, int *me) {
  switch (over) {
    case SIMPLE_OVER_THREADS:
      *np = simple_nprocs(s);
      *me = simple_pid(s);
      return 0;
    case SIMPLE_OVER_NODE:
      *np = simple_threads(s);
      *me = simple_thread(s);
      return 0;
    case SIMPLE_OVER_NODES:
      *np = simple_nodes(s);
      *me = simple_node(s);
      return 0;
  }
  return SIMPLE_ERR_ARG;
}

int simple_pardo_range(const simple_t *s, long lo, long hi, simple_over_t over, simple_kind_t kind,
                       long block, simple_range_t *out) {
  if (out) empty(out, lo);
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  int np, me;
  if (parts_of(s, over, &np, &me)) return SIMPLE_ERR_ARG;
  return simple_range_part(lo, hi, kind, block, np, me, out);
}

/* ------------------------------------------------------------------------
 * Descriptors. */

simple_dist_t simple_dist_1d(long n, simple_kind_t kind, long block, simple_over_t over) {
  return simple_dist_2d(n, 1, SIMPLE_ROWS, kind, block, over);
}

simple_dist_t simple_dist_2d(long rows, long cols, simple_axis_t axis, simple_kind_t kind,
                             long block, simple_over_t over) {
  return (simple_dist_t){
      .rows = rows, .cols = cols, .axis = axis, .kind = kind, .block = block, .over = over};
}

int simple__layout(const simple_t *s, const simple_dist_t *d, simple__layout_t *l) {
  int np, me;
  if (!d || d->rows < 0 || d->cols < 0) return SIMPLE_ERR_ARG;
  if (d->axis != SIMPLE_ROWS && d->axis != SIMPLE_COLS) return SIMPLE_ERR_ARG;
  if (!kind_ok(d->kind, d->block) || parts_of(s, d->over, &np, &me)) return SIMPLE_ERR_ARG;
  /* Every product of an index and a part count, or of the two extents,
   * must fit a long (and the storage a size_t). */
  long big = d->rows > d->cols ? d->rows : d->cols;
  if (big > LONG_MAX / ((long)np + 1)) return SIMPLE_ERR_COUNT;
  if (d->cols && d->rows > LONG_MAX / d->cols) return SIMPLE_ERR_COUNT;
  l->dim = d->axis == SIMPLE_ROWS ? 0 : 1;
  l->np = np;
  simple__axis_init(&l->ax[l->dim], l->dim ? d->cols : d->rows, np, d->kind, d->block);
  simple__axis_init(&l->ax[1 - l->dim], l->dim ? d->rows : d->cols, 1, SIMPLE_BLOCK, 1);
  /* A leading dimension holds the longest local row (block: the first
   * part's; cyclic kinds: part 0 holds the most), and the storage it
   * spans, rows ld, fits a long. */
  l->ld = d->ld;
  if (d->ld < 0 || (d->ld > 0 && d->ld < simple__layout_cols(l, 0))) return SIMPLE_ERR_ARG;
  if (d->ld > 0 && d->rows > LONG_MAX / d->ld) return SIMPLE_ERR_COUNT;
  return 0;
}

long simple__layout_rows(const simple__layout_t *l, int t) {
  return l->dim == 0 ? simple__axis_count(&l->ax[0], t) : l->ax[0].n;
}

long simple__layout_cols(const simple__layout_t *l, int t) {
  return l->dim == 1 ? simple__axis_count(&l->ax[1], t) : l->ax[1].n;
}

long simple__layout_ld(const simple__layout_t *l, int t) {
  return l->ld ? l->ld : simple__layout_cols(l, t);
}

int simple_dist_parts(const simple_t *s, const simple_dist_t *d) {
  simple__layout_t l;
  if (!SIMPLE__IN_JOB(s) || simple__layout(s, d, &l)) return -1;
  return l.np;
}

int simple_dist_my_part(const simple_t *s, const simple_dist_t *d) {
  int np, me;
  if (!SIMPLE__IN_JOB(s) || !d || parts_of(s, d->over, &np, &me)) return -1;
  return me;
}

/* The queries' common checks: a caller in the job, an answer to write
 * (out), a valid descriptor (its layout into l). */
static int query(const simple_t *s, const simple_dist_t *d, const void *out, simple__layout_t *l) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  return !out ? SIMPLE_ERR_ARG : simple__layout(s, d, l);
}

int simple_dist_domain(const simple_t *s, const simple_dist_t *d, int part, simple_domain_t *out) {
  simple__layout_t l;
  int err = query(s, d, out, &l);
  if (err) return err;
  if (part < 0 || part >= l.np) return SIMPLE_ERR_RANK;
  simple__axis_range(&l.ax[0], l.dim == 0 ? part : 0, &out->row);
  simple__axis_range(&l.ax[1], l.dim == 1 ? part : 0, &out->col);
  out->local_rows = out->row.count;
  out->local_cols = out->col.count;
  out->ld = simple__layout_ld(&l, part);
  return 0;
}

int simple_dist_owner(const simple_t *s, const simple_dist_t *d, long i, long j, int *part,
                      long *li, long *lj) {
  simple__layout_t l;
  int err = query(s, d, part, &l);
  if (err) return err;
  if (i < 0 || i >= d->rows || j < 0 || j >= d->cols) return SIMPLE_ERR_RANK;
  long g[2] = {i, j};
  *part = simple__axis_owner(&l.ax[l.dim], g[l.dim]);
  if (li) *li = simple__axis_local(&l.ax[0], i);
  if (lj) *lj = simple__axis_local(&l.ax[1], j);
  return 0;
}

int simple_dist_owners(const simple_t *s, const simple_dist_t *d, long r0, long r1, long c0,
                       long c1, int *parts, int max, int *count) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  if (!count || (max > 0 && !parts)) return SIMPLE_ERR_ARG;
  *count = 0;
  simple__layout_t l;
  int err = simple__layout(s, d, &l);
  if (err) return err;
  if (r0 < 0 || c0 < 0 || r1 > d->rows || c1 > d->cols) return SIMPLE_ERR_RANK;
  if (r1 <= r0 || c1 <= c0) return 0;
  const simple__axis_t *a = &l.ax[l.dim];
  long lo = l.dim ? c0 : r0, hi = l.dim ? c1 : r1;
  int first = simple__axis_owner(a, lo), k;
  if (!a->cyc) {
    /* Block: the owners are the consecutive parts from lo's to (hi-1)'s,
     * none of them empty in between. */
    k = simple__axis_owner(a, hi - 1) - first + 1;
  } else if (hi - lo >= a->b * a->np) {
    first = 0; /* a whole cycle: every part */
    k = a->np;
  } else {
    /* Less than a cycle: the runs visit consecutive parts (mod np), each
     * at most once. */
    k = 0;
    for (long g = lo; g < hi; g = simple__axis_run_end(a, g)) k++;
    /* A window that starts and ends inside blocks of the same part visits
     * it twice. */
    if (k > a->np) k = a->np;
  }
  /* Increasing order: the w parts that wrapped past np - 1 come first. */
  int w = first + k > a->np ? first + k - a->np : 0;
  for (int j = 0; j < k && j < max; j++) parts[j] = j < w ? j : first + j - w;
  *count = k;
  return 0;
}
