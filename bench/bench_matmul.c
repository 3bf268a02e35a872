/* simple-bench matmul: Cannon's multiply of simple (simple_matmul_cannon,
 * variants put and get, on NODES x THREADS = q x q processors) beside
 * ScaLAPACK's pdgemm on the same q x q grid (one single-threaded MPI rank
 * per processor, one nb x nb block per rank: the same distribution) and a
 * serial dgemm (one thread), in one invocation. All use OpenBLAS with one
 * BLAS thread per processor.
 *
 * Per n (512, 1024, 2048; --quick 256, 512; rounded down to a multiple of
 * q): one call whose result passes the checksum test (C x against A (B x),
 * relative error below 1e-12, or the job fails), then samples of one call
 * each between barriers (about 1 s, 3 to 9 samples; a sample's time is the
 * maximum over processors); the median is reported as "R <side> <n> <us>".
 * The driver alternates the sides round by round and prints the median
 * over rounds, GFLOP/s (2 n^3 flops), the ratio pdgemm time / simple time
 * (above 1: simple is faster; the target is at least 1/1.2) and the
 * speedup over the serial dgemm. */
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

#include <cblas.h>
#include <simple.h>
#include <simple_matmul.h>

#include "bench.h"

#define MM_MAX_SIZES  8
#define MM_MAX_ROUNDS 32
#define MM_TOL        1e-12
#define MM_SEED       11

enum { MM_PUT, MM_GET, MM_PDGEMM, MM_DGEMM, MM_NSIDES };
static const char *mm_side_name[MM_NSIDES] = {"put", "get", "pdgemm", "dgemm"};

static const long mm_full[] = {512, 1024, 2048};
static const long mm_quick[] = {256, 512};

/* The sizes for a grid of side q, up to max_n, each a multiple of q. */
static int mm_sizes(int argc, char **argv, int quick, int q, long *out) {
  long max_n = bench_arg_long(argc, argv, "--max-n", 2048);
  const long *l = quick ? mm_quick : mm_full;
  int n = quick ? 2 : 3, k = 0;
  for (int i = 0; i < n; i++)
    if (l[i] <= max_n && l[i] / q * q > 0) out[k++] = l[i] / q * q;
  return k;
}

/* Samples per size: about 1 s of products, 3 to 9. */
#define MM_BUDGET  1.0
#define MM_SAMPLES 9

static double *mm_alloc(size_t count) {
  void *p = NULL;
  if (posix_memalign(&p, 64, count ? count * sizeof(double) : 64) != 0) return NULL;
  return p;
}

/* ------------------------------------------------------------------------
 * simple's side: both variants, the backend from SIMPLE_RMA. */

/* One timed product of the hybrid side, and the check of its result. */
typedef struct {
  simple_t *s;
  long n;
  double *A, *B, *C;
  simple_matmul_variant_t var;
  int side;
} mm_timed_t;

static void mm_cannon(void *arg) {
  mm_timed_t *c = arg;
  int rc = simple_matmul_cannon(c->s, c->n, c->A, c->B, c->C, c->var);
  if (rc) simple_abort(c->s, "simple-bench matmul: cannon: %s", simple_errname(rc));
}

static void mm_check(void *arg) {
  mm_timed_t *c = arg;
  double err = 1;
  int rc = simple_matmul_checksum(c->s, c->n, c->A, c->B, c->C, MM_SEED + 2, &err);
  if (rc) simple_abort(c->s, "simple-bench matmul: checksum: %s", simple_errname(rc));
  if (!(err < MM_TOL))
    simple_abort(c->s, "simple-bench matmul: n = %ld, %s: wrong product (checksum error %.3e)",
                 c->n, mm_side_name[c->side], err);
}

static void mm_hybrid(simple_t *s, void *arg) {
  const bench_args_t *a = arg;
  int q, me = simple_pid(s);
  if (simple_matmul_grid(s, &q) != 0)
    simple_abort(s, "simple-bench matmul: %d processors are not a square", simple_nprocs(s));
  long sizes[MM_MAX_SIZES];
  int ns = mm_sizes(a->argc, a->argv, a->o->quick, q, sizes);
  if (me == 0) {
    printf("I layout %d nodes x %d threads, backend %s\n", simple_nodes(s), simple_threads(s),
           simple_rma_backend(s) == SIMPLE_RMA_ONESIDED ? "onesided" : "twosided");
    fflush(stdout);
  }
  for (int k = 0; k < ns; k++) {
    long n = sizes[k], nb = n / q;
    size_t nb2 = (size_t)(nb * nb);
    double *A = mm_alloc(nb2), *B = mm_alloc(nb2), *C = mm_alloc(nb2);
    if (!A || !B || !C) simple_abort(s, "simple-bench matmul: n = %ld: out of memory", n);
    int rc = simple_matmul_fill(s, n, n, MM_SEED, A);
    if (!rc) rc = simple_matmul_fill(s, n, n, MM_SEED + 1, B);
    if (rc) simple_abort(s, "simple-bench matmul: fill: %s", simple_errname(rc));
    for (int v = MM_PUT; v <= MM_GET; v++) {
      simple_matmul_variant_t var = v == MM_PUT ? SIMPLE_MATMUL_PUT : SIMPLE_MATMUL_GET;
      mm_timed_t c = {s, n, A, B, C, var, v};
      bench_timed_t t = {mm_cannon, NULL, mm_check, &c, MM_BUDGET, MM_SAMPLES};
      double med = bench_time_hybrid(s, &t);
      bench_row_out(me, mm_side_name[v], n, med);
    }
    free(A);
    free(B);
    free(C);
  }
}

int bench_matmul_hybrid(int argc, char **argv, const bench_opts_t *o) {
  openblas_set_num_threads(1);
  bench_args_t a = {argc, argv, o};
  return simple_run(&argc, &argv, mm_hybrid, &a);
}

/* ------------------------------------------------------------------------
 * ScaLAPACK's pdgemm on a q x q BLACS grid, one rank per processor. */

#ifdef SIMPLE_HAVE_SCALAPACK
#include "scalapack.h"

static void mm_mpi_fail(int rank, const char *what, long n) {
  fprintf(stderr, "simple-bench matmul: rank %d: n = %ld: %s\n", rank, n, what);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  exit(3);
}

/* The checksum test for column-major local blocks (ScaLAPACK's layout). */
static double mm_mpi_checksum(long n, long nb, int myrow, int mycol, const double *a,
                              const double *b, const double *c) {
  double *x = calloc(3 * (size_t)n, sizeof(double)), *y = x + n, *z = y + n;
  if (!x) mm_mpi_fail(-1, "out of memory", n);
  long r0 = myrow * nb, c0 = mycol * nb;
  for (long k = 0; k < n; k++) x[k] = simple_matmul_elem((MM_SEED + 2) ^ 0x5eedull, n, k, 0);
    /* z = b x; y = a z; then z = c x. */
#define MATVEC(m, in, out)                                                         \
  do {                                                                             \
    memset(out, 0, sizeof(double) * (size_t)n);                                    \
    for (long cc = 0; cc < nb; cc++)                                               \
      for (long r = 0; r < nb; r++) out[r0 + r] += (m)[r + cc * nb] * in[c0 + cc]; \
    MPI_Allreduce(MPI_IN_PLACE, out, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); \
  } while (0)
  MATVEC(b, x, z);
  MATVEC(a, z, y);
  MATVEC(c, x, z);
#undef MATVEC
  double xn = 0, d = 0, fr[2] = {0, 0};
  for (long k = 0; k < n; k++) {
    xn += x[k] * x[k];
    d += (z[k] - y[k]) * (z[k] - y[k]);
  }
  for (long k = 0; k < nb * nb; k++) {
    fr[0] += a[k] * a[k];
    fr[1] += b[k] * b[k];
  }
  MPI_Allreduce(MPI_IN_PLACE, fr, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  free(x);
  return sqrt(d) / (sqrt(fr[0]) * sqrt(fr[1]) * sqrt(xn));
}

/* One timed pdgemm of the flat side, and the check of its result. */
typedef struct {
  int rank;
  long n, nb;
  int myrow, mycol;
  double *A, *B, *C;
  int *desc;
} pd_timed_t;

static void pd_gemm(void *arg) {
  pd_timed_t *c = arg;
  const double alpha = 1.0, beta = 0.0;
  int in = (int)c->n, one = 1;
  pdgemm_("N", "N", &in, &in, &in, &alpha, c->A, &one, &one, c->desc, c->B, &one, &one, c->desc,
          &beta, c->C, &one, &one, c->desc);
}

static void pd_check(void *arg) {
  pd_timed_t *c = arg;
  double err = mm_mpi_checksum(c->n, c->nb, c->myrow, c->mycol, c->A, c->B, c->C);
  if (!(err < MM_TOL)) mm_mpi_fail(c->rank, "pdgemm: wrong product (checksum)", c->n);
}

int bench_matmul_pdgemm(int argc, char **argv, const bench_opts_t *o) {
  openblas_set_num_threads(1);
  MPI_Init(&argc, &argv);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  int q = 0;
  while ((q + 1) * (q + 1) <= P) q++;
  if (q * q != P) mm_mpi_fail(rank, "the rank count is not a square", 0);
  if (rank == 0) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    bench_mpi_library(lib, sizeof lib);
    printf("I library %s\n", lib);
    fflush(stdout);
  }
  int ctxt, nprow, npcol, myrow, mycol;
  Cblacs_get(-1, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "Row", q, q);
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  long sizes[MM_MAX_SIZES];
  int ns = mm_sizes(argc, argv, o->quick, q, sizes);
  for (int k = 0; k < ns; k++) {
    long n = sizes[k], nb = n / q;
    size_t nb2 = (size_t)(nb * nb);
    double *A = mm_alloc(nb2), *B = mm_alloc(nb2), *C = mm_alloc(nb2);
    if (!A || !B || !C) mm_mpi_fail(rank, "out of memory", n);
    /* Column-major local blocks: element (r, c) of the block at r + c nb. */
    for (long c = 0; c < nb; c++)
      for (long r = 0; r < nb; r++) {
        A[r + c * nb] = simple_matmul_elem(MM_SEED, n, myrow * nb + r, mycol * nb + c);
        B[r + c * nb] = simple_matmul_elem(MM_SEED + 1, n, myrow * nb + r, mycol * nb + c);
      }
    int desc[9], info, in = (int)n, inb = (int)nb, zero = 0;
    descinit_(desc, &in, &in, &inb, &inb, &zero, &zero, &ctxt, &inb, &info);
    if (info != 0) mm_mpi_fail(rank, "descinit failed", n);
    pd_timed_t c = {rank, n, nb, myrow, mycol, A, B, C, desc};
    bench_timed_t t = {pd_gemm, NULL, pd_check, &c, MM_BUDGET, MM_SAMPLES};
    double med = bench_time_flat(&t);
    bench_row_out(rank, "pdgemm", n, med);
    free(A);
    free(B);
    free(C);
  }
  Cblacs_gridexit(ctxt);
  MPI_Finalize();
  return 0;
}
#else
int bench_matmul_pdgemm(int argc, char **argv, const bench_opts_t *o) {
  (void)argc, (void)argv, (void)o;
  fprintf(stderr, "simple-bench matmul: this build has no ScaLAPACK (pdgemm) anchor\n");
  return 2;
}
#endif

/* ------------------------------------------------------------------------
 * Serial dgemm: one thread, the whole n x n matrices (row-major). */

int bench_matmul_serial(int argc, char **argv, const bench_opts_t *o) {
  openblas_set_num_threads(1);
  long q = 1;
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--q") == 0) q = atol(argv[i + 1]);
  if (q < 1) q = 1;
  long sizes[MM_MAX_SIZES];
  int ns = mm_sizes(argc, argv, o->quick, (int)q, sizes);
  for (int k = 0; k < ns; k++) {
    long n = sizes[k];
    size_t nn = (size_t)(n * n);
    double *A = mm_alloc(nn), *B = mm_alloc(nn), *C = mm_alloc(nn), *x = mm_alloc(3 * (size_t)n);
    if (!A || !B || !C || !x) {
      fprintf(stderr, "simple-bench matmul: serial: n = %ld: out of memory\n", n);
      return 3;
    }
    double fa = 0, fb = 0;
    for (long i = 0; i < n; i++)
      for (long j = 0; j < n; j++) {
        A[i * n + j] = simple_matmul_elem(MM_SEED, n, i, j);
        B[i * n + j] = simple_matmul_elem(MM_SEED + 1, n, i, j);
        fa += A[i * n + j] * A[i * n + j];
        fb += B[i * n + j] * B[i * n + j];
      }
    int in = (int)n;
    double t0 = simple_time();
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, in, in, in, 1.0, A, in, B, in, 0.0, C,
                in);
    double t = simple_time() - t0;
    /* The checksum test, serially: C x against A (B x). */
    double *y = x + n, *z = y + n, xn = 0, d = 0;
    for (long i = 0; i < n; i++) x[i] = simple_matmul_elem((MM_SEED + 2) ^ 0x5eedull, n, i, 0);
    cblas_dgemv(CblasRowMajor, CblasNoTrans, in, in, 1.0, B, in, x, 1, 0.0, z, 1);
    cblas_dgemv(CblasRowMajor, CblasNoTrans, in, in, 1.0, A, in, z, 1, 0.0, y, 1);
    cblas_dgemv(CblasRowMajor, CblasNoTrans, in, in, 1.0, C, in, x, 1, 0.0, z, 1);
    for (long i = 0; i < n; i++) {
      xn += x[i] * x[i];
      d += (z[i] - y[i]) * (z[i] - y[i]);
    }
    if (!(sqrt(d) / (sqrt(fa) * sqrt(fb) * sqrt(xn)) < MM_TOL)) {
      fprintf(stderr, "simple-bench matmul: serial dgemm: n = %ld: wrong product\n", n);
      return 3;
    }
    int S = bench_timed_samples(t, MM_BUDGET, MM_SAMPLES);
    double smp[9];
    for (int j = 0; j < S; j++) {
      t0 = simple_time();
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, in, in, in, 1.0, A, in, B, in, 0.0, C,
                  in);
      smp[j] = simple_time() - t0;
    }
    double med = bench_median(smp, (size_t)S);
    bench_row_out(0, "dgemm", n, med);
    free(A);
    free(B);
    free(C);
    free(x);
  }
  return 0;
}

/* ------------------------------------------------------------------------
 * The driver. */

/* Rows by size (bytes = n), sides put, get, pdgemm, dgemm. */
static bench_row_t mm_rows[MM_MAX_SIZES];
static bench_table_t mm_table = {mm_rows, 0, MM_MAX_SIZES};
static char mm_lib[256], mm_backend[32];

static int mm_line(const char *line, void *arg) {
  (void)arg;
  char side[32];
  long n;
  double us;
  if (sscanf(line, "R %31s %ld %lf", side, &n, &us) == 3) {
    int sd = bench_side_of(side, mm_side_name, MM_NSIDES);
    if (sd >= 0 && n > 0) bench_row_add(bench_row(&mm_table, "", (size_t)n), sd, us);
  } else if (bench_info(line, "library", mm_lib, sizeof mm_lib)) {
  } else if (strncmp(line, "I layout ", 9) == 0) {
    const char *b = strstr(line, "backend ");
    if (b) snprintf(mm_backend, sizeof mm_backend, "%.*s", (int)strcspn(b + 8, "\n"), b + 8);
  } else if (line[0] != 'I' || line[1] != ' ') {
    return 0;
  }
  return 1;
}

static int mm_run(const char *cmd) { return bench_run_worker(cmd, mm_line, NULL); }

/* The three sides (simple, pdgemm, serial dgemm); pdgemm skipped when this
 * build has no ScaLAPACK. */
typedef struct {
  const bench_cmd_t *cmd;
  int have_pdgemm;
} mm_sides_t;
static int mm_side(int side, long round, void *ctx) {
  const mm_sides_t *m = ctx;
  (void)round;
  return side == 1 && !m->have_pdgemm ? 0 : mm_run(m->cmd[side]);
}

static void mm_usage(FILE *f) {
  fprintf(f,
          "usage: simple-bench matmul [-N NODES] [-t THREADS] [--vcluster] [--quick]\n"
          "                           [--rounds R] [--max-n N] [--csv FILE]\n"
          "  NODES x THREADS must be a square q^2 (Cannon's q x q grid); default 1 x 4\n"
          "  (2 x 2 with --vcluster). SIMPLE_RMA=onesided|twosided picks simple's backend.\n");
}

static void mm_fmt(char *b, size_t len, double v, const char *f) {
  if (isnan(v))
    snprintf(b, len, "-");
  else
    snprintf(b, len, f, v);
}

int bench_matmul_suite(int argc, char **argv) {
  bench_suite_t b = {.T = -1, .rounds = 3};
  long max_n = 2048;
  const bench_opt_t opts[] = {{"--max-n", BENCH_NUM, &max_n, 1, 32768, NULL}, {0}};
  int rc = bench_suite_parse(&b, argc, argv, MM_MAX_ROUNDS, opts, mm_usage);
  if (rc) return rc < 0 ? 0 : rc;
  if (b.T < 0) b.T = b.N == 1 ? 4 : b.N == 2 ? 2 : b.N == 4 ? 1 : 4;
  long N = b.N, T = b.T, rounds = b.rounds, P = N * T, q = 0;
  int quick = b.quick, vcluster = b.vcluster;
  while ((q + 1) * (q + 1) <= P) q++;
  if (q * q != P) {
    fprintf(stderr,
            "simple-bench matmul: %ld node(s) x %ld thread(s) = %ld processors is not a square;"
            " Cannon's algorithm and pdgemm run on a q x q grid (e.g. -N 1 -t 4, -N 2 -t 2)\n",
            N, T, P);
    return 2;
  }
  if (bench_suite_start(&b, P)) return 1;
  FILE *out = b.out;
  const char *dir = b.pl.dir;
  int multi = b.pl.multi, pin = b.pl.pin;
  char args[128];
  snprintf(args, sizeof args, "--max-n %ld%s", max_n, quick ? " --quick" : "");
  /* Sides: simple (both variants in one job), pdgemm, serial dgemm. */
  bench_cmd_t cmd[3];
  const char *blas1 = "OPENBLAS_NUM_THREADS=1 ";
  bench_worker_cmd(cmd[0], sizeof cmd[0], &b.pl, vcluster, BENCH_HYBRID, N, T, blas1,
                   "matmul-hybrid", args);
  bench_worker_cmd(cmd[1], sizeof cmd[1], &b.pl, vcluster, BENCH_FLAT, N, T, blas1, "matmul-pdgemm",
                   args);
  snprintf(cmd[2], sizeof cmd[2],
           "OPENBLAS_NUM_THREADS=1 '%s/simple-bench' --worker matmul-serial %s --q %ld", dir, args,
           q);
#ifdef SIMPLE_HAVE_SCALAPACK
  int have_pdgemm = 1;
#else
  int have_pdgemm = 0;
#endif
  printf(
      "simple-bench matmul: C = A x B, n x n doubles; Cannon on %ld node(s) x %ld thread(s)"
      " (q = %ld) against ScaLAPACK pdgemm on %ld MPI rank(s) x 1 thread and serial dgemm"
      " (1 thread), %s, %ld round(s)%s\n",
      N, T, q, P, bench_where(vcluster, multi), rounds, pin ? ", pinned" : "");
  if (!have_pdgemm)
    printf(
        "pdgemm: skipped (this build has no ScaLAPACK for its MPI; Debian's is built for"
        " Open MPI)\n");
  fflush(stdout);
  mm_sides_t sides = {cmd, have_pdgemm};
  if (bench_alternate(rounds, 3, mm_side, &sides) != 0) {
    bench_suite_close(&b);
    return 1;
  }
  printf("MPI: %s; simple's one-sided backend: %s; times are medians over rounds\n",
         mm_lib[0] ? mm_lib : "unknown library", mm_backend[0] ? mm_backend : "?");
  printf("%6s %10s %10s %10s %10s %10s %10s %10s %9s\n", "n", "put_ms", "get_ms", "pdgemm_ms",
         "put_GF/s", "get_GF/s", "pdgemm_GF", "dgemm1_GF", "pdgemm/s");
  if (out)
    fprintf(out,
            "suite,n,nodes,threads,put_us,get_us,pdgemm_us,dgemm_us,put_gflops,get_gflops,"
            "pdgemm_gflops,dgemm_gflops,ratio_pdgemm_over_simple,speedup_over_dgemm\n");
  for (int i = 0; i < mm_table.nrows; i++) {
    bench_row_t *r = &mm_rows[i];
    long rn = (long)r->bytes;
    double t[MM_NSIDES], gf[MM_NSIDES], fl = 2.0 * (double)rn * (double)rn * (double)rn;
    for (int sd = 0; sd < MM_NSIDES; sd++) {
      t[sd] = bench_row_median(r, sd);
      gf[sd] = fl / (t[sd] * 1e3);
    }
    double best = fmin(t[MM_PUT], t[MM_GET]);
    double ratio = t[MM_PDGEMM] / best, speedup = t[MM_DGEMM] / best;
    char cell[8][32];
    mm_fmt(cell[0], 32, t[MM_PUT] / 1e3, "%.2f");
    mm_fmt(cell[1], 32, t[MM_GET] / 1e3, "%.2f");
    mm_fmt(cell[2], 32, t[MM_PDGEMM] / 1e3, "%.2f");
    mm_fmt(cell[3], 32, gf[MM_PUT], "%.2f");
    mm_fmt(cell[4], 32, gf[MM_GET], "%.2f");
    mm_fmt(cell[5], 32, gf[MM_PDGEMM], "%.2f");
    mm_fmt(cell[6], 32, gf[MM_DGEMM], "%.2f");
    mm_fmt(cell[7], 32, ratio, "%.2f");
    printf("%6ld %10s %10s %10s %10s %10s %10s %10s %9s\n", rn, cell[0], cell[1], cell[2], cell[3],
           cell[4], cell[5], cell[6], cell[7]);
    if (out)
      fprintf(out, "matmul,%ld,%ld,%ld,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f\n", rn, N,
              T, t[MM_PUT], t[MM_GET], t[MM_PDGEMM], t[MM_DGEMM], gf[MM_PUT], gf[MM_GET],
              gf[MM_PDGEMM], gf[MM_DGEMM], ratio, speedup);
  }
  printf(
      "pdgemm/s: pdgemm time over simple's faster variant (above 1: simple is faster;"
      " target >= %.2f, within 1.2x)\n",
      1 / 1.2);
  if (bench_suite_finish(&b)) return 1;
  return 0;
}
