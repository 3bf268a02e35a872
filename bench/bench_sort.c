/* simple-bench sort: the hybrid radix sort (simple_sort_u32/u64, NODES
 * processes x THREADS threads, --algo simple by default) beside the same
 * algorithm written with flat MPI (NODES*THREADS single-threaded ranks) and
 * two single-thread baselines (the radix sort on a 1 x 1 job, and the C
 * library's qsort), in one invocation.
 *
 * The flat MPI side is the SIMPLE algorithm without threads: the same pass
 * plan (MPI_Allreduce of OR/AND to find the bits that vary, digits of at
 * most 11 bits), per pass a local histogram, MPI_Allgather of the
 * histograms (MPI_Allreduce and MPI_Exscan when p 2^11 > 2^16), a scatter that writes the keys
 * staying on the rank straight into place and packs the others per destination as runs (global
 * start, length), MPI_Alltoall of the section sizes and one MPI_Alltoallv, then the runs are copied
 * into place.
 *
 * Keys: uniform pseudo-random (simple_sort_gen_*), n = 2^20 .. 2^26 keys
 * over the whole job (--quick: 2^20; --max-n caps it), 32-bit (--bits 64
 * for 64-bit). Per size every side sorts once and checks the result (the
 * verifier: order inside and across processors, slice sizes, and the
 * multiset hash of all keys before and after; a wrong result fails the
 * run), then times samples of one sort each between barriers, a sample's
 * time being the maximum over processors; the median sample is reported as
 * "R <side> <n> <us>". The driver alternates hybrid and flat MPI round by
 * round, runs the serial baselines once (qsort only up to --qsort-max
 * keys, 2^24 by default: it is slow), and prints per size the median over
 * rounds, keys per second, the ratio mpi/simple (above 1: simple is
 * faster), the speed-up over the serial radix sort and the parallel
 * efficiency (serial time / (time x processors)). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <simple.h>
#include <simple_sort.h>
#include <sort_kernels.h>

#include "bench.h"

#define SMAX_SIZES  8
#define SMAX_ROUNDS 32
#define SDIGIT      11

static const int log_sizes_full[] = {20, 22, 24, 26};
static const int log_sizes_quick[] = {20};

typedef struct {
  int bits, nsizes;
  size_t sizes[SMAX_SIZES];
  size_t qsort_max;
  simple_sort_algo_t algo;
  int quick;
} sw_opts_t;

static void sw_parse(int argc, char **argv, const bench_opts_t *o, sw_opts_t *w) {
  size_t max_n = (size_t)1 << 26;
  memset(w, 0, sizeof *w);
  w->bits = 32;
  w->qsort_max = (size_t)1 << 24;
  w->quick = o->quick;
  for (int i = 1; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--max-n") == 0) max_n = (size_t)strtoull(argv[i + 1], NULL, 10);
    if (strcmp(argv[i], "--bits") == 0) w->bits = atoi(argv[i + 1]) == 64 ? 64 : 32;
    if (strcmp(argv[i], "--qsort-max") == 0) w->qsort_max = (size_t)strtoull(argv[i + 1], NULL, 10);
    if (strcmp(argv[i], "--algo") == 0) simple_sort_algo_parse(argv[i + 1], &w->algo);
  }
  const int *ls = o->quick ? log_sizes_quick : log_sizes_full;
  int nl = o->quick ? (int)(sizeof log_sizes_quick / sizeof *log_sizes_quick)
                    : (int)(sizeof log_sizes_full / sizeof *log_sizes_full);
  for (int k = 0; k < nl; k++)
    if (((size_t)1 << ls[k]) <= max_n) w->sizes[w->nsizes++] = (size_t)1 << ls[k];
  if (w->nsizes == 0) w->sizes[w->nsizes++] = max_n;
}

/* Samples per size: about 1 s (0.3 s with --quick) of sorts, 3 to 9. */
static bench_timed_t timed(void (*call)(void *), void *ctx, int quick) {
  return (bench_timed_t){call, NULL, NULL, ctx, quick ? 0.3 : 1.0, 9};
}

static void gen(int bits, size_t n, size_t first, size_t cnt, void *keys) {
  if (bits == 32)
    simple_sort_gen_u32(SIMPLE_SORT_UNIFORM, 42, n, first, cnt, keys);
  else
    simple_sort_gen_u64(SIMPLE_SORT_UNIFORM, 42, n, first, cnt, keys);
}

/* ------------------------------------------------------------------------
 * Hybrid side (and the serial radix sort: the same worker on 1 x 1). */

typedef struct {
  sw_opts_t w;
  const char *tag;
} shyb_t;

/* Into a buffer allocated once per size, as the flat side does. */
static int hsort(simple_t *s, const shyb_t *a, const void *in, size_t cnt, void *out,
                 size_t *n_out) {
  simple_sort_opts_t so = {a->w.algo, 0, NULL};
  return a->w.bits == 32 ? simple_sort_into_u32(s, in, cnt, out, cnt, n_out, &so)
                         : simple_sort_into_u64(s, in, cnt, out, cnt, n_out, &so);
}

typedef struct {
  simple_t *s;
  const shyb_t *a;
  const void *in;
  size_t cnt;
  void *out;
  size_t n;
} htimed_t;

static void htimed(void *arg) {
  const htimed_t *c = arg;
  size_t n_out;
  int rc = hsort(c->s, c->a, c->in, c->cnt, c->out, &n_out);
  if (rc)
    simple_abort(c->s, "simple-bench sort: n = %zu: sort failed (%s)", c->n, simple_errname(rc));
}

static void shybrid_main(simple_t *s, void *arg) {
  const shyb_t *a = arg;
  int me = simple_pid(s), P = simple_nprocs(s);
  size_t ksz = (size_t)a->w.bits / 8;
  if (me == 0) {
    printf("I layout %d nodes x %d threads\n", simple_nodes(s), simple_threads(s));
    fflush(stdout);
  }
  for (int k = 0; k < a->w.nsizes; k++) {
    size_t n = a->w.sizes[k], lo, cnt, n_out;
    simple_sort_slice(n, P, me, &lo, &cnt);
    void *in = malloc(cnt * ksz + 8), *out = malloc(cnt * ksz + 8);
    if (!in || !out) simple_abort(s, "simple-bench sort: out of memory");
    gen(a->w.bits, n, lo, cnt, in);
    simple_barrier(s);
    int rc = hsort(s, a, in, cnt, out, &n_out), ok = 0;
    if (rc) simple_abort(s, "simple-bench sort: n = %zu: sort failed (%s)", n, simple_errname(rc));
    rc = a->w.bits == 32 ? simple_sort_verify_u32(s, in, cnt, out, n_out, &ok)
                         : simple_sort_verify_u64(s, in, cnt, out, n_out, &ok);
    if (rc || !ok) simple_abort(s, "simple-bench sort: n = %zu: wrong result", n);
    htimed_t c = {s, a, in, cnt, out, n};
    bench_timed_t t = timed(htimed, &c, a->w.quick);
    double med = bench_time_hybrid(s, &t);
    bench_row_out(me, a->tag, (long)n, med);
    free(in);
    free(out);
  }
}

int bench_sort_hybrid(int argc, char **argv, const bench_opts_t *o) {
  shyb_t a;
  sw_parse(argc, argv, o, &a.w);
  a.tag = "simple";
  return simple_run(&argc, &argv, shybrid_main, &a);
}

/* ------------------------------------------------------------------------
 * Serial baselines: the radix sort on one thread (a 1 x 1 job), then qsort. */

static int qcmp32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}
static int qcmp64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static void sserial_main(simple_t *s, void *arg) {
  shyb_t *a = arg;
  shybrid_main(s, a); /* "R radix1 ..." */
  size_t ksz = (size_t)a->w.bits / 8;
  for (int k = 0; k < a->w.nsizes; k++) {
    size_t n = a->w.sizes[k];
    if (n > a->w.qsort_max) continue;
    void *in = malloc(n * ksz), *work = malloc(n * ksz), *out = malloc(n * ksz);
    if (!in || !work || !out) simple_abort(s, "simple-bench sort: out of memory");
    gen(a->w.bits, n, 0, n, in);
    /* Checked against the radix sort's result: two independent sorts. */
    size_t n_out;
    int rc = hsort(s, a, in, n, out, &n_out);
    if (rc) simple_abort(s, "simple-bench sort: radix failed");
    int S = n >= ((size_t)1 << 24) ? 1 : 3;
    double v[4];
    for (int j = 0; j < S; j++) {
      memcpy(work, in, n * ksz);
      double t0 = simple_time();
      qsort(work, n, ksz, a->w.bits == 32 ? qcmp32 : qcmp64);
      v[j] = simple_time() - t0;
    }
    if (memcmp(work, out, n * ksz) != 0)
      simple_abort(s, "simple-bench sort: qsort and radix sort disagree at n = %zu", n);
    double med = bench_median(v, (size_t)S);
    bench_row_out(0, "qsort", (long)n, med);
    free(in);
    free(work);
    free(out);
  }
}

int bench_sort_serial(int argc, char **argv, const bench_opts_t *o) {
  shyb_t a;
  sw_parse(argc, argv, o, &a.w);
  a.w.algo = SIMPLE_SORT_SIMPLE; /* the baseline is the best serial radix sort */
  a.tag = "radix1";
  return simple_run(&argc, &argv, sserial_main, &a);
}

/* ------------------------------------------------------------------------
 * Flat MPI side: the same algorithm, one rank per processor. */

/* The library's own kernels (sort_kernels.h): the same code per key on both sides. */
typedef sort_piece_t fpiece_t;

typedef struct {
  int P, rank, bits;
  size_t ksz, n, q, r, lo, cnt;
  uint64_t *h, *pre, *tot, *table;
  void **cur, **end;
  size_t *next, *pstart;
  int *ptgt;
  fpiece_t *pieces;
  void *buf[2];
  char *sbuf, *rbuf, dummy[64];
  int *sc, *sd, *rc, *rd, *sruns, *skeys;
} flat_t;

static void fdie(int rank, const char *what) {
  fprintf(stderr, "simple-bench sort: MPI rank %d: %s\n", rank, what);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  exit(3);
}

static void fslice(const flat_t *f, int t, size_t *lo, size_t *cnt) {
  simple_sort_slice(f->n, f->P, t, lo, cnt);
}

static int fowner(const flat_t *f, size_t pos) {
  size_t big = f->r * (f->q + 1);
  if (pos < big) return (int)(pos / (f->q + 1));
  return (int)(f->r + (pos - big) / f->q);
}

static void flat_pass(flat_t *f, const void *src, size_t ns, int sh, int w, int nb) {
  size_t R = (size_t)1 << w, ksz = f->ksz, np = 0;
  memset(f->h, 0, R * sizeof(uint64_t));
  if (ksz == 4)
    sort_hist_u32(src, ns, sh, (uint32_t)(R - 1), f->h);
  else
    sort_hist_u64(src, ns, sh, (uint64_t)(R - 1), f->h);
  /* As the library: one allgather of the histograms while the table is
   * small, else an allreduce and an exscan. */
  if (f->table) {
    MPI_Allgather(f->h, (int)R, MPI_UINT64_T, f->table, (int)R, MPI_UINT64_T, MPI_COMM_WORLD);
    memset(f->tot, 0, R * sizeof(uint64_t));
    for (int q = 0; q < f->P; q++) {
      if (q == f->rank) memcpy(f->pre, f->tot, R * sizeof(uint64_t));
      for (size_t v = 0; v < R; v++) f->tot[v] += f->table[(size_t)q * R + v];
    }
  } else {
    MPI_Allreduce(f->h, f->tot, (int)R, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    memset(f->pre, 0, R * sizeof(uint64_t));
    MPI_Exscan(f->h, f->pre, (int)R, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (f->rank == 0) memset(f->pre, 0, R * sizeof(uint64_t));
  }
  uint64_t d = 0;
  for (size_t v = 0; v < R; v++) {
    f->pre[v] += d;
    d += f->tot[v];
  }
  for (size_t v = 0; v < R; v++) {
    f->next[v] = np;
    size_t start = f->pre[v], len = f->h[v];
    while (len > 0) {
      int t = fowner(f, start);
      size_t tlo, tcnt;
      fslice(f, t, &tlo, &tcnt);
      size_t take = tlo + tcnt - start < len ? tlo + tcnt - start : len;
      f->ptgt[np] = t;
      f->pstart[np] = start;
      f->pieces[np++].len = take;
      start += take;
      len -= take;
    }
  }
  memset(f->sruns, 0, sizeof(int) * 2 * (size_t)f->P);
  for (size_t i = 0; i < np; i++)
    if (f->ptgt[i] != f->rank) {
      f->sruns[f->ptgt[i]]++;
      f->skeys[f->ptgt[i]] += (int)f->pieces[i].len;
    }
  size_t at = 0;
  for (int t = 0; t < f->P; t++) {
    f->sd[t] = (int)at;
    f->sc[t] = f->sruns[t] ? (int)(8 + 16 * (size_t)f->sruns[t] + ksz * (size_t)f->skeys[t]) : 0;
    if (f->sruns[t]) {
      uint64_t nr = (uint64_t)f->sruns[t];
      memcpy(f->sbuf + at, &nr, 8);
    }
    f->sruns[t] = 0;
    f->skeys[t] = 0;
    at += (size_t)f->sc[t];
  }
  for (size_t i = 0; i < np; i++) {
    int t = f->ptgt[i];
    if (t == f->rank) {
      f->pieces[i].dst = (char *)f->buf[nb] + (f->pstart[i] - f->lo) * ksz;
    } else {
      char *sec = f->sbuf + f->sd[t];
      uint64_t nr, run[2] = {f->pstart[i], f->pieces[i].len};
      memcpy(&nr, sec, 8);
      memcpy(sec + 8 + 16 * (size_t)f->sruns[t], run, 16);
      f->pieces[i].dst = sec + 8 + 16 * nr + ksz * (size_t)f->skeys[t];
      f->sruns[t]++;
      f->skeys[t] += (int)f->pieces[i].len;
    }
  }
  f->pieces[np].dst = f->dummy;
  f->pieces[np].len = 0;
  for (size_t v = 0; v < R; v++) {
    if (!f->h[v]) continue;
    fpiece_t *p = &f->pieces[f->next[v]++];
    f->cur[v] = p->dst;
    f->end[v] = p->dst + p->len * ksz;
  }
  if (ksz == 4)
    sort_scatter_u32(src, ns, sh, (uint32_t)(R - 1), (uint32_t **)f->cur, (uint32_t **)f->end,
                     f->next, f->pieces);
  else
    sort_scatter_u64(src, ns, sh, (uint64_t)(R - 1), (uint64_t **)f->cur, (uint64_t **)f->end,
                     f->next, f->pieces);
  MPI_Alltoall(f->sc, 1, MPI_INT, f->rc, 1, MPI_INT, MPI_COMM_WORLD);
  at = 0;
  for (int t = 0; t < f->P; t++) {
    f->rd[t] = (int)at;
    at += (size_t)f->rc[t];
  }
  MPI_Alltoallv(f->sbuf, f->sc, f->sd, MPI_BYTE, f->rbuf, f->rc, f->rd, MPI_BYTE, MPI_COMM_WORLD);
  char *mine = f->buf[nb];
  for (int t = 0; t < f->P; t++) {
    if (!f->rc[t]) continue;
    const char *sec = f->rbuf + f->rd[t];
    uint64_t nr;
    memcpy(&nr, sec, 8);
    const char *keys = sec + 8 + 16 * nr;
    for (uint64_t j = 0; j < nr; j++) {
      uint64_t run[2];
      memcpy(run, sec + 8 + 16 * j, 16);
      memcpy(mine + (run[0] - f->lo) * ksz, keys, run[1] * ksz);
      keys += run[1] * ksz;
    }
  }
}

/* Sorts in (f->cnt keys, the balanced layout) and returns the buffer
 * holding the result. */
static void *flat_sort(flat_t *f, const void *in) {
  uint64_t orv = 0, andv = ~(uint64_t)0, b[2], tb[2];
  if (f->ksz == 4) {
    const uint32_t *a = in;
    uint32_t o = 0, x = ~(uint32_t)0;
    for (size_t i = 0; i < f->cnt; i++) o |= a[i], x &= a[i];
    orv = o;
    andv = x;
  } else {
    const uint64_t *a = in;
    for (size_t i = 0; i < f->cnt; i++) orv |= a[i], andv &= a[i];
  }
  b[0] = orv;
  b[1] = ~andv;
  MPI_Allreduce(b, tb, 2, MPI_UINT64_T, MPI_BOR, MPI_COMM_WORLD);
  uint64_t varying = tb[0] ^ ~tb[1];
  int lo_bit = 0, span = 1;
  if (varying) {
    lo_bit = __builtin_ctzll(varying);
    span = 64 - __builtin_clzll(varying) - lo_bit;
  }
  int npass = (span + SDIGIT - 1) / SDIGIT, width = (span + npass - 1) / npass, nb = 0;
  const void *src = in;
  for (int p = 0; p < npass; p++) {
    flat_pass(f, src, f->cnt, lo_bit + p * width, width, nb);
    src = f->buf[nb];
    nb ^= 1;
  }
  return (void *)src;
}

typedef struct {
  flat_t *f;
  const void *in;
} ftimed_t;

static void ftimed(void *arg) {
  ftimed_t *c = arg;
  flat_sort(c->f, c->in);
}

int bench_sort_mpi(int argc, char **argv, const bench_opts_t *o) {
  MPI_Init(&argc, &argv);
  sw_opts_t w;
  sw_parse(argc, argv, o, &w);
  flat_t f;
  memset(&f, 0, sizeof f);
  MPI_Comm_rank(MPI_COMM_WORLD, &f.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &f.P);
  f.bits = w.bits;
  f.ksz = (size_t)w.bits / 8;
  if (f.rank == 0) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    bench_mpi_library(lib, sizeof lib);
    printf("I library %s\nI layout %d ranks\n", lib, f.P);
    fflush(stdout);
  }
  size_t R = (size_t)1 << SDIGIT, P = (size_t)f.P;
  f.h = malloc(3 * R * sizeof(uint64_t));
  f.cur = malloc(2 * R * sizeof(void *));
  f.next = malloc(R * sizeof(size_t));
  f.pstart = malloc((R + P + 2) * sizeof(size_t));
  f.ptgt = malloc((R + P + 2) * sizeof(int));
  f.pieces = malloc((R + P + 2) * sizeof(fpiece_t));
  f.sc = malloc(6 * P * sizeof(int));
  if (P * R <= ((size_t)1 << 16)) f.table = malloc(P * R * sizeof(uint64_t));
  if (!f.h || !f.cur || !f.next || !f.pstart || !f.ptgt || !f.pieces || !f.sc ||
      (P * R <= ((size_t)1 << 16) && !f.table))
    fdie(f.rank, "out of memory");
  f.pre = f.h + R;
  f.tot = f.h + 2 * R;
  f.end = f.cur + R;
  f.sd = f.sc + P;
  f.rc = f.sd + P;
  f.rd = f.rc + P;
  f.sruns = f.rd + P;
  f.skeys = f.sruns + P;
  for (int k = 0; k < w.nsizes; k++) {
    size_t n = w.sizes[k], ksz = f.ksz;
    f.n = n;
    f.q = n / P;
    f.r = n % P;
    fslice(&f, f.rank, &f.lo, &f.cnt);
    if (f.cnt * ksz > INT_MAX / 2) fdie(f.rank, "too many keys per rank for MPI int counts");
    void *in = malloc(f.cnt * ksz + 8);
    f.buf[0] = malloc(f.cnt * ksz + 8);
    f.buf[1] = malloc(f.cnt * ksz + 8);
    size_t runs = f.cnt < R + P ? f.cnt : R + P, rruns = P * R < f.cnt ? P * R : f.cnt;
    f.sbuf = malloc(ksz * f.cnt + 8 * P + 16 * runs + 64);
    f.rbuf = malloc(ksz * f.cnt + 8 * P + 16 * rruns + 64);
    if (!in || !f.buf[0] || !f.buf[1] || !f.sbuf || !f.rbuf) fdie(f.rank, "out of memory");
    gen(w.bits, n, f.lo, f.cnt, in);
    /* Check: order inside, order across ranks, multiset hash. */
    MPI_Barrier(MPI_COMM_WORLD);
    const void *res = flat_sort(&f, in);
    uint64_t hv[2], th[2], first = 0, last = 0, before = 0;
    int good = 1, all;
    if (ksz == 4) {
      const uint32_t *a = res;
      hv[0] = simple_sort_hash_u32(in, f.cnt);
      hv[1] = simple_sort_hash_u32(a, f.cnt);
      for (size_t i = 1; i < f.cnt; i++) good &= a[i - 1] <= a[i];
      if (f.cnt) first = a[0], last = a[f.cnt - 1];
    } else {
      const uint64_t *a = res;
      hv[0] = simple_sort_hash_u64(in, f.cnt);
      hv[1] = simple_sort_hash_u64(a, f.cnt);
      for (size_t i = 1; i < f.cnt; i++) good &= a[i - 1] <= a[i];
      if (f.cnt) first = a[0], last = a[f.cnt - 1];
    }
    MPI_Allreduce(hv, th, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(&last, &before, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (f.rank > 0 && f.cnt && before > first) good = 0;
    if (th[0] != th[1]) good = 0;
    MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) fdie(f.rank, "wrong result");
    ftimed_t c = {&f, in};
    bench_timed_t t = timed(ftimed, &c, w.quick);
    double med = bench_time_flat(&t);
    bench_row_out(f.rank, "mpi", (long)n, med);
    free(in);
    free(f.buf[0]);
    free(f.buf[1]);
    free(f.sbuf);
    free(f.rbuf);
  }
  free(f.h);
  free(f.cur);
  free(f.next);
  free(f.pstart);
  free(f.ptgt);
  free(f.pieces);
  free(f.sc);
  free(f.table);
  MPI_Finalize();
  return 0;
}

/* ------------------------------------------------------------------------
 * The driver. */

enum { S_SIMPLE, S_MPI, S_RADIX1, S_QSORT, S_NSIDES };
static const char *const sside_tag[S_NSIDES] = {"simple", "mpi", "radix1", "qsort"};

/* Rows by key count (bytes = n), sides as sside_tag. */
static bench_row_t srows[SMAX_SIZES];
static bench_table_t stable = {srows, 0, SMAX_SIZES};
static char slib[256];

static int sline(const char *line, void *arg) {
  (void)arg;
  char tag[32];
  size_t n;
  double us;
  if (sscanf(line, "R %31s %zu %lf", tag, &n, &us) == 3) {
    int side = bench_side_of(tag, sside_tag, S_NSIDES);
    if (side >= 0) bench_row_add(bench_row(&stable, "", n), side, us);
    return 1;
  }
  return bench_info(line, "library", slib, sizeof slib) || (line[0] == 'I' && line[1] == ' ');
}

static int srun(const char *cmd) { return bench_run_worker(cmd, sline, NULL); }
static int srun_side(int side, long round, void *cmds) {
  (void)round;
  return srun(((const bench_cmd_t *)cmds)[side]);
}

static void susage(FILE *f) {
  fprintf(f,
          "usage: simple-bench sort [-N NODES] [-t THREADS] [--vcluster] [--quick] [--rounds R]\n"
          "                         [--bits 32|64] [--algo simple|rdx|rdxopt] [--max-n N]\n"
          "                         [--qsort-max N] [--csv FILE]\n");
}

static void print_ms(double us) {
  if (isnan(us))
    printf(" %10s", "-");
  else
    printf(" %10.1f", us / 1e3);
}

int bench_sort_suite(int argc, char **argv) {
  bench_suite_t b = {.T = 2, .rounds = 3};
  long bits = 32, max_n = 1l << 26, qmax = 1l << 24;
  const char *algo = "simple";
  const bench_opt_t opts[] = {{"--bits", BENCH_NUM, &bits, 32, 64, NULL},
                              {"--max-n", BENCH_NUM, &max_n, 1, 1l << 40, NULL},
                              {"--qsort-max", BENCH_NUM, &qmax, 0, 1l << 40, NULL},
                              {"--algo", BENCH_WORD, &algo, 0, 0, NULL},
                              {0}};
  int rc = bench_suite_parse(&b, argc, argv, SMAX_ROUNDS, opts, susage);
  if (rc) return rc < 0 ? 0 : rc;
  simple_sort_algo_t al;
  if (simple_sort_algo_parse(algo, &al) != 0) {
    fprintf(stderr, "simple-bench: --algo must be simple, rdx or rdxopt, not '%s'\n", algo);
    return 2;
  }
  if (bits != 32 && bits != 64) {
    fprintf(stderr, "simple-bench: --bits must be 32 or 64, not %ld\n", bits);
    return 2;
  }
  long N = b.N, T = b.T, rounds = b.rounds, P = N * T;
  int quick = b.quick, vcluster = b.vcluster;
  /* Memory: the hybrid side holds about 5 copies of the keys (input, two
   * buffers, send and receive), all on this host; stay within half of what
   * is available. */
  max_n = bench_fit_memory(max_n, 1l << 20, 5ull * (unsigned long long)bits / 8, 1);
  if (bench_suite_start(&b, P)) return 1;
  FILE *out = b.out;
  int multi = b.pl.multi, pin = b.pl.pin;
  char args[256];
  snprintf(args, sizeof args, "--max-n %ld --bits %ld --qsort-max %ld --algo %s%s", max_n, bits,
           qmax, algo, quick ? " --quick" : "");
  bench_cmd_t cmd[3];
  bench_worker_cmd(cmd[0], sizeof cmd[0], &b.pl, vcluster, BENCH_HYBRID, N, T, "", "sort-hybrid",
                   args);
  bench_worker_cmd(cmd[1], sizeof cmd[1], &b.pl, vcluster, BENCH_FLAT, N, T, "", "sort-mpi", args);
  /* One thread where the hybrid job's first one runs (on this host). */
  bench_worker_cmd(cmd[2], sizeof cmd[2], &b.pl, 0, BENCH_HYBRID, 1, 1, "", "sort-serial", args);
  printf(
      "simple-bench sort: %ld-bit uniform keys; %ld node(s) x %ld thread(s) (simple, --algo "
      "%s) against %ld MPI rank(s) x 1 thread (the same algorithm, MPI_Alltoallv), and one "
      "thread (radix, qsort); %s, %ld round(s)%s\n",
      bits, N, T, algo, P, bench_where(vcluster, multi), rounds, pin ? ", pinned" : "");
  fflush(stdout);
  if (bench_alternate(rounds, 2, srun_side, cmd) != 0) {
    bench_suite_close(&b);
    return 1;
  }
  fprintf(stderr, "  serial baselines\n");
  if (srun(cmd[2]) != 0) {
    bench_suite_close(&b);
    return 1;
  }
  printf("MPI: %s\n", slib[0] ? slib : "unknown library");
  printf("times in ms (median over rounds of the median sample); Mkeys/s = keys / time\n");
  printf("%10s %10s %10s %10s %10s %9s %9s %10s %8s %8s\n", "n", "simple", "mpi", "radix1", "qsort",
         "simple_Mk", "mpi_Mk", "mpi/simple", "speedup", "effic");
  if (out)
    fprintf(out,
            "suite,n,bits,nodes,threads,algo,simple_us,mpi_us,radix1_us,qsort_us,"
            "simple_keys_s,mpi_keys_s,ratio,speedup,efficiency\n");
  for (int i = 0; i < stable.nrows; i++) {
    bench_row_t *r = &srows[i];
    size_t rn = r->bytes;
    double m[S_NSIDES];
    for (int k = 0; k < S_NSIDES; k++) m[k] = bench_row_median(r, k);
    double kh = (double)rn / m[S_SIMPLE], km = (double)rn / m[S_MPI];
    double ratio = m[S_MPI] / m[S_SIMPLE], sp = m[S_RADIX1] / m[S_SIMPLE], eff = sp / (double)P;
    printf("%10zu", rn);
    for (int k = 0; k < S_NSIDES; k++) print_ms(m[k]);
    printf(" %9.1f %9.1f %10.2f %8.2f %8.2f\n", kh, km, ratio, sp, eff);
    if (out)
      fprintf(out, "sort,%zu,%ld,%ld,%ld,%s,%.1f,%.1f,%.1f,%.1f,%.4g,%.4g,%.4f,%.4f,%.4f\n", rn,
              bits, N, T, algo, m[S_SIMPLE], m[S_MPI], m[S_RADIX1], m[S_QSORT], kh * 1e6, km * 1e6,
              ratio, sp, eff);
  }
  printf(
      "mpi/simple > 1: the hybrid sort is faster; speedup = radix1 / simple; effic = speedup /"
      " %ld processors%s\n",
      P, N == 1 ? " (parallel efficiency on one node)" : "");
  if (bench_suite_finish(&b)) return 1;
  return 0;
}
