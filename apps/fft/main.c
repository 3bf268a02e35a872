/* simple-fft: the 2D complex FFT of an N x M array of double complex
 * distributed by rows over every thread of the job (simple_fft2d), timed
 * and verified.
 *
 *   simplerun -N 2 -t 2 simple-fft --n 1024 [--m 512] [--inverse]
 *             [--transposed] [--reps R] [--seed S] [--rigor R] [--json]
 *
 * Verification, all independent of the transform's own code path:
 *   - a few output elements against the direct sum over all inputs, and
 *     Parseval's identity (simple_fft2d_check);
 *   - the round trip: the opposite transform, normalized, gives the input
 *     back (relative 2-norm error);
 *   - up to 2^22 elements, the whole output against FFTW's serial 2D
 *     transform of the gathered array (max error relative to the largest
 *     output element).
 * Every error must be under 1e-10 for "verified": true. */
#include <complex.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

#include "app_cli.h"
#include "simple_fft.h"

typedef double _Complex cplx;

#define TOLERANCE 1e-10
/* Largest N and M (FFTW takes int lengths), largest N M. */
#define MAX_DIM   2147483647L
#define MAX_ELEMS (1L << 36)
/* Arrays up to this many elements are also checked against serial FFTW. */
#define REFERENCE_MAX (1L << 22)

typedef struct {
  const char *prog;
  long n, m, reps;
  uint64_t seed;
  int inverse, transposed, json, reference;
  unsigned rigor;
  int status; /* exit status of this process, set by its threads */
} opts_t;

static void usage(FILE *f, const char *prog) {
  fprintf(f,
          "usage: simplerun [-N NODES] [-t THREADS] %s --n N [--m M] [--inverse]\n"
          "                 [--transposed] [--reps R] [--seed S]\n"
          "                 [--rigor estimate|measure|patient] [--reference auto|no] [--json]\n"
          "  2D complex FFT of an N x M array of double complex (N rows, M columns, default\n"
          "  M = N; any sizes), distributed by rows over every thread of the job: FFTW on\n"
          "  the rows, the rows dealt out as blocks of columns (hybrid redistribution; not\n"
          "  on one node), FFTW on the columns, and the blocks brought back to rows.\n"
          "  --inverse       the backward transform (unnormalized) instead of the forward\n"
          "  --transposed    output left transposed (M x N by rows): one exchange less\n"
          "  --reps R        transforms timed (best and median reported); default 3\n"
          "  --seed S        seed of the pseudo-random input; default 1\n"
          "  --rigor R       FFTW planner rigor of the 1D plans; default measure\n"
          "  --reference no  skip the comparison with serial FFTW (done up to 2^22 elements)\n"
          "  --json          one JSON object on standard output\n",
          prog);
}

/* An argument error: reported by the first process; the process's exit
 * status (app_arg_status). */
static int arg_error(const opts_t *o, const char *fmt, const char *v) {
  if (app_first_process()) {
    fprintf(stderr, "%s: ", o->prog);
    fprintf(stderr, fmt, v);
    fprintf(stderr, "\n");
    usage(stderr, o->prog);
  }
  return app_arg_status();
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Gathers an r x c array distributed by rows (this thread's `rows` rows
 * from row `lo`) at processor 0 into `all` (significant there only). */
static void gather_rows(simple_t *s, const cplx *local, long rows, long lo, long c, cplx *all) {
  int P = simple_nprocs(s), me = simple_pid(s);
  size_t *counts = NULL, *displs = NULL;
  if (me == 0) {
    counts = malloc(sizeof(size_t) * (size_t)P);
    displs = malloc(sizeof(size_t) * (size_t)P);
    if (!counts || !displs) simple_abort(s, "simple-fft: out of memory");
  }
  /* Every processor's rows and first row, known at the root through a
   * gather of two numbers each. */
  long mine[2] = {rows, lo}, *info = me == 0 ? malloc(sizeof(long) * 2 * (size_t)P) : NULL;
  if (me == 0 && !info) simple_abort(s, "simple-fft: out of memory");
  if (simple_gather(s, mine, info, 2, SIMPLE_INT64, 0))
    simple_abort(s, "simple-fft: gather failed");
  if (me == 0)
    for (int q = 0; q < P; q++) {
      counts[q] = (size_t)(info[2 * q] * c);
      displs[q] = (size_t)(info[2 * q + 1] * c);
    }
  if (simple_gatherv(s, local, (size_t)(rows * c), all, counts, displs, SIMPLE_DOUBLE_COMPLEX, 0))
    simple_abort(s, "simple-fft: gatherv failed");
  free(counts);
  free(displs);
  free(info);
}

/* The whole output against FFTW's serial 2D transform of the gathered
 * input, at processor 0: max |out - ref| / max |ref|. */
static double reference_error(simple_t *s, const opts_t *o, int sign, const cplx *in, long in_rows,
                              long in_lo, const cplx *out, long out_rows, long out_lo) {
  long n = o->n, m = o->m;
  int me = simple_pid(s);
  size_t nm = (size_t)n * (size_t)m;
  cplx *x = NULL, *y = NULL;
  if (me == 0) {
    x = fftw_malloc(sizeof(cplx) * nm);
    y = fftw_malloc(sizeof(cplx) * nm);
    if (!x || !y) simple_abort(s, "simple-fft: out of memory (reference)");
  }
  gather_rows(s, in, in_rows, in_lo, m, x);
  gather_rows(s, out, out_rows, out_lo, o->transposed ? n : m, y);
  double err = 0;
  if (me == 0) {
    cplx *ref = fftw_malloc(sizeof(cplx) * nm);
    if (!ref) simple_abort(s, "simple-fft: out of memory (reference)");
    simple_fft_lock();
    fftw_plan p = fftw_plan_dft_2d((int)n, (int)m, (fftw_complex *)x, (fftw_complex *)ref, sign,
                                   FFTW_ESTIMATE);
    simple_fft_unlock();
    if (!p) simple_abort(s, "simple-fft: FFTW cannot plan the reference");
    fftw_execute(p);
    double emax = 0, rmax = 0;
    for (long i = 0; i < n; i++)
      for (long j = 0; j < m; j++) {
        cplx r = ref[i * m + j], g = o->transposed ? y[j * n + i] : y[i * m + j];
        double e = cabs(g - r), a = cabs(r);
        if (!(e <= emax)) emax = e;
        if (a > rmax) rmax = a;
      }
    err = rmax > 0 ? emax / rmax : emax;
    simple_fft_lock();
    fftw_destroy_plan(p);
    simple_fft_unlock();
    fftw_free(ref);
  }
  fftw_free(x);
  fftw_free(y);
  if (simple_bcast(s, &err, 1, SIMPLE_DOUBLE, 0)) simple_abort(s, "simple-fft: bcast failed");
  return err;
}

static void run(simple_t *s, void *arg) {
  opts_t *o = arg;
  int me = simple_pid(s), P = simple_nprocs(s);
  long n = o->n, m = o->m;
  long in_rows = 0, in_lo = 0, out_rows = 0, out_lo = 0;
  if (simple_fft2d_local(s, n, m, 0, &in_rows, &in_lo) ||
      simple_fft2d_local(s, n, m, o->transposed, &out_rows, &out_lo))
    simple_abort(s, "%s: simple_fft2d_local failed", o->prog);
  long out_cols = o->transposed ? n : m;
  size_t in_len = (size_t)in_rows * (size_t)m, out_len = (size_t)out_rows * (size_t)out_cols;
  /* Memory: in, out, the round trip's result, and the two plans' scratch
   * arrays (one share each, two for transposed output: simple_fft.h):
   * five or seven arrays of this thread's share; the reference adds three
   * whole arrays at processor 0. */
  size_t share = in_len > out_len ? in_len : out_len;
  unsigned long long need = (o->transposed ? 7ull : 5ull) * share * sizeof(cplx);
  if (me == 0 && o->reference && (long)(n * m) <= REFERENCE_MAX)
    need += 3ull * (unsigned long long)n * (unsigned long long)m * sizeof(cplx);
  double node_need = (double)need, sum = 0;
  if (simple_node_allreduce(s, &node_need, &sum, 1, SIMPLE_DOUBLE, SIMPLE_SUM))
    simple_abort(s, "%s: node allreduce failed", o->prog);
  unsigned long long avail = simple_mem_available();
  double bad = avail && sum > 0.9 * (double)avail ? sum : 0;
  double worst = app_max_over(s, bad, "simple-fft");
  if (worst > 0) {
    if (me == 0)
      fprintf(stderr,
              "%s: %ld x %ld is too large: a node of this job needs %.1f GiB and has %.1f GiB"
              " available\n",
              o->prog, n, m, worst / (1 << 30), (double)avail / (1 << 30));
    if (simple_thread(s) == 0) o->status = 1;
    return;
  }
  cplx *in = fftw_malloc(sizeof(cplx) * (in_len ? in_len : 1));
  cplx *out = fftw_malloc(sizeof(cplx) * (out_len ? out_len : 1));
  cplx *back = fftw_malloc(sizeof(cplx) * (in_len ? in_len : 1));
  if (!in || !out || !back) simple_abort(s, "%s: out of memory (%ld x %ld)", o->prog, n, m);
  int rc = simple_fft2d_fill(s, n, m, 0, o->seed, in);
  if (rc) simple_abort(s, "%s: fill: %s", o->prog, simple_errname(rc));

  int sign = o->inverse ? SIMPLE_FFT_BACKWARD : SIMPLE_FFT_FORWARD;
  unsigned flags = o->rigor | (o->transposed ? SIMPLE_FFT_TRANSPOSED_OUT : 0);
  simple_fft2d_t *plan = NULL, *undo = NULL;
  simple_barrier(s);
  double t0 = simple_time();
  rc = simple_fft2d_plan(s, n, m, sign, flags, &plan);
  double plan_s = app_max_over(s, simple_time() - t0, "simple-fft");
  if (rc) {
    if (me == 0)
      fprintf(stderr, "%s: plan: %s: %s\n", o->prog, simple_errname(rc), simple_strerror(rc));
    if (simple_thread(s) == 0) o->status = 1;
    fftw_free(in);
    fftw_free(out);
    fftw_free(back);
    return;
  }
  double *times = malloc(sizeof(double) * (size_t)o->reps);
  if (!times) simple_abort(s, "%s: out of memory", o->prog);
  for (long r = 0; r < o->reps; r++) {
    simple_barrier(s);
    simple_node_barrier(s);
    t0 = simple_time();
    rc = simple_fft2d_execute(s, plan, in, out);
    times[r] = app_max_over(s, simple_time() - t0, "simple-fft");
    if (rc) simple_abort(s, "%s: execute: %s", o->prog, simple_errname(rc));
  }
  qsort(times, (size_t)o->reps, sizeof *times, cmp_double);
  double best = times[0], median = times[o->reps / 2];
  if (o->reps % 2 == 0) median = 0.5 * (times[o->reps / 2 - 1] + times[o->reps / 2]);
  free(times);

  /* Verification. */
  double probe = NAN, parseval = NAN, roundtrip = NAN, ref = NAN;
  rc = simple_fft2d_check(s, plan, in, out, &probe, &parseval);
  if (rc) simple_abort(s, "%s: check: %s", o->prog, simple_errname(rc));
  rc = simple_fft2d_plan(
      s, n, m, -sign,
      SIMPLE_FFT_NORMALIZE | SIMPLE_FFT_ESTIMATE | (o->transposed ? SIMPLE_FFT_TRANSPOSED_IN : 0),
      &undo);
  if (rc == 0) rc = simple_fft2d_execute(s, undo, out, back);
  if (rc == 0) rc = simple_fft2d_relerr(s, back, in, in_len, &roundtrip);
  if (rc) simple_abort(s, "%s: round trip: %s", o->prog, simple_errname(rc));
  int with_ref = o->reference && n * m <= REFERENCE_MAX;
  if (with_ref) ref = reference_error(s, o, sign, in, in_rows, in_lo, out, out_rows, out_lo);
  int verified = probe < TOLERANCE && parseval < TOLERANCE && roundtrip < TOLERANCE &&
                 (!with_ref || ref < TOLERANCE);
  if (!verified && simple_thread(s) == 0) o->status = 1;

  double nm = (double)n * (double)m;
  double gflops = nm > 1 ? 5.0 * nm * log2(nm) / best / 1e9 : 0;
  const char *rig = o->rigor == SIMPLE_FFT_ESTIMATE  ? "estimate"
                    : o->rigor == SIMPLE_FFT_PATIENT ? "patient"
                                                     : "measure";
  if (me == 0) {
    char refs[32];
    if (with_ref)
      snprintf(refs, sizeof refs, "%.3e", ref);
    else
      snprintf(refs, sizeof refs, "null");
    if (o->json) {
      printf(
          "{\"app\": \"fft2d\", \"n\": %ld, \"m\": %ld, \"direction\": \"%s\","
          " \"output\": \"%s\", \"nodes\": %d, \"processors\": %d, \"rigor\": \"%s\","
          " \"reps\": %ld, \"seed\": %llu, \"plan_s\": %.9g, \"time_s\": %.9g,"
          " \"time_median_s\": %.9g, \"gflops\": %.3f, \"probe_relerr\": %.3e,"
          " \"parseval_relerr\": %.3e, \"roundtrip_relerr\": %.3e, \"reference_relerr\": %s,"
          " \"tolerance\": %.0e, \"verified\": %s}\n",
          n, m, o->inverse ? "backward" : "forward", o->transposed ? "transposed" : "natural",
          simple_nodes(s), P, rig, o->reps, (unsigned long long)o->seed, plan_s, best, median,
          gflops, probe, parseval, roundtrip, refs, TOLERANCE, verified ? "true" : "false");
    } else {
      printf("%s: %ld x %ld, %s, output %s, %d processor(s) on %d node(s), FFTW %s\n", o->prog, n,
             m, o->inverse ? "backward" : "forward", o->transposed ? "transposed" : "natural", P,
             simple_nodes(s), rig);
      printf(
          "time %.6f s (best of %ld; median %.6f s), %.3f GFLOP/s (5 N M log2(N M) / t),"
          " plan %.3f s\n",
          best, o->reps, median, gflops, plan_s);
      printf("errors: probes %.2e, Parseval %.2e, round trip %.2e, serial FFTW %s: %s\n", probe,
             parseval, roundtrip, with_ref ? refs : "(skipped)", verified ? "verified" : "WRONG");
    }
    fflush(stdout);
  }
  simple_fft2d_destroy(plan);
  simple_fft2d_destroy(undo);
  fftw_free(in);
  fftw_free(out);
  fftw_free(back);
}

int main(int argc, char **argv) {
  app_version(argc, argv, "simple-fft");
  const char *prog = strrchr(argv[0], '/');
  opts_t o = {.prog = prog ? prog + 1 : argv[0],
              .n = -1,
              .m = -1,
              .reps = 3,
              .seed = 1,
              .reference = 1,
              .rigor = SIMPLE_FFT_MEASURE};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--n") == 0 || strcmp(a, "-n") == 0 || strcmp(a, "--m") == 0 ||
        strcmp(a, "-m") == 0) {
      long *dst = a[strlen(a) - 1] == 'n' ? &o.n : &o.m;
      if (app_parse_long(v, dst) != 0)
        return arg_error(&o,
                         a[strlen(a) - 1] == 'n' ? "--n needs a whole number, not '%s'"
                                                 : "--m needs a whole number, not '%s'",
                         v ? v : "");
      if (*dst <= 0)
        return arg_error(&o,
                         a[strlen(a) - 1] == 'n' ? "--n must be positive, not %s"
                                                 : "--m must be positive, not %s",
                         v);
      if (*dst > MAX_DIM) return arg_error(&o, "%s is too large (at most 2147483647)", v);
      i++;
    } else if (strcmp(a, "--inverse") == 0 || strcmp(a, "--backward") == 0) {
      o.inverse = 1;
    } else if (strcmp(a, "--transposed") == 0) {
      o.transposed = 1;
    } else if (strcmp(a, "--reps") == 0) {
      if (app_parse_long(v, &o.reps) != 0 || o.reps < 1 || o.reps > 1000)
        return arg_error(&o, "--reps needs a count from 1 to 1000, not '%s'", v ? v : "");
      i++;
    } else if (strcmp(a, "--seed") == 0) {
      long sd;
      if (app_parse_long(v, &sd) != 0 || sd < 0)
        return arg_error(&o, "--seed needs a whole number >= 0, not '%s'", v ? v : "");
      o.seed = (uint64_t)sd;
      i++;
    } else if (strcmp(a, "--rigor") == 0) {
      if (v && strcmp(v, "estimate") == 0)
        o.rigor = SIMPLE_FFT_ESTIMATE;
      else if (v && strcmp(v, "measure") == 0)
        o.rigor = SIMPLE_FFT_MEASURE;
      else if (v && strcmp(v, "patient") == 0)
        o.rigor = SIMPLE_FFT_PATIENT;
      else
        return arg_error(&o, "--rigor must be estimate, measure or patient, not '%s'", v ? v : "");
      i++;
    } else if (strcmp(a, "--reference") == 0) {
      if (v && strcmp(v, "auto") == 0)
        o.reference = 1;
      else if (v && strcmp(v, "no") == 0)
        o.reference = 0;
      else
        return arg_error(&o, "--reference must be auto or no, not '%s'", v ? v : "");
      i++;
    } else if (strcmp(a, "--json") == 0) {
      o.json = 1;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      if (app_first_process()) usage(stdout, o.prog);
      return 0;
    } else {
      return arg_error(&o, "unknown option '%s'", a);
    }
  }
  if (o.n < 0) return arg_error(&o, "--n N is required%s", "");
  if (o.m < 0) o.m = o.n;
  if (o.n > MAX_ELEMS / o.m) {
    if (app_first_process())
      fprintf(stderr, "%s: %ld x %ld is too large (at most 2^36 elements)\n", o.prog, o.n, o.m);
    return app_arg_status();
  }
  int rc = simple_run(&argc, &argv, run, &o);
  if (rc) return 1;
  return o.status;
}
