/* simple-bench fft: the hybrid 2D FFT (simple_fft2d, NODES processes x
 * THREADS threads) beside FFTW's own MPI 2D transform (fftw_mpi_plan_dft_2d)
 * in one invocation, on the same sizes and the same data:
 *   - flat:    NODES*THREADS single-threaded MPI ranks (one per thread);
 *   - threads: NODES ranks, each running FFTW's threads (THREADS of them),
 *              when libfftw3_threads is there.
 * The faster FFTW-MPI variant at each size is the anchor. FFTW-MPI plans
 * with FFTW_MEASURE (--patient: FFTW_PATIENT), simple's 1D plans with
 * FFTW_MEASURE; planning is not timed.
 *
 * Both sides transform an n x n array of double complex distributed by
 * rows (test array simple_fft2d_elem(1, i, j)), forward, out of place,
 * with the output in natural order ("natural": two transposes) and left
 * transposed ("transposed": FFTW_MPI_TRANSPOSED_OUT, one transpose). Per
 * size and mode: one transform verified against direct sums at a few
 * output elements, Parseval's identity and the round trip through the
 * backward transform (a wrong result fails the job), then samples of one
 * transform each between barriers (the input restored before each, since
 * FFTW-MPI may overwrite it, and on simple's side too, which does not:
 * so that both sides start a sample alike, their input just written and
 * in cache); a sample's time is the maximum over
 * processors, the median sample is reported as "R <mode> <n> <us>". The
 * driver alternates the sides round by round and prints the median over
 * rounds of each side's median, GFLOP/s (5 n^2 log2(n^2) / t) and the
 * ratio anchor/simple (above 1: simple is faster).
 *
 * The simple side's job also times FFTW-MPI itself, run by each node's
 * first thread (same_job), its samples alternating with simple's: the
 * columns same_ms and same/simple, a comparison that separate jobs, which
 * the machine may treat differently, cannot skew; and same_thr/simple,
 * FFTW-MPI on the node's threads, which share the cores simple's threads
 * share. */
#include <complex.h>
#include <errno.h>
#include <fftw3.h>
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

#include "bench.h"
#include "simple_fft.h"

#ifdef SIMPLE_HAVE_FFTW_MPI
#include <fftw3-mpi.h>
#endif

typedef double _Complex cplx;

#define MAX_SIZES  12
#define MAX_ROUNDS 32
#define NSIDES     3
#define TOL        1e-10
#define TWO_PI     6.283185307179586476925286766559
#define PROBES     6

enum { SIDE_SIMPLE, SIDE_FLAT, SIDE_THREADS };
/* A row's other columns, from the simple side's job: FFTW-MPI timed in it
 * (the faster of one FFTW thread and the node's threads), the median of
 * its samples' ratios to simple's, and the same two for FFTW on the
 * node's threads. */
enum { COL_SAME = NSIDES, COL_SAME_RATIO, COL_SAME_THR, COL_SAME_THR_RATIO };

static const long sizes_full[] = {256, 512, 1000, 1024, 2048, 4096};
static const long sizes_quick[] = {256, 512, 1024};
static const char *const modes[2] = {"natural", "transposed"};

static int worker_sizes(int argc, char **argv, const bench_opts_t *o, const long **list) {
  *list = o->quick ? sizes_quick : sizes_full;
  return bench_sizes_upto(*list, o->quick ? LEN(sizes_quick) : LEN(sizes_full),
                          bench_arg_long(argc, argv, "--max-n", 4096));
}

/* Samples per size: about 1 s (0.3 s with --quick) of transforms, 3 to 15
 * (7 with --quick). */
static bench_timed_t timed(void (*call)(void *), void (*prepare)(void *), void *ctx, int quick) {
  return (bench_timed_t){call, prepare, NULL, ctx, quick ? 0.3 : 1.0, quick ? 7 : 15};
}

/* ------------------------------------------------------------------------
 * Simple side. */

typedef struct {
  simple_t *s;
  simple_fft2d_t *p;
  cplx *in;
  cplx *out;
  const cplx *orig; /* the input, restored before each sample as FFTW's is */
  size_t len;
} hyb_call_t;

static void hyb_execute(void *arg) {
  hyb_call_t *c = arg;
  int rc = simple_fft2d_execute(c->s, c->p, c->in, c->out);
  if (rc) simple_abort(c->s, "simple-bench fft: execute: %s", simple_errname(rc));
}

/* Each thread its own rows: what FFTW's restore does on its side. */
static void hyb_restore(void *arg) {
  hyb_call_t *c = arg;
  memcpy(c->in, c->orig, sizeof(cplx) * c->len);
}

#ifdef SIMPLE_HAVE_FFTW_MPI
static void same_job(simple_t *s, int argc, char **argv, long n, int mode,
                     const bench_timed_t *mine);
#endif

static void simple_side(simple_t *s, void *arg) {
  const bench_args_t *a = arg;
  const long *sizes;
  int ns = worker_sizes(a->argc, a->argv, a->o, &sizes), me = simple_pid(s);
  if (me == 0) {
    printf("I layout %d nodes x %d threads\n", simple_nodes(s), simple_threads(s));
    fflush(stdout);
  }
  for (int k = 0; k < ns; k++)
    for (int mode = 0; mode < 2; mode++) {
      long n = sizes[k], rows_in, rows_out;
      if (simple_fft2d_local(s, n, n, 0, &rows_in, NULL) ||
          simple_fft2d_local(s, n, n, mode, &rows_out, NULL))
        simple_abort(s, "simple-bench fft: local sizes");
      size_t lin = (size_t)(rows_in * n), lout = (size_t)(rows_out * n);
      cplx *in = fftw_malloc(sizeof(cplx) * (lin + 1)),
           *out = fftw_malloc(sizeof(cplx) * (lout + 1));
      cplx *back = fftw_malloc(sizeof(cplx) * (lin + 1));
      cplx *orig = fftw_malloc(sizeof(cplx) * (lin + 1));
      if (!in || !out || !back || !orig)
        simple_abort(s, "simple-bench fft: n = %ld: out of memory", n);
      if (simple_fft2d_fill(s, n, n, 0, 1, in)) simple_abort(s, "simple-bench fft: fill");
      simple_fft2d_t *p = NULL, *undo = NULL;
      unsigned flags = SIMPLE_FFT_MEASURE | (mode ? SIMPLE_FFT_TRANSPOSED_OUT : 0);
      int rc = simple_fft2d_plan(s, n, n, SIMPLE_FFT_FORWARD, flags, &p);
      if (rc == 0) rc = simple_fft2d_execute(s, p, in, out);
      double probe = 1, parseval = 1, rt = 1;
      if (rc == 0) rc = simple_fft2d_check(s, p, in, out, &probe, &parseval);
      if (rc == 0)
        rc = simple_fft2d_plan(
            s, n, n, SIMPLE_FFT_BACKWARD,
            SIMPLE_FFT_ESTIMATE | SIMPLE_FFT_NORMALIZE | (mode ? SIMPLE_FFT_TRANSPOSED_IN : 0),
            &undo);
      if (rc == 0) rc = simple_fft2d_execute(s, undo, out, back);
      if (rc == 0) rc = simple_fft2d_relerr(s, back, in, lin, &rt);
      if (rc) simple_abort(s, "simple-bench fft: n = %ld: %s", n, simple_errname(rc));
      if (!(probe < TOL && parseval < TOL && rt < TOL))
        simple_abort(s,
                     "simple-bench fft: n = %ld %s: wrong result (probes %.2e, Parseval %.2e,"
                     " round trip %.2e)",
                     n, modes[mode], probe, parseval, rt);
      simple_fft2d_destroy(undo);
      fftw_free(back);
      memcpy(orig, in, sizeof(cplx) * lin);
      hyb_call_t c = {s, p, in, out, orig, lin};
      bench_timed_t t = timed(hyb_execute, hyb_restore, &c, a->o->quick);
      double med = bench_time_hybrid(s, &t);
      bench_row_out(me, modes[mode], n, med);
#ifdef SIMPLE_HAVE_FFTW_MPI
      same_job(s, a->argc, a->argv, n, mode, &t);
#endif
      simple_fft2d_destroy(p);
      fftw_free(in);
      fftw_free(out);
      fftw_free(orig);
    }
}

int bench_fft_simple(int argc, char **argv, const bench_opts_t *o) {
  bench_args_t a = {argc, argv, o};
  return simple_run(&argc, &argv, simple_side, &a);
}

/* ------------------------------------------------------------------------
 * FFTW-MPI side. */

#ifdef SIMPLE_HAVE_FFTW_MPI
/* The anchor's planner rigor, from a worker's command line (--patient). */
static unsigned anchor_rigor(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--patient") == 0) return FFTW_PATIENT;
  return FFTW_MEASURE;
}

/* FFTW-MPI's input: rows [lo, lo + rows) of the test array, n wide, as
 * simple's side fills its own (simple_fft2d_fill). */
static void anchor_input(cplx *orig, ptrdiff_t lo, ptrdiff_t rows, long n) {
  for (ptrdiff_t li = 0; li < rows; li++)
    for (long j = 0; j < n; j++) orig[li * n + j] = simple_fft2d_elem(1, lo + li, j);
}

static void mpi_fail(int rank, long n, const char *what) {
  fprintf(stderr, "simple-bench fft: MPI rank %d: n = %ld: %s\n", rank, n, what);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  exit(3);
}

static cplx twiddle(long k, long len) {
  double a = TWO_PI * (double)(k % len) / (double)len;
  return cos(a) - sin(a) * I; /* forward: e^{-2 pi I k / len} */
}

/* out = forward 2D FFT of in (n x n, rows [lo, lo + rows) here; out in
 * natural order with rows [olo, olo + orows), or transposed): checks a few
 * outputs against direct sums, and Parseval. Returns the worse error. */
static double anchor_check(const cplx *in, long lo, long rows, const cplx *out, long olo,
                           long orows, long n, int transposed) {
  long k1s[PROBES] = {0, n - 1, n / 2, 1 % n, 0, n / 3};
  long k2s[PROBES] = {0, n - 1, n / 2, 0, 1 % n, (2 * n) / 7};
  double v[4 * PROBES + 2], g[4 * PROBES + 2];
  memset(v, 0, sizeof v);
  cplx *tw = malloc(sizeof(cplx) * (size_t)n * PROBES);
  if (!tw) mpi_fail(0, n, "out of memory");
  for (int k = 0; k < PROBES; k++)
    for (long j = 0; j < n; j++) tw[k * n + j] = twiddle(k2s[k] * j, n);
  for (long li = 0; li < rows; li++) {
    const cplx *row = in + li * n;
    for (long j = 0; j < n; j++) v[4 * PROBES] += creal(row[j] * conj(row[j]));
    for (int k = 0; k < PROBES; k++) {
      cplx acc = 0;
      for (long j = 0; j < n; j++) acc += row[j] * tw[k * n + j];
      acc *= twiddle(k1s[k] * (lo + li), n);
      v[2 * k] += creal(acc);
      v[2 * k + 1] += cimag(acc);
    }
  }
  for (long li = 0; li < orows; li++)
    for (long j = 0; j < n; j++)
      v[4 * PROBES + 1] += creal(out[li * n + j] * conj(out[li * n + j]));
  for (int k = 0; k < PROBES; k++) {
    long r = transposed ? k2s[k] : k1s[k], c = transposed ? k1s[k] : k2s[k];
    if (r >= olo && r < olo + orows) {
      v[2 * PROBES + 2 * k] = creal(out[(r - olo) * n + c]);
      v[2 * PROBES + 2 * k + 1] = cimag(out[(r - olo) * n + c]);
    }
  }
  free(tw);
  MPI_Allreduce(v, g, 4 * PROBES + 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double nn = (double)n * (double)n, rms = sqrt(g[4 * PROBES + 1] / nn), worst = 0;
  for (int k = 0; k < PROBES; k++) {
    double e = cabs((g[2 * PROBES + 2 * k] + g[2 * PROBES + 2 * k + 1] * I) -
                    (g[2 * k] + g[2 * k + 1] * I)) /
               rms;
    if (!(e <= worst)) worst = e;
  }
  double want = g[4 * PROBES] * nn, pe = fabs(g[4 * PROBES + 1] - want) / want;
  return pe > worst || isnan(pe) ? pe : worst;
}
#endif

#ifdef SIMPLE_HAVE_FFTW_MPI
/* FFTW-MPI in the hybrid job: each node's thread 0 runs it over the nodes
 * (MPI_COMM_WORLD: one process a node) with one FFTW thread, then with
 * the node's threads as FFTW's threads where FFTW has threads, the node's
 * other threads waiting in the job barrier, on the same data as simple's
 * transform. Its samples alternate with simple's
 * (bench_time_hybrid_paired), so that both meet the machine in the same
 * state, which separate jobs need not ("S mode n us ratio [thr_us
 * thr_ratio]": the faster variant's median and the median of its
 * samples' ratios, its time over simple's; then the threaded variant's,
 * where it ran). Checked first as the anchor's jobs check theirs. FFTW's
 * planner is not thread-safe and keeps its thread count for every later
 * plan: planning runs under simple_fft_lock with the count set back to
 * one, so that simple's own 1D plans stay single-threaded. */
typedef struct {
  simple_t *s;
  fftw_plan p;
  cplx *in;
  const cplx *orig;
  size_t len;
} same_call_t;

static void same_execute(void *arg) {
  same_call_t *c = arg;
  if (simple_thread(c->s) == 0) fftw_execute(c->p);
}

static void same_restore(void *arg) {
  same_call_t *c = arg;
  if (simple_thread(c->s) == 0) memcpy(c->in, c->orig, sizeof(cplx) * c->len);
}

static void same_job(simple_t *s, int argc, char **argv, long n, int mode,
                     const bench_timed_t *mine) {
  same_call_t c = {s, NULL, NULL, NULL, 0};
  fftw_plan plans[2] = {NULL, NULL}; /* one FFTW thread; the node's threads */
  cplx *out = NULL, *orig = NULL;
  if (simple_thread(s) == 0) {
    static int ready;
    ptrdiff_t n0, lo, n1, lo1;
    simple_fft_lock();
    if (!ready) {
      fftw_mpi_init();
#ifdef SIMPLE_HAVE_FFTW_THREADS
      if (!fftw_init_threads()) simple_abort(s, "simple-bench fft: FFTW cannot start threads");
#endif
      ready = 1;
    }
    ptrdiff_t alloc = fftw_mpi_local_size_2d_transposed(n, n, MPI_COMM_WORLD, &n0, &lo, &n1, &lo1);
    c.len = (size_t)(n0 * n);
    size_t room = (size_t)(alloc > 0 ? alloc : 1);
    c.in = fftw_malloc(sizeof(cplx) * room);
    out = fftw_malloc(sizeof(cplx) * room);
    orig = fftw_malloc(sizeof(cplx) * room);
    if (!c.in || !out || !orig) simple_abort(s, "simple-bench fft: n = %ld: out of memory", n);
    unsigned flags = anchor_rigor(argc, argv) | (mode ? FFTW_MPI_TRANSPOSED_OUT : 0);
    for (int k = 0; k < 2; k++) {
#ifdef SIMPLE_HAVE_FFTW_THREADS
      fftw_plan_with_nthreads(k ? simple_threads(s) : 1);
#else
      if (k) break;
#endif
      if (k && simple_threads(s) == 1) break;
      plans[k] = fftw_mpi_plan_dft_2d(n, n, (fftw_complex *)c.in, (fftw_complex *)out,
                                      MPI_COMM_WORLD, FFTW_FORWARD, flags);
      if (!plans[k]) simple_abort(s, "simple-bench fft: n = %ld: FFTW-MPI cannot plan", n);
    }
#ifdef SIMPLE_HAVE_FFTW_THREADS
    fftw_plan_with_nthreads(1);
#endif
    simple_fft_unlock();
    c.p = plans[0];
    anchor_input(orig, lo, n0, n);
    c.orig = orig;
    same_restore(&c);
    fftw_execute(c.p);
    double err = anchor_check(orig, lo, n0, out, mode ? lo1 : lo, mode ? n1 : n0, n, mode);
    if (!(err < TOL))
      simple_abort(s, "simple-bench fft: n = %ld %s: FFTW-MPI in the job: wrong result (%.2e)", n,
                   modes[mode], err);
  }
  /* One FFTW thread, then (where FFTW has threads and the node more than
   * one) the node's threads, each paired with simple's transform; the
   * faster is "same", the threaded one also "same_thr" (FFTW on the
   * threads simple runs: where threads share cores, the same sharing).
   * Every processor gets the same times, so the same choice. */
  bench_timed_t theirs = {same_execute, same_restore, NULL, &c, mine->budget, mine->most};
  int more = simple_threads(s) > 1; /* the bench's nodes all have T threads */
#ifndef SIMPLE_HAVE_FFTW_THREADS
  more = 0;
#endif
  double med_mine, med[2] = {NAN, NAN}, ratio[2] = {NAN, NAN};
  for (int k = 0; k < 1 + more; k++) {
    if (simple_thread(s) == 0) c.p = plans[k];
    bench_time_hybrid_paired(s, mine, &theirs, &med_mine, &med[k], &ratio[k]);
  }
  int best = more && med[1] < med[0];
  if (simple_pid(s) == 0) {
    printf("S %s %ld %.3f %.4f", modes[mode], n, 1e6 * med[best], ratio[best]);
    if (more) printf(" %.3f %.4f", 1e6 * med[1], ratio[1]);
    printf("\n");
    fflush(stdout);
  }
  if (simple_thread(s) == 0) {
    simple_fft_lock();
    for (int k = 0; k < 2; k++)
      if (plans[k]) fftw_destroy_plan(plans[k]);
    simple_fft_unlock();
    fftw_free(c.in);
    fftw_free(out);
    fftw_free(orig);
  }
}

/* A timed FFTW-MPI transform: its input restored before each (FFTW may
 * overwrite it), untimed. */
typedef struct {
  fftw_plan p;
  cplx *in;
  const cplx *orig;
  size_t len;
} flat_call_t;

static void flat_execute(void *arg) { fftw_execute(((flat_call_t *)arg)->p); }

static void flat_restore(void *arg) {
  flat_call_t *c = arg;
  memcpy(c->in, c->orig, sizeof(cplx) * c->len);
}
#endif

int bench_fft_fftw(int argc, char **argv, const bench_opts_t *o) {
#ifndef SIMPLE_HAVE_FFTW_MPI
  (void)argc;
  (void)argv;
  (void)o;
  /* No MPI here: the first process of the job says it, once. */
  const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
    if (getenv(vars[i]) && atoi(getenv(vars[i])) != 0) return 0;
  printf(
      "N FFTW-MPI is not in this build (needs libfftw3-mpi built for the same MPI):"
      " the anchor is skipped\n");
  return 0;
#else
  int threads = 1;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--fftw-threads") == 0 && i + 1 < argc) threads = atoi(argv[i + 1]);
  int rank, P;
  if (threads > 1) {
#ifdef SIMPLE_HAVE_FFTW_THREADS
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED || !fftw_init_threads())
      mpi_fail(0, 0, "no threads for FFTW");
#else
    MPI_Init(&argc, &argv);
    mpi_fail(0, 0, "libfftw3_threads is not in this build");
#endif
  } else {
    MPI_Init(&argc, &argv);
  }
  fftw_mpi_init();
#ifdef SIMPLE_HAVE_FFTW_THREADS
  if (threads > 1) fftw_plan_with_nthreads(threads);
#endif
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (rank == 0) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    bench_mpi_library(lib, sizeof lib);
    printf("I library %s\nI fftw %s\nI layout %d ranks x %d FFTW threads\n", lib, fftw_version, P,
           threads);
    fflush(stdout);
  }
  const long *sizes;
  int ns = worker_sizes(argc, argv, o, &sizes);
  unsigned rigor = anchor_rigor(argc, argv);
  for (int k = 0; k < ns; k++)
    for (int mode = 0; mode < 2; mode++) {
      long n = sizes[k];
      ptrdiff_t n0, lo, n1, lo1;
      ptrdiff_t alloc =
          fftw_mpi_local_size_2d_transposed(n, n, MPI_COMM_WORLD, &n0, &lo, &n1, &lo1);
      size_t len = (size_t)(alloc > 0 ? alloc : 1);
      cplx *in = fftw_malloc(sizeof(cplx) * len), *out = fftw_malloc(sizeof(cplx) * len);
      cplx *orig = fftw_malloc(sizeof(cplx) * len), *back = fftw_malloc(sizeof(cplx) * len);
      if (!in || !out || !orig || !back) mpi_fail(rank, n, "out of memory");
      unsigned tflag = mode ? FFTW_MPI_TRANSPOSED_OUT : 0;
      /* Planning (MEASURE overwrites the arrays) before the data. */
      fftw_plan p = fftw_mpi_plan_dft_2d(n, n, (fftw_complex *)in, (fftw_complex *)out,
                                         MPI_COMM_WORLD, FFTW_FORWARD, rigor | tflag);
      fftw_plan undo =
          fftw_mpi_plan_dft_2d(n, n, (fftw_complex *)out, (fftw_complex *)back, MPI_COMM_WORLD,
                               FFTW_BACKWARD, FFTW_ESTIMATE | (mode ? FFTW_MPI_TRANSPOSED_IN : 0));
      if (!p || !undo) mpi_fail(rank, n, "FFTW cannot plan");
      anchor_input(orig, lo, n0, n);
      memcpy(in, orig, sizeof(cplx) * (size_t)(n0 * n));
      fftw_execute(p);
      double err = anchor_check(orig, lo, n0, out, mode ? lo1 : lo, mode ? n1 : n0, n, mode);
      fftw_execute(undo);
      double d2 = 0, b2 = 0, sums[2], nn = (double)n * (double)n;
      for (ptrdiff_t i = 0; i < n0 * n; i++) {
        cplx d = back[i] / nn - orig[i];
        d2 += creal(d * conj(d));
        b2 += creal(orig[i] * conj(orig[i]));
      }
      double loc[2] = {d2, b2};
      MPI_Allreduce(loc, sums, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      double rt = sqrt(sums[0] / sums[1]);
      if (!(err < TOL && rt < TOL)) {
        char what[128];
        snprintf(what, sizeof what, "%s: wrong result (check %.2e, round trip %.2e)", modes[mode],
                 err, rt);
        mpi_fail(rank, n, what);
      }
      fftw_destroy_plan(undo);
      flat_call_t c = {p, in, orig, (size_t)(n0 * n)};
      bench_timed_t t = timed(flat_execute, flat_restore, &c, o->quick);
      double med = bench_time_flat(&t);
      bench_row_out(rank, modes[mode], n, med);
      fftw_destroy_plan(p);
      fftw_free(in);
      fftw_free(out);
      fftw_free(orig);
      fftw_free(back);
    }
  fftw_mpi_cleanup();
  MPI_Finalize();
  return 0;
#endif
}

/* ------------------------------------------------------------------------
 * The driver. */

/* Rows: op "natural" or "transposed" (mode 0, 1), bytes = n. */
static bench_row_t frows[2 * MAX_SIZES];
static bench_table_t ftable = {frows, 0, 2 * MAX_SIZES};
static char flib[256], ffftw[128];

typedef struct {
  int side, round, skipped;
} frun_t;

static int fline(const char *line, void *arg) {
  frun_t *c = arg;
  char mode[32];
  long n;
  double us, ratio, thr_us, thr_ratio;
  int got;
  if (sscanf(line, "R %31s %ld %lf", mode, &n, &us) == 3 && n > 0) {
    bench_row_add(
        bench_row(&ftable, strcmp(mode, "transposed") == 0 ? "transposed" : "natural", (size_t)n),
        c->side, us);
  } else if ((got = sscanf(line, "S %31s %ld %lf %lf %lf %lf", mode, &n, &us, &ratio, &thr_us,
                           &thr_ratio)) >= 4 &&
             n > 0) {
    bench_row_t *r =
        bench_row(&ftable, strcmp(mode, "transposed") == 0 ? "transposed" : "natural", (size_t)n);
    bench_row_add(r, COL_SAME, us);
    bench_row_add(r, COL_SAME_RATIO, ratio);
    if (got == 6) {
      bench_row_add(r, COL_SAME_THR, thr_us);
      bench_row_add(r, COL_SAME_THR_RATIO, thr_ratio);
    }
  } else if (bench_info(line, "library", flib, sizeof flib) ||
             bench_info(line, "fftw", ffftw, sizeof ffftw)) {
  } else if (line[0] == 'N' && line[1] == ' ') {
    c->skipped = 1;
    if (c->round == 0) fprintf(stderr, "simple-bench: %s", line + 2);
  } else if (line[0] != 'I' || line[1] != ' ') {
    return 0;
  }
  return 1;
}

/* Runs one side's job: -1 if it failed, 1 if it skipped its anchor. */
static int frun(const char *cmd, int side, int round) {
  frun_t c = {side, round, 0};
  if (bench_run_worker(cmd, fline, &c) != 0) return -1;
  return c.skipped;
}

/* The sides of a round: the anchors stop once one has found no FFTW-MPI in
 * this build; the threaded anchor runs only where FFTW has threads. */
typedef struct {
  const bench_cmd_t *cmd;
  int use_threads, anchor_ok;
} fsides_t;
static int fside(int side, long round, void *ctx) {
  fsides_t *f = ctx;
  if ((side != SIDE_SIMPLE && !f->anchor_ok) || (side == SIDE_THREADS && !f->use_threads)) return 0;
  int st = frun(f->cmd[side], side, (int)round);
  if (st > 0) f->anchor_ok = 0;
  return st < 0;
}

static double fmed(bench_row_t *r, int side) { return bench_row_median(r, side); }

static int fmode(const bench_row_t *r) { return strcmp(r->op, "transposed") == 0; }

static int cmp_frows(const void *a, const void *b) {
  const bench_row_t *x = a, *y = b;
  if (fmode(x) != fmode(y)) return fmode(x) - fmode(y);
  return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

static void fusage(FILE *f) {
  fprintf(f,
          "usage: simple-bench fft [-N NODES] [-t THREADS] [--vcluster] [--quick] [--rounds R]\n"
          "                        [--max-n N] [--patient] [--csv FILE]\n");
}

/* A ratio or a rate to two decimals, "-" where it is not known. */
static void fmt_ratio(char *b, size_t len, double r) {
  if (isnan(r))
    snprintf(b, len, "-");
  else
    snprintf(b, len, "%.2f", r);
}

static void fmt_ms(char *b, size_t len, double us) {
  if (isnan(us))
    snprintf(b, len, "-");
  else
    snprintf(b, len, "%.3f", us / 1e3);
}

int bench_fft_suite(int argc, char **argv) {
  bench_suite_t b = {.T = 2, .rounds = 3};
  long max_n = 4096;
  int patient = 0;
  const bench_opt_t opts[] = {{"--patient", BENCH_FLAG, &patient, 0, 0, NULL},
                              {"--max-n", BENCH_NUM, &max_n, 256, 65536, NULL},
                              {0}};
  int rc = bench_suite_parse(&b, argc, argv, MAX_ROUNDS, opts, fusage);
  if (rc) return rc < 0 ? 0 : rc;
  long N = b.N, T = b.T, rounds = b.rounds, P = N * T;
  int quick = b.quick, vcluster = b.vcluster;
  /* Memory: each side holds about five n x n arrays of complex doubles at
   * once (input, its copy, output, round trip, scratch), and the simple
   * side's job three more while it times FFTW-MPI beside simple (input,
   * its copy, output), all on this host here or on the virtual cluster;
   * keep them within half of what is available. */
  max_n = bench_fit_memory(max_n, 256, 128, 2);
  if (bench_suite_start(&b, P)) return 1;
  FILE *out = b.out;
  const char *dir = b.pl.dir;
  int multi = b.pl.multi, pin = b.pl.pin;
  char args[128];
  snprintf(args, sizeof args, "--max-n %ld%s%s", max_n, quick ? " --quick" : "",
           patient ? " --patient" : "");
  const char *vc = vcluster ? " --vcluster" : "";
  bench_cmd_t cmd[NSIDES];
  bench_worker_cmd(cmd[SIDE_SIMPLE], sizeof cmd[0], &b.pl, vcluster, BENCH_HYBRID, N, T, "",
                   "fft-simple", args);
  bench_worker_cmd(cmd[SIDE_FLAT], sizeof cmd[0], &b.pl, vcluster, BENCH_FLAT, N, T, "", "fft-fftw",
                   args);
  /* FFTW's threads inside each of NODES ranks: unbound, a rank needs T cores. */
  snprintf(cmd[SIDE_THREADS], sizeof cmd[0],
           "'%s/simplerun'%s --bind none -N %ld -t 1 '%s/simple-bench' --worker fft-fftw %s"
           " --fftw-threads %ld",
           dir, vc, N, dir, args, T);
#ifdef SIMPLE_HAVE_FFTW_THREADS
  int use_threads = T > 1;
#else
  int use_threads = 0;
#endif
  printf(
      "simple-bench fft: n x n double complex, forward, by rows; %ld node(s) x %ld thread(s)"
      " (simple) against FFTW-MPI on %ld rank(s) x 1 thread%s (FFTW_%s), %s, %ld round(s)%s\n",
      N, T, P, use_threads ? " and on NODES rank(s) x THREADS FFTW threads" : "",
      patient ? "PATIENT" : "MEASURE", bench_where(vcluster, multi), rounds, pin ? ", pinned" : "");
  fflush(stdout);
  fsides_t sides = {cmd, use_threads, 1};
  if (bench_alternate(rounds, NSIDES, fside, &sides) != 0) {
    bench_suite_close(&b);
    return 1;
  }
  qsort(frows, (size_t)ftable.nrows, sizeof frows[0], cmp_frows);
  printf("MPI: %s; FFTW: %s\n", flib[0] ? flib : "unknown library", ffftw[0] ? ffftw : "-");
  printf("%-10s %6s %11s %11s %11s %8s %9s %9s %13s %11s %11s %15s\n", "output", "n", "simple_ms",
         "flat_ms", "thr_ms", "anchor", "simple_GF", "anchor_GF", "anchor/simple", "same_ms",
         "same/simple", "same_thr/simple");
  if (out)
    fprintf(out,
            "suite,output,n,nodes,threads,simple_us,fftw_flat_us,fftw_threads_us,anchor,"
            "anchor_us,simple_gflops,anchor_gflops,ratio,fftw_same_us,same_ratio,"
            "fftw_same_threads_us,same_threads_ratio\n");
  for (int i = 0; i < ftable.nrows; i++) {
    bench_row_t *r = &frows[i];
    long rn = (long)r->bytes;
    double h = fmed(r, SIDE_SIMPLE), f = fmed(r, SIDE_FLAT), t = fmed(r, SIDE_THREADS);
    int an = -1;
    double at = NAN;
    if (!isnan(f) && (isnan(t) || f <= t)) an = SIDE_FLAT, at = f;
    if (!isnan(t) && (isnan(f) || t < f)) an = SIDE_THREADS, at = t;
    double nn = (double)rn * (double)rn, flop = 5.0 * nn * log2(nn);
    double gh = flop / (h * 1e3), ga = flop / (at * 1e3), ratio = at / h;
    char sh[32], sf[32], st[32], sga[32], sr[32];
    fmt_ms(sh, sizeof sh, h);
    fmt_ms(sf, sizeof sf, f);
    fmt_ms(st, sizeof st, t);
    fmt_ratio(sga, sizeof sga, ga);
    fmt_ratio(sr, sizeof sr, ratio);
    const char *aname = an == SIDE_FLAT ? "flat" : an == SIDE_THREADS ? "threads" : "-";
    double same = fmed(r, COL_SAME), same_ratio = fmed(r, COL_SAME_RATIO);
    double thr = fmed(r, COL_SAME_THR), thr_ratio = fmed(r, COL_SAME_THR_RATIO);
    char ss[32], ssr[32], str[32];
    fmt_ms(ss, sizeof ss, same);
    fmt_ratio(ssr, sizeof ssr, same_ratio);
    fmt_ratio(str, sizeof str, thr_ratio);
    printf("%-10s %6ld %11s %11s %11s %8s %9.2f %9s %13s %11s %11s %15s\n", modes[fmode(r)], rn, sh,
           sf, st, aname, gh, sga, sr, ss, ssr, str);
    if (out) {
      fprintf(out, "fft,%s,%ld,%ld,%ld,%.3f,", modes[fmode(r)], rn, N, T, h);
      double v[3] = {f, t, at};
      for (int k = 0; k < 2; k++)
        if (isnan(v[k]))
          fprintf(out, ",");
        else
          fprintf(out, "%.3f,", v[k]);
      fprintf(out, "%s,", an < 0 ? "" : aname);
      if (isnan(at))
        fprintf(out, ",%.4f,,,", gh);
      else
        fprintf(out, "%.3f,%.4f,%.4f,%.4f,", at, gh, ga, ratio);
      if (isnan(same))
        fprintf(out, ",,");
      else
        fprintf(out, "%.3f,%.4f,", same, same_ratio);
      if (isnan(thr))
        fprintf(out, ",\n");
      else
        fprintf(out, "%.3f,%.4f\n", thr, thr_ratio);
    }
  }
  if (bench_suite_finish(&b)) return 1;
  return 0;
}
