/* simple-bench transpose: the hybrid matrix transpose (simple_transpose,
 * NODES processes x THREADS threads) beside the same transpose written
 * with flat MPI (NODES*THREADS single-threaded ranks: tiled local
 * transpose into per-destination blocks, MPI_Alltoall -- MPI_Alltoallv
 * when n is not divisible by the rank count --, local reorder), in one
 * invocation.
 *
 * Both sides transpose an n x n matrix of doubles distributed by rows in
 * blocks over all processors into another such matrix, for n = 256 ..
 * 8192 (as far as memory allows), --quick: 256 .. 2048. Per size: one
 * call whose result is checked element by element against the closed form
 * (a wrong result fails the job), one warm-up call, then samples of one
 * call each between barriers; a sample's time is the maximum over
 * processors, the median sample is reported as "R transpose <n> <us>".
 * The driver alternates the two sides round by round and prints the
 * median over rounds of each side's median, the throughput (matrix bytes
 * per second) and the ratio mpi/simple (above 1: simple is faster). */
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

#include "bench.h"

#define MAX_SIZES  8
#define MAX_ROUNDS 32
/* The flat side's tiles: the shape simple uses (32 lines of the result
 * by 8 source rows), the best of those measured for both. */
#define TILE_C 32
#define TILE_I 8

static const long sizes_full[] = {256, 512, 1024, 2048, 4096, 8192};
static const long sizes_quick[] = {256, 512, 1024, 2048};

/* Element (i, j) of the matrix: exact in a double for n <= 2^26. */
static double elem(long i, long j, long n) { return (double)(i * n + j); }

/* Sizes the worker runs: --quick's or the full list, up to --max-n. */
static int worker_sizes(int argc, char **argv, const bench_opts_t *o, const long **list) {
  long max_n = 8192;
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--max-n") == 0) max_n = atol(argv[i + 1]);
  *list = o->quick ? sizes_quick : sizes_full;
  int n = o->quick ? (int)(sizeof sizes_quick / sizeof *sizes_quick)
                   : (int)(sizeof sizes_full / sizeof *sizes_full);
  while (n > 0 && (*list)[n - 1] > max_n) n--;
  return n;
}

/* Samples per size: about 0.5 s (0.2 s with --quick) of calls, 3 to 15. */
static int samples_for(double t, int quick) {
  double budget = quick ? 0.2 : 0.5;
  int S = t > 0 ? (int)(budget / t) : 15;
  if (S < 3) S = 3;
  if (S > (quick ? 7 : 15)) S = quick ? 7 : 15;
  return S;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void *alloc_or_null(size_t bytes) {
  void *p = NULL;
  if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) return NULL;
  return p;
}

/* ------------------------------------------------------------------------
 * Hybrid side. */

typedef struct {
  int argc;
  char **argv;
  const bench_opts_t *o;
} hyb_args_t;

static void hyb_fail(simple_t *s, const char *what, long n, int rc) {
  simple_abort(s, "simple-bench transpose: n = %ld: %s (%s)", n, what, simple_errname(rc));
}

static double hyb_max(simple_t *s, double v) {
  double m = v;
  int rc = simple_allreduce(s, &v, &m, 1, SIMPLE_DOUBLE, SIMPLE_MAX);
  if (rc) hyb_fail(s, "allreduce", 0, rc);
  return m;
}

static void hyb_sync(simple_t *s) {
  /* The job barrier, then a node barrier: threads that slept in the first
   * are awake before the clock starts. */
  simple_barrier(s);
  simple_node_barrier(s);
}

static void hybrid_main(simple_t *s, void *arg) {
  const hyb_args_t *a = arg;
  const long *sizes;
  int ns = worker_sizes(a->argc, a->argv, a->o, &sizes), me = simple_pid(s);
  if (me == 0) {
    printf("I layout %d nodes x %d threads\n", simple_nodes(s), simple_threads(s));
    fflush(stdout);
  }
  for (int k = 0; k < ns; k++) {
    long n = sizes[k];
    simple_dist_t d = simple_dist_2d(n, n, SIMPLE_ROWS, SIMPLE_BLOCK, 1, SIMPLE_OVER_THREADS);
    simple_domain_t dom;
    int rc = simple_dist_domain(s, &d, me, &dom);
    if (rc) hyb_fail(s, "domain", n, rc);
    size_t local = (size_t)dom.local_rows * (size_t)n;
    double *src = alloc_or_null(local * sizeof(double)),
           *dst = alloc_or_null(local * sizeof(double));
    if (!src || !dst) hyb_fail(s, "out of memory", n, SIMPLE_ERR_NOMEM);
    for (long li = 0; li < dom.local_rows; li++)
      for (long j = 0; j < n; j++) src[li * n + j] = elem(dom.row.lo + li, j, n);
    memset(dst, 0, local * sizeof(double));
    hyb_sync(s);
    if ((rc = simple_transpose(s, src, &d, dst, &d, sizeof(double))))
      hyb_fail(s, "transpose", n, rc);
    /* Row c of the result is column c of the source. */
    for (long lc = 0; lc < dom.local_rows; lc++)
      for (long i = 0; i < n; i++)
        if (dst[lc * n + i] != elem(i, dom.row.lo + lc, n))
          simple_abort(s, "simple-bench transpose: n = %ld: wrong element (%ld, %ld)", n,
                       dom.row.lo + lc, i);
    hyb_sync(s);
    double t0 = simple_time();
    if ((rc = simple_transpose(s, src, &d, dst, &d, sizeof(double))))
      hyb_fail(s, "transpose", n, rc);
    int S = samples_for(hyb_max(s, simple_time() - t0), a->o->quick);
    double v[16];
    for (int j = 0; j < S; j++) {
      hyb_sync(s);
      t0 = simple_time();
      if ((rc = simple_transpose(s, src, &d, dst, &d, sizeof(double))))
        hyb_fail(s, "transpose", n, rc);
      v[j] = simple_time() - t0;
    }
    for (int j = 0; j < S; j++) v[j] = hyb_max(s, v[j]);
    qsort(v, (size_t)S, sizeof *v, cmp_double);
    if (me == 0) {
      printf("R transpose %ld %.3f\n", n, 1e6 * v[S / 2]);
      fflush(stdout);
    }
    free(src);
    free(dst);
  }
}

int bench_transpose_hybrid(int argc, char **argv, const bench_opts_t *o) {
  hyb_args_t a = {argc, argv, o};
  return simple_run(&argc, &argv, hybrid_main, &a);
}

/* ------------------------------------------------------------------------
 * Flat MPI side: what a user writes without simple. */

static void mpi_fail(int rank, long n, const char *what) {
  fprintf(stderr, "simple-bench transpose: MPI rank %d: n = %ld: %s\n", rank, n, what);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  exit(3);
}

typedef struct {
  long n, lo, rows; /* my rows [lo, lo + rows) */
  int P, rank, uniform;
  int *sc, *sd, *rc, *rd; /* elements */
  long *los, *cnt;
  double *src, *dst, *sbuf, *rbuf;
} flat_t;

static void flat_transpose(flat_t *f) {
  long n = f->n, m = f->rows;
  /* Pack: block q holds columns [lo_q, lo_q + cnt_q) of my rows, transposed
   * (cnt_q rows of my m elements), through TILE_C x TILE_I tiles. */
  for (int q = 0; q < f->P; q++) {
    double *b = f->sbuf + f->sd[q];
    long c0 = f->los[q], cq = f->cnt[q];
    for (long cc = 0; cc < cq; cc += TILE_C)
      for (long ii = 0; ii < m; ii += TILE_I) {
        long ie = ii + TILE_I < m ? ii + TILE_I : m, ce = cc + TILE_C < cq ? cc + TILE_C : cq;
        for (long c = cc; c < ce; c++)
          for (long i = ii; i < ie; i++) b[c * m + i] = f->src[i * n + c0 + c];
      }
  }
  if (f->uniform)
    MPI_Alltoall(f->sbuf, f->sc[0], MPI_DOUBLE, f->rbuf, f->rc[0], MPI_DOUBLE, MPI_COMM_WORLD);
  else
    MPI_Alltoallv(f->sbuf, f->sc, f->sd, MPI_DOUBLE, f->rbuf, f->rc, f->rd, MPI_DOUBLE,
                  MPI_COMM_WORLD);
  /* Reorder: block q holds my m result rows, cnt_q elements each, which
   * go to columns [lo_q, lo_q + cnt_q). */
  for (int q = 0; q < f->P; q++) {
    const double *b = f->rbuf + f->rd[q];
    long cq = f->cnt[q];
    for (long r = 0; r < m; r++)
      memcpy(f->dst + r * n + f->los[q], b + r * cq, sizeof(double) * (size_t)cq);
  }
}

int bench_transpose_mpi(int argc, char **argv, const bench_opts_t *o) {
  MPI_Init(&argc, &argv);
  flat_t f;
  memset(&f, 0, sizeof f);
  MPI_Comm_rank(MPI_COMM_WORLD, &f.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &f.P);
  const long *sizes;
  int ns = worker_sizes(argc, argv, o, &sizes), P = f.P;
  if (f.rank == 0) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING - 1] = '\0';
    char *nl = strpbrk(lib, "\r\n,");
    if (nl) *nl = '\0';
    printf("I library %s\nI layout %d ranks\n", lib, P);
    fflush(stdout);
  }
  f.sc = malloc(sizeof(int) * 4 * (size_t)P);
  f.los = malloc(sizeof(long) * 2 * (size_t)P);
  if (!f.sc || !f.los) mpi_fail(f.rank, 0, "out of memory");
  f.sd = f.sc + P;
  f.rc = f.sd + P;
  f.rd = f.rc + P;
  f.cnt = f.los + P;
  for (int k = 0; k < ns; k++) {
    long n = sizes[k];
    f.n = n;
    for (int q = 0; q < P; q++) {
      f.cnt[q] = n / P + (q < n % P);
      f.los[q] = q * (n / P) + (q < n % P ? q : n % P);
    }
    f.lo = f.los[f.rank];
    f.rows = f.cnt[f.rank];
    f.uniform = n % P == 0;
    long at = 0, ar = 0;
    for (int q = 0; q < P; q++) {
      f.sc[q] = (int)(f.rows * f.cnt[q]);
      f.sd[q] = (int)at;
      at += f.sc[q];
      f.rc[q] = (int)(f.cnt[q] * f.rows);
      f.rd[q] = (int)ar;
      ar += f.rc[q];
    }
    size_t local = (size_t)f.rows * (size_t)n * sizeof(double);
    f.src = alloc_or_null(local);
    f.dst = alloc_or_null(local);
    f.sbuf = alloc_or_null(local);
    f.rbuf = alloc_or_null(local);
    if (!f.src || !f.dst || !f.sbuf || !f.rbuf) mpi_fail(f.rank, n, "out of memory");
    for (long li = 0; li < f.rows; li++)
      for (long j = 0; j < n; j++) f.src[li * n + j] = elem(f.lo + li, j, n);
    memset(f.dst, 0, local);
    MPI_Barrier(MPI_COMM_WORLD);
    flat_transpose(&f);
    for (long lc = 0; lc < f.rows; lc++)
      for (long i = 0; i < n; i++)
        if (f.dst[lc * n + i] != elem(i, f.lo + lc, n)) mpi_fail(f.rank, n, "wrong result");
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), t;
    flat_transpose(&f);
    t = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int S = samples_for(t, o->quick);
    double v[16];
    for (int j = 0; j < S; j++) {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
      flat_transpose(&f);
      v[j] = MPI_Wtime() - t0;
    }
    MPI_Allreduce(MPI_IN_PLACE, v, S, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    qsort(v, (size_t)S, sizeof *v, cmp_double);
    if (f.rank == 0) {
      printf("R transpose %ld %.3f\n", n, 1e6 * v[S / 2]);
      fflush(stdout);
    }
    free(f.src);
    free(f.dst);
    free(f.sbuf);
    free(f.rbuf);
  }
  free(f.sc);
  free(f.los);
  MPI_Finalize();
  return 0;
}

/* ------------------------------------------------------------------------
 * The driver. */

typedef struct {
  long n;
  double side[2][MAX_ROUNDS];
  int cnt[2];
} trow_t;

static trow_t trows[MAX_SIZES];
static int ntrows;
static char tlib[256];

static int tline(const char *line, void *arg) {
  int side = *(const int *)arg;
  long n;
  double us;
  if (sscanf(line, "R transpose %ld %lf", &n, &us) == 2) {
    int i = 0;
    while (i < ntrows && trows[i].n != n) i++;
    if (i == ntrows && ntrows < MAX_SIZES) {
      memset(&trows[i], 0, sizeof trows[i]);
      trows[i].n = n;
      ntrows++;
    }
    if (i < ntrows && trows[i].cnt[side] < MAX_ROUNDS)
      trows[i].side[side][trows[i].cnt[side]++] = us;
    return 1;
  }
  if (strncmp(line, "I library ", 10) == 0)
    snprintf(tlib, sizeof tlib, "%.*s", (int)strcspn(line + 10, "\n"), line + 10);
  return line[0] == 'I' && line[1] == ' ';
}

static int trun(const char *cmd, int side) { return bench_run_worker(cmd, tline, &side); }

/* Bytes of memory available now (MemAvailable), or 0 if unknown. */
static unsigned long long mem_available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  unsigned long long kb = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
  fclose(f);
  return kb * 1024ull;
}

static int targ_count(const char *v, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  if (!v || !v[0]) return -1;
  long x = strtol(v, &end, 10);
  if (errno || *end || x < lo || x > hi) return -1;
  *out = x;
  return 0;
}

static double tmed(trow_t *r, int side) {
  if (!r->cnt[side]) return NAN;
  double v[MAX_ROUNDS];
  memcpy(v, r->side[side], sizeof(double) * (size_t)r->cnt[side]);
  qsort(v, (size_t)r->cnt[side], sizeof *v, cmp_double);
  int c = r->cnt[side];
  return c % 2 ? v[c / 2] : 0.5 * (v[c / 2 - 1] + v[c / 2]);
}

static void tusage(FILE *f) {
  fprintf(f,
          "usage: simple-bench transpose [-N NODES] [-t THREADS] [--vcluster] [--quick]\n"
          "                              [--rounds R] [--max-n N] [--csv FILE]\n");
}

int bench_transpose_suite(int argc, char **argv) {
  long N = -1, T = 2, rounds = -1, max_n = 8192;
  int quick = 0, vcluster = 0;
  const char *csv = NULL;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--quick") == 0) {
      quick = 1;
    } else if (strcmp(a, "--vcluster") == 0) {
      vcluster = 1;
    } else if (strcmp(a, "-N") == 0 || strcmp(a, "-t") == 0 || strcmp(a, "--rounds") == 0 ||
               strcmp(a, "--max-n") == 0) {
      long *dst = a[1] == 'N' ? &N : a[1] == 't' ? &T : a[2] == 'r' ? &rounds : &max_n;
      long hi = a[1] == 'N' ? 256 : a[1] == 't' ? 1024 : a[2] == 'r' ? MAX_ROUNDS : 65536;
      if (targ_count(v, 1, hi, dst) != 0) {
        fprintf(stderr, "simple-bench: %s needs a count from 1 to %ld, not '%s'\n", a, hi,
                v ? v : "");
        return 2;
      }
      i++;
    } else if (strcmp(a, "--csv") == 0) {
      if (!v || !v[0] || v[0] == '-') {
        fprintf(stderr, "simple-bench: --csv needs a file name\n");
        return 2;
      }
      csv = v;
      i++;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      tusage(stdout);
      return 0;
    } else {
      fprintf(stderr, "simple-bench: unknown option '%s'\n", a);
      tusage(stderr);
      return 2;
    }
  }
  if (N < 0) N = vcluster ? 2 : 1;
  if (rounds < 0) rounds = quick ? 1 : 3;
  long P = N * T;
  /* Memory: each side holds about four n x n matrices of doubles at once
   * (source, result, and packing or message buffers), all on this host
   * here or on the virtual cluster; keep them within half of what is
   * available. */
  unsigned long long avail = mem_available();
  while (avail && max_n > 256 &&
         32ull * (unsigned long long)max_n * (unsigned long long)max_n > avail / 2)
    max_n /= 2;
  FILE *out = NULL;
  if (csv && !(out = fopen(csv, "w"))) {
    fprintf(stderr, "simple-bench: cannot write %s: %s\n", csv, strerror(errno));
    return 1;
  }
  char dir[PATH_MAX];
  bench_self_dir(dir, sizeof dir);
  int cores = bench_usable_cores();
  int multi = vcluster || getenv("SLURM_JOB_ID") != NULL;
  int pin = !multi && P <= cores;
  char args[128];
  snprintf(args, sizeof args, "--max-n %ld%s", max_n, quick ? " --quick" : "");
  char cmd[2][2 * PATH_MAX + 512];
  snprintf(cmd[0], sizeof cmd[0],
           "%s'%s/simplerun'%s -N %ld -t %ld '%s/simple-bench' --worker transpose-hybrid %s",
           pin ? "SIMPLE_PIN=1 " : "", dir, vcluster ? " --vcluster" : "", N, T, dir, args);
  if (multi)
    snprintf(cmd[1], sizeof cmd[1],
             "'%s/simplerun'%s -N %ld --procs-per-node %ld -t 1 '%s/simple-bench' --worker "
             "transpose-mpi %s",
             dir, vcluster ? " --vcluster" : "", N, T, dir, args);
  else
    snprintf(cmd[1], sizeof cmd[1],
             "'%s/simplerun' --bind %s -N %ld -t 1 '%s/simple-bench' --worker transpose-mpi %s",
             dir, pin ? "core" : "none", P, dir, args);
  printf(
      "simple-bench transpose: n x n doubles by rows; %ld node(s) x %ld thread(s) (simple) against"
      " %ld MPI rank(s) x 1 thread (flat MPI_Alltoall), %s, %ld round(s)%s\n",
      N, T, P,
      vcluster ? "virtual cluster"
      : multi  ? "Slurm"
               : "one host",
      rounds, pin ? ", pinned" : "");
  fflush(stdout);
  for (int r = 0; r < rounds; r++) {
    fprintf(stderr, "  round %d/%ld\n", r + 1, rounds);
    for (int k = 0; k < 2; k++) {
      int side = (r % 2) ? 1 - k : k;
      if (trun(cmd[side], side) != 0) {
        if (out) fclose(out);
        return 1;
      }
    }
  }
  printf("MPI: %s\n", tlib[0] ? tlib : "unknown library");
  printf("%6s %9s %12s %12s %11s %11s %11s\n", "n", "MiB", "simple_ms", "mpi_ms", "simple_GB/s",
         "mpi_GB/s", "mpi/simple");
  if (out) fprintf(out, "suite,n,nodes,threads,simple_us,mpi_us,simple_gbs,mpi_gbs,ratio\n");
  for (int i = 0; i < ntrows; i++) {
    trow_t *r = &trows[i];
    double h = tmed(r, 0), m = tmed(r, 1), bytes = 8.0 * (double)r->n * (double)r->n;
    double gh = bytes / (h * 1e3), gm = bytes / (m * 1e3), ratio = m / h;
    printf("%6ld %9.1f %12.3f %12.3f %11.2f %11.2f %11.2f\n", r->n, bytes / 1048576.0, h / 1e3,
           m / 1e3, gh, gm, ratio);
    if (out)
      fprintf(out, "transpose,%ld,%ld,%ld,%.3f,%.3f,%.4f,%.4f,%.4f\n", r->n, N, T, h, m, gh, gm,
              ratio);
  }
  if (out && fclose(out) != 0) {
    fprintf(stderr, "simple-bench: writing %s failed\n", csv);
    return 1;
  }
  return 0;
}
