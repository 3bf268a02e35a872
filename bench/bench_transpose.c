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
    double med = bench_median(v, (size_t)S);
    if (me == 0) {
      printf("R transpose %ld %.3f\n", n, 1e6 * med);
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
    double med = bench_median(v, (size_t)S);
    if (f.rank == 0) {
      printf("R transpose %ld %.3f\n", n, 1e6 * med);
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

/* Rows by matrix order (bytes = n); sides hybrid (0) and flat MPI (1). */
static bench_row_t trows[MAX_SIZES];
static bench_table_t ttable = {trows, 0, MAX_SIZES};
static char tlib[256];

static int tline(const char *line, void *arg) {
  int side = *(const int *)arg;
  long n;
  double us;
  if (sscanf(line, "R transpose %ld %lf", &n, &us) == 2) {
    if (n > 0) bench_row_add(bench_row(&ttable, "", (size_t)n), side, us);
    return 1;
  }
  return bench_info(line, "library", tlib, sizeof tlib) || (line[0] == 'I' && line[1] == ' ');
}

static int trun(const char *cmd, int side) { return bench_run_worker(cmd, tline, &side); }

static void tusage(FILE *f) {
  fprintf(f,
          "usage: simple-bench transpose [-N NODES] [-t THREADS] [--vcluster] [--quick]\n"
          "                              [--rounds R] [--max-n N] [--csv FILE]\n");
}

int bench_transpose_suite(int argc, char **argv) {
  long N = -1, T = 2, rounds = -1, max_n = 8192;
  int quick = 0, vcluster = 0;
  const char *csv = NULL;
  const bench_opt_t opts[] = {{"--quick", BENCH_FLAG, &quick, 0, 0},
                              {"--vcluster", BENCH_FLAG, &vcluster, 0, 0},
                              {"-N", BENCH_NUM, &N, 1, 256},
                              {"-t", BENCH_NUM, &T, 1, 1024},
                              {"--rounds", BENCH_NUM, &rounds, 1, MAX_ROUNDS},
                              {"--max-n", BENCH_NUM, &max_n, 1, 65536},
                              {"--csv", BENCH_WORD, &csv, 0, 0},
                              {NULL, 0, NULL, 0, 0}};
  int rc = bench_parse(argc, argv, opts, tusage);
  if (rc) return rc == 1 ? 0 : rc;
  if (N < 0) N = vcluster ? 2 : 1;
  if (rounds < 0) rounds = quick ? 1 : 3;
  long P = N * T;
  /* Memory: each side holds about four n x n matrices of doubles at once
   * (source, result, and packing or message buffers), all on this host
   * here or on the virtual cluster; keep them within half of what is
   * available. */
  unsigned long long avail = simple_mem_available();
  while (avail && max_n > 256 &&
         32ull * (unsigned long long)max_n * (unsigned long long)max_n > avail / 2)
    max_n /= 2;
  FILE *out;
  if (bench_open_csv(csv, &out)) return 1;
  bench_place_t pl;
  bench_place(&pl, vcluster, P);
  int multi = pl.multi, pin = pl.pin;
  char args[128];
  snprintf(args, sizeof args, "--max-n %ld%s", max_n, quick ? " --quick" : "");
  char cmd[2][2 * PATH_MAX + 512];
  bench_worker_cmd(cmd[0], sizeof cmd[0], &pl, vcluster, BENCH_HYBRID, N, T, "", "transpose-hybrid",
                   args);
  bench_worker_cmd(cmd[1], sizeof cmd[1], &pl, vcluster, BENCH_FLAT, N, T, "", "transpose-mpi",
                   args);
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
  for (int i = 0; i < ttable.nrows; i++) {
    bench_row_t *r = &trows[i];
    long rn = (long)r->bytes;
    double h = bench_row_median(r, 0), m = bench_row_median(r, 1);
    double bytes = 8.0 * (double)rn * (double)rn;
    double gh = bytes / (h * 1e3), gm = bytes / (m * 1e3), ratio = m / h;
    printf("%6ld %9.1f %12.3f %12.3f %11.2f %11.2f %11.2f\n", rn, bytes / 1048576.0, h / 1e3,
           m / 1e3, gh, gm, ratio);
    if (out)
      fprintf(out, "transpose,%ld,%ld,%ld,%.3f,%.3f,%.4f,%.4f,%.4f\n", rn, N, T, h, m, gh, gm,
              ratio);
  }
  if (out && fclose(out) != 0) {
    fprintf(stderr, "simple-bench: writing %s failed\n", csv);
    return 1;
  }
  return 0;
}
