/* simple-bench bsp: the BSP parameters of simple's one-sided layer, g (cost
 * per word of an h-relation) and L (cost of a sync), measured in the manner
 * of paper 004's As suite (the total exchange sweep) and fitted by least
 * squares, for put and get, with the one-sided (MPI windows) and the
 * two-sided (MPI_Isend/Irecv) backend, in one invocation.
 *
 * Worker (one job per backend, chosen by SIMPLE_RMA): for h = 0 and
 * h = p, 2p, 4p, ... up to --max-h words (8-byte words; default 2^20,
 * --quick 2^14), one superstep in which every processor puts (or gets)
 * h / p words to (from) every processor, itself included: an h-relation.
 * The first superstep of every h is checked word by word (a wrong word
 * aborts the job); then samples of a batch of supersteps (about 1 ms, at
 * most 50); a sample is the slowest processor's mean superstep time; the
 * median is printed as "R <op> <h> <us>". The worker also measures the
 * processors' DAXPY rate r (y += a x on 2048 doubles, in cache), printed as
 * "I rate <Mflop/s>" (the median over processors).
 *
 * Driver: alternates the two backends round by round, takes the median over
 * rounds per (backend, op, h), fits t(h) = L + g h over h >= p (least
 * squares of the relative error), and prints
 * g in us per word and in flops (g r), L in us and in flops (L r), as BSP
 * tradition gives them, beside the empty sync (h = 0). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <simple.h>

#include "bench.h"

#define AS_MAX_H      (1L << 24)
#define AS_MAX_ROWS   64
#define AS_MAX_ROUNDS 32

enum { AS_PUT, AS_GET, AS_NOPS };
static const char *as_op_name[AS_NOPS] = {"put", "get"};

static double as_val(int src, int dst, long i) {
  return (double)src * 1e9 + (double)dst * 1e5 + (double)i;
}

static int as_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static long as_max_h(int argc, char **argv, int quick) {
  long h = quick ? (1L << 14) : (1L << 20);
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--max-h") == 0) h = atol(argv[i + 1]);
  return h < 1 ? 1 : h > AS_MAX_H ? AS_MAX_H : h;
}

typedef struct {
  int argc;
  char **argv;
  const bench_opts_t *o;
} as_args_t;

static void as_fail(simple_t *s, const char *what, int rc) {
  simple_abort(s, "simple-bench bsp: %s: %s (%s)", what, simple_errname(rc), simple_rma_error(s));
}

/* One superstep of the h-relation: w words to or from every processor. */
static void as_step(simple_t *s, int op, long w, double *src, double *area) {
  int p = simple_nprocs(s), me = simple_pid(s), rc = 0;
  size_t wb = (size_t)w * sizeof(double);
  for (int k = 0; k < p && rc == 0 && w > 0; k++) {
    int q = (me + k) % p; /* spread the traffic: everyone starts with another target */
    if (op == AS_PUT)
      rc = simple_rma_put(s, q, src + (size_t)q * (size_t)w, area, (size_t)me * wb, wb);
    else
      rc = simple_rma_get(s, q, src, (size_t)me * wb, area + (size_t)q * (size_t)w, wb);
  }
  if (rc) as_fail(s, op == AS_PUT ? "put" : "get", rc);
  if ((rc = simple_rma_sync(s))) as_fail(s, "sync", rc);
}

static double as_max(simple_t *s, double v) {
  double m = v;
  int rc = simple_allreduce(s, &v, &m, 1, SIMPLE_DOUBLE, SIMPLE_MAX);
  if (rc) as_fail(s, "allreduce", rc);
  return m;
}

static void as_main(simple_t *s, void *arg) {
  const as_args_t *a = arg;
  int p = simple_nprocs(s), me = simple_pid(s);
  long hmax = as_max_h(a->argc, a->argv, a->o->quick);
  if (hmax < p) hmax = p;
  long wmax = hmax / p;
  size_t words = (size_t)wmax * (size_t)p;
  double *src = malloc((words ? words : 1) * sizeof(double));
  double *area = malloc((words ? words : 1) * sizeof(double));
  if (!src || !area) simple_abort(s, "simple-bench bsp: out of memory (h = %ld)", hmax);
  int rc;
  if ((rc = simple_rma_push_reg(s, src, words * sizeof(double)))) as_fail(s, "push_reg", rc);
  if ((rc = simple_rma_push_reg(s, area, words * sizeof(double)))) as_fail(s, "push_reg", rc);
  if ((rc = simple_rma_sync(s))) as_fail(s, "sync", rc);

  /* DAXPY rate, every processor at once (as in a computation superstep). */
  {
    enum { LEN = 2048 };
    static _Thread_local double x[LEN], y[LEN];
    for (int i = 0; i < LEN; i++) x[i] = 1.0 + i * 1e-6, y[i] = 0;
    double best = INFINITY, alpha = 1.0000001;
    for (int rep = 0; rep < 7; rep++) {
      double t0 = simple_time();
      for (int it = 0; it < 2000; it++) {
        for (int i = 0; i < LEN; i++) y[i] += alpha * x[i];
        __asm__ __volatile__("" : : "r"(y) : "memory");
      }
      double t = simple_time() - t0;
      if (t < best) best = t;
    }
    double rate = 2.0 * LEN * 2000 / best / 1e6, all[1024];
    int np = p <= 1024 ? p : 1024;
    double *g = me == 0 ? malloc(sizeof(double) * (size_t)p) : NULL;
    if ((rc = simple_gather(s, &rate, g, 1, SIMPLE_DOUBLE, 0))) as_fail(s, "gather", rc);
    if (me == 0) {
      memcpy(all, g, sizeof(double) * (size_t)np);
      qsort(all, (size_t)np, sizeof *all, as_cmp);
      printf("I rate %.3f\n", all[np / 2]);
      printf("I layout %d nodes x %d threads, backend %s\n", simple_nodes(s), simple_threads(s),
             simple_rma_backend(s) == SIMPLE_RMA_ONESIDED ? "onesided" : "twosided");
      fflush(stdout);
      free(g);
    }
  }

  for (int op = 0; op < AS_NOPS; op++) {
    for (long h = 0; h <= hmax; h = h ? 2 * h : p) {
      long w = h / p;
      /* Checked superstep. */
      for (int q = 0; q < p; q++)
        for (long i = 0; i < w; i++) src[(size_t)q * (size_t)w + (size_t)i] = as_val(me, q, i);
      memset(area, 0, (size_t)w * (size_t)p * sizeof(double));
      as_step(s, op, w, src, area);
      for (int q = 0; q < p; q++)
        for (long i = 0; i < w; i++)
          if (area[(size_t)q * (size_t)w + (size_t)i] != as_val(q, me, i))
            simple_abort(s, "simple-bench bsp: %s, h = %ld: wrong word %ld from processor %d",
                         as_op_name[op], h, i, q);
      /* Batch size from one timed superstep. */
      double t0 = simple_time();
      as_step(s, op, w, src, area);
      double t1 = as_max(s, simple_time() - t0);
      int B = t1 > 0 ? (int)(1e-3 / t1) : 50;
      B = B < 1 ? 1 : B > 50 ? 50 : B;
      int S = a->o->quick ? 5 : 11;
      double v[11];
      for (int j = 0; j < S; j++) {
        t0 = simple_time();
        for (int b = 0; b < B; b++) as_step(s, op, w, src, area);
        v[j] = (simple_time() - t0) / B;
      }
      for (int j = 0; j < S; j++) v[j] = as_max(s, v[j]);
      qsort(v, (size_t)S, sizeof *v, as_cmp);
      if (me == 0) {
        printf("R %s %ld %.4f\n", as_op_name[op], h, 1e6 * v[S / 2]);
        fflush(stdout);
      }
      if (h >= hmax) break;
      if (2 * h > hmax && h) break;
    }
  }
  if ((rc = simple_rma_pop_reg(s, area)) || (rc = simple_rma_pop_reg(s, src)) ||
      (rc = simple_rma_sync(s)))
    as_fail(s, "pop_reg", rc);
  free(src);
  free(area);
}

int bench_as_worker(int argc, char **argv, const bench_opts_t *o) {
  as_args_t a = {argc, argv, o};
  return simple_run(&argc, &argv, as_main, &a);
}

/* ------------------------------------------------------------------------
 * Driver. */

enum { AS_TWO, AS_ONE, AS_NBACK };
static const char *as_back_name[AS_NBACK] = {"twosided", "onesided"};

typedef struct {
  long h;
  double t[AS_NBACK][AS_NOPS][AS_MAX_ROUNDS];
  int n[AS_NBACK][AS_NOPS];
} as_row_t;

static as_row_t as_rows[AS_MAX_ROWS];
static int as_nrows;
static double as_rate[AS_NBACK][AS_MAX_ROUNDS];
static int as_nrate[AS_NBACK];

static int as_run(const char *cmd, int back) {
  FILE *f = popen(cmd, "r");
  if (!f) {
    fprintf(stderr, "simple-bench: cannot run %s: %s\n", cmd, strerror(errno));
    return -1;
  }
  char line[512], opn[32];
  long h;
  double us;
  while (fgets(line, sizeof line, f)) {
    if (sscanf(line, "R %31s %ld %lf", opn, &h, &us) == 3) {
      int op = strcmp(opn, "put") == 0 ? AS_PUT : strcmp(opn, "get") == 0 ? AS_GET : -1;
      if (op < 0) continue;
      int i = 0;
      while (i < as_nrows && as_rows[i].h != h) i++;
      if (i == as_nrows && as_nrows < AS_MAX_ROWS) {
        memset(&as_rows[i], 0, sizeof as_rows[i]);
        as_rows[i].h = h;
        as_nrows++;
      }
      if (i < as_nrows && as_rows[i].n[back][op] < AS_MAX_ROUNDS)
        as_rows[i].t[back][op][as_rows[i].n[back][op]++] = us;
    } else if (strncmp(line, "I rate ", 7) == 0) {
      if (as_nrate[back] < AS_MAX_ROUNDS) as_rate[back][as_nrate[back]++] = atof(line + 7);
    } else if (line[0] != 'I' || line[1] != ' ') {
      fputs(line, stderr);
    }
  }
  int st = pclose(f);
  if (st != 0) {
    fprintf(stderr, "simple-bench: worker failed (status %d): %s\n", st, cmd);
    return -1;
  }
  return 0;
}

static double as_med(const double *v0, int c) {
  if (!c) return NAN;
  double v[AS_MAX_ROUNDS];
  memcpy(v, v0, sizeof(double) * (size_t)c);
  qsort(v, (size_t)c, sizeof *v, as_cmp);
  return c % 2 ? v[c / 2] : 0.5 * (v[c / 2 - 1] + v[c / 2]);
}

static int as_row_cmp(const void *a, const void *b) {
  const as_row_t *x = a, *y = b;
  return (x->h > y->h) - (x->h < y->h);
}

/* Least squares t = L + g h over the rows with h >= p, weighted by 1/t^2
 * (it minimizes the relative error): h grows geometrically over five or
 * more decades, and an unweighted fit is set by the largest h alone (its
 * L is then meaningless, often negative). */
static void as_fit(int back, int op, long p, double *g, double *L) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  int n = 0;
  for (int i = 0; i < as_nrows; i++) {
    if (as_rows[i].h < p) continue;
    double t = as_med(as_rows[i].t[back][op], as_rows[i].n[back][op]);
    if (isnan(t) || t <= 0) continue;
    double x = (double)as_rows[i].h, w = 1 / (t * t);
    sw += w, sx += w * x, sy += w * t, sxx += w * x * x, sxy += w * x * t, n++;
  }
  double den = sw * sxx - sx * sx;
  if (n < 2 || den == 0) {
    *g = *L = NAN;
    return;
  }
  *g = (sw * sxy - sx * sy) / den;
  *L = (sy - *g * sx) / sw;
}

static void as_usage(FILE *f) {
  fprintf(f,
          "usage: simple-bench bsp [-N NODES] [-t THREADS] [--vcluster] [--quick] [--rounds R]\n"
          "                        [--max-h WORDS] [--csv FILE] [--json]\n");
}

int bench_as_suite(int argc, char **argv) {
  long N = -1, T = 2, rounds = -1, max_h = -1;
  int quick = 0, vcluster = 0, json = 0;
  const char *csv = NULL;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--quick") == 0) {
      quick = 1;
    } else if (strcmp(a, "--vcluster") == 0) {
      vcluster = 1;
    } else if (strcmp(a, "--json") == 0) {
      json = 1;
    } else if (strcmp(a, "-N") == 0 || strcmp(a, "-t") == 0 || strcmp(a, "--rounds") == 0 ||
               strcmp(a, "--max-h") == 0) {
      long *dst = a[1] == 'N' ? &N : a[1] == 't' ? &T : a[2] == 'r' ? &rounds : &max_h;
      long hi = a[1] == 'N' ? 256 : a[1] == 't' ? 1024 : a[2] == 'r' ? AS_MAX_ROUNDS : AS_MAX_H;
      char *end;
      errno = 0;
      long x = v ? strtol(v, &end, 10) : 0;
      if (!v || !v[0] || errno || *end || x < 1 || x > hi) {
        fprintf(stderr, "simple-bench: %s needs a count from 1 to %ld, not '%s'\n", a, hi,
                v ? v : "");
        return 2;
      }
      *dst = x;
      i++;
    } else if (strcmp(a, "--csv") == 0) {
      if (!v || !v[0] || v[0] == '-') {
        fprintf(stderr, "simple-bench: --csv needs a file name\n");
        return 2;
      }
      csv = v;
      i++;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      as_usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "simple-bench: unknown option '%s'\n", a);
      as_usage(stderr);
      return 2;
    }
  }
  if (N < 0) N = vcluster ? 2 : 1;
  if (rounds < 0) rounds = quick ? 1 : 3;
  long P = N * T;
  FILE *out = NULL;
  if (csv && !(out = fopen(csv, "w"))) {
    fprintf(stderr, "simple-bench: cannot write %s: %s\n", csv, strerror(errno));
    return 1;
  }
  char dir[PATH_MAX];
  bench_self_dir(dir, sizeof dir);
  char args[128] = "";
  if (max_h > 0) snprintf(args, sizeof args, " --max-h %ld", max_h);
  char cmd[AS_NBACK][2 * PATH_MAX + 512];
  for (int b = 0; b < AS_NBACK; b++)
    snprintf(cmd[b], sizeof cmd[b],
             "SIMPLE_RMA=%s '%s/simplerun'%s -N %ld -t %ld '%s/simple-bench' --worker bsp%s%s",
             as_back_name[b], dir, vcluster ? " --vcluster" : "", N, T, dir,
             quick ? " --quick" : "", args);
  FILE *o = json ? stderr : stdout;
  fprintf(o,
          "simple-bench bsp: h-relations (every processor puts or gets h/p words of 8 bytes to or"
          " from every processor) on %ld node(s) x %ld thread(s), %s, %ld round(s)\n",
          N, T, vcluster ? "virtual cluster" : "one host", rounds);
  fflush(o);
  for (int r = 0; r < rounds; r++) {
    fprintf(stderr, "  round %d/%ld\n", r + 1, rounds);
    for (int k = 0; k < AS_NBACK; k++) {
      int b = r % 2 ? AS_NBACK - 1 - k : k;
      if (as_run(cmd[b], b) != 0) {
        if (out) fclose(out);
        return 1;
      }
    }
  }
  qsort(as_rows, (size_t)as_nrows, sizeof as_rows[0], as_row_cmp);
  fprintf(o, "%9s %14s %14s %14s %14s   (us per superstep, medians)\n", "h_words", "put_twosided",
          "get_twosided", "put_onesided", "get_onesided");
  if (out) fprintf(out, "suite,nodes,threads,h_words,backend,op,us\n");
  for (int i = 0; i < as_nrows; i++) {
    fprintf(o, "%9ld", as_rows[i].h);
    for (int b = 0; b < AS_NBACK; b++)
      for (int op = 0; op < AS_NOPS; op++) {
        double t = as_med(as_rows[i].t[b][op], as_rows[i].n[b][op]);
        fprintf(o, " %14.2f", t);
        if (out)
          fprintf(out, "bsp,%ld,%ld,%ld,%s,%s,%.4f\n", N, T, as_rows[i].h, as_back_name[b],
                  as_op_name[op], t);
      }
    fprintf(o, "\n");
  }
  double rate = as_med(as_rate[0], as_nrate[0]); /* Mflop/s = flops per us */
  fprintf(o, "DAXPY rate r = %.1f Mflop/s per processor (median)\n", rate);
  fprintf(o, "%-9s %-4s %12s %10s %12s %12s %12s\n", "backend", "op", "g_us/word", "g_flops",
          "L_us", "L_flops", "sync0_us");
  if (json)
    printf(
        "{\"suite\": \"bsp\", \"nodes\": %ld, \"threads\": %ld, \"processors\": %ld,"
        " \"word_bytes\": 8, \"r_mflops\": %.3f, \"fits\": [",
        N, T, P, rate);
  int first = 1;
  for (int b = 0; b < AS_NBACK; b++)
    for (int op = 0; op < AS_NOPS; op++) {
      double g, L, s0 = NAN;
      as_fit(b, op, P, &g, &L);
      for (int i = 0; i < as_nrows; i++)
        if (as_rows[i].h == 0) s0 = as_med(as_rows[i].t[b][op], as_rows[i].n[b][op]);
      fprintf(o, "%-9s %-4s %12.5f %10.2f %12.2f %12.0f %12.2f\n", as_back_name[b], as_op_name[op],
              g, g * rate, L, L * rate, s0);
      if (json)
        printf(
            "%s{\"backend\": \"%s\", \"op\": \"%s\", \"g\": %.6g, \"L\": %.6g,"
            " \"g_flops\": %.6g, \"L_flops\": %.6g, \"sync0_us\": %.6g}",
            first ? "" : ", ", as_back_name[b], as_op_name[op], g, L, g * rate, L * rate, s0);
      first = 0;
    }
  if (json) printf("], \"units\": {\"g\": \"us per 8-byte word\", \"L\": \"us\"}}\n");
  fprintf(o,
          "fit: t(h) = L + g h, least squares of the relative error over h >= p = %ld;"
          " sync0: the empty superstep\n",
          P);
  if (out && fclose(out) != 0) {
    fprintf(stderr, "simple-bench: writing %s failed\n", csv);
    return 1;
  }
  return 0;
}
