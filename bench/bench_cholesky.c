/* simple-bench cholesky: simple_cholesky (paper 003's block Cholesky,
 * Figures 7 and 8) against the anchors people use, on the same processors,
 * in one invocation:
 *   - dense D1000 (generated, n = 1000; --quick: 500): simple on 1x1 and on
 *     NODES x THREADS, ScaLAPACK's pdpotrf on NODES*THREADS flat MPI ranks
 *     (block-cyclic, the most square grid), both with blocks of --nb
 *     (default 64);
 *   - sparse BCSSTK15 (/work/shared/data/bcsstk15.mtx, or --matrix): simple
 *     on 1x1 and NODES x THREADS, MUMPS (symmetric positive definite, METIS
 *     ordering) on NODES*THREADS flat ranks.
 * Times are the factorization alone (orderings and analyses untimed on
 * both sides), max over processors. Rounds alternate the order of the
 * jobs; the driver prints medians, the speedup T(1x1) / T(p) and the ratio
 * T(simple) / T(anchor) (target <= 1.5). Workers print
 * "R <side> <matrix> <p> <seconds>". */
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simple.h>

#include "bench.h"
#include "simple_cholesky.h"

#ifdef SIMPLE_HAVE_MUMPS
#include <dmumps_c.h>
#endif

#define C_ROUNDS         BENCH_ROUNDS
#define C_DEFAULT_MATRIX "/work/shared/data/bcsstk15.mtx"

void openblas_set_num_threads(int n);

/* ---------------------------------------------------------------------
 * simple_cholesky. */

typedef struct {
  int n, nb; /* nb 0: the library's default */
  const char *matrix;
  int failed;
} cargs_t;

static void cworker(simple_t *s, void *arg) {
  cargs_t *a = arg;
  simple_cholesky_opts_t o = {a->n, a->nb, 0, a->matrix};
  simple_cholesky_result_t r;
  int rc = simple_cholesky(s, &o, &r);
  if (rc || !(r.residual < 1e-12)) {
    if (simple_pid(s) == 0)
      fprintf(stderr, "simple-bench cholesky: simple_cholesky failed: %s %s (residual %g)\n",
              simple_strerror(rc), r.error, r.residual);
    if (simple_thread(s) == 0) a->failed = 1;
    return;
  }
  if (simple_pid(s) == 0) {
    printf("R simple %s %d %.6f\n", a->matrix ? "sparse" : "dense", simple_nprocs(s), r.time_s);
    fflush(stdout);
  }
}

int bench_cholesky_simple(int argc, char **argv, const bench_opts_t *o) {
  (void)o;
  cargs_t a = {atoi(bench_speedup_arg(argc, argv, "--n", "1000")),
               atoi(bench_speedup_arg(argc, argv, "--nb", "0")),
               bench_speedup_arg(argc, argv, "--matrix", NULL), 0};
  int rc = simple_run(&argc, &argv, cworker, &a);
  return rc ? 1 : a.failed;
}

/* ---------------------------------------------------------------------
 * ScaLAPACK pdpotrf. */

#ifdef SIMPLE_HAVE_PDPOTRF
#include "scalapack.h"
#endif

int bench_cholesky_pdpotrf(int argc, char **argv, const bench_opts_t *o) {
  (void)o;
#ifdef SIMPLE_HAVE_PDPOTRF
  openblas_set_num_threads(1);
  MPI_Init(&argc, &argv);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  int n = atoi(bench_speedup_arg(argc, argv, "--n", "1000")),
      nb = atoi(bench_speedup_arg(argc, argv, "--nb", "64")), pr = 1;
  for (int d = 1; d * d <= P; d++)
    if (P % d == 0) pr = d;
  int pc = P / pr, ctxt, nprow, npcol, myrow, mycol, zero = 0, one = 1, info;
  Cblacs_get(-1, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "Row", pr, pc);
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  int lr = numroc_(&n, &nb, &myrow, &zero, &nprow), lc = numroc_(&n, &nb, &mycol, &zero, &npcol);
  int lld = lr > 1 ? lr : 1, desc[9];
  descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
  double *A = malloc(sizeof(double) * (size_t)lld * (lc > 0 ? lc : 1));
  for (int lj = 0; lj < lc; lj++)
    for (int li = 0; li < lr; li++) {
      int i = ((li / nb) * nprow + myrow) * nb + li % nb,
          j = ((lj / nb) * npcol + mycol) * nb + lj % nb;
      A[(size_t)lj * lld + li] = simple_cholesky_entry(n, 0, i, j);
    }
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  pdpotrf_("L", &n, A, &one, &one, desc, &info);
  double t = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &info, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    if (info)
      fprintf(stderr, "simple-bench cholesky: pdpotrf info %d\n", info);
    else
      printf("R pdpotrf dense %d %.6f\n", P, t);
    fflush(stdout);
  }
  free(A);
  Cblacs_gridexit(ctxt);
  MPI_Finalize();
  return info ? 1 : 0;
#else
  (void)argc, (void)argv;
  fprintf(stderr, "simple-bench cholesky: no ScaLAPACK in this build\n");
  return 1;
#endif
}

/* ---------------------------------------------------------------------
 * MUMPS. */

int bench_cholesky_mumps(int argc, char **argv, const bench_opts_t *o) {
  (void)o;
#ifdef SIMPLE_HAVE_MUMPS
  openblas_set_num_threads(1);
  MPI_Init(&argc, &argv);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const char *path = bench_speedup_arg(argc, argv, "--matrix", C_DEFAULT_MATRIX);
  DMUMPS_STRUC_C id;
  memset(&id, 0, sizeof id);
  id.comm_fortran = (MUMPS_INT)MPI_Comm_c2f(MPI_COMM_WORLD);
  id.par = 1, id.sym = 1, id.job = -1;
  dmumps_c(&id);
  MUMPS_INT *irn = NULL, *jcn = NULL;
  double *a = NULL;
  int bad = 0;
  if (rank == 0) { /* the matrix on the host (centralized input) */
    FILE *f = fopen(path, "r");
    char line[512];
    long n = 0, m = 0, nz = 0, k = 0;
    while (f && fgets(line, sizeof line, f))
      if (line[0] != '%' && sscanf(line, "%ld %ld %ld", &n, &m, &nz) == 3) break;
    irn = malloc(sizeof *irn * (size_t)(nz + 1)), jcn = malloc(sizeof *jcn * (size_t)(nz + 1));
    a = malloc(sizeof *a * (size_t)(nz + 1));
    while (f && k < nz && fgets(line, sizeof line, f)) {
      long i, j;
      double v;
      if (sscanf(line, "%ld %ld %lf", &i, &j, &v) == 3)
        irn[k] = (MUMPS_INT)i, jcn[k] = (MUMPS_INT)j, a[k++] = v;
    }
    if (f) fclose(f);
    bad = !f || k != nz || n < 1;
    id.n = (MUMPS_INT)n, id.nnz = nz, id.irn = irn, id.jcn = jcn, id.a = a;
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (bad) {
    if (rank == 0) fprintf(stderr, "simple-bench cholesky: cannot read %s\n", path);
    MPI_Finalize();
    return 1;
  }
  id.icntl[0] = -1, id.icntl[1] = -1, id.icntl[2] = -1, id.icntl[3] = 0; /* quiet */
  id.icntl[6] = 5; /* ICNTL(7) = 5: METIS ordering */
  id.job = 1;
  dmumps_c(&id);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  id.job = 2;
  dmumps_c(&id);
  double t = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  int err = id.infog[0];
  if (rank == 0) {
    if (err)
      fprintf(stderr, "simple-bench cholesky: MUMPS INFOG(1) = %d\n", err);
    else
      printf("R mumps sparse %d %.6f\n", P, t);
    fflush(stdout);
  }
  id.job = -2;
  dmumps_c(&id);
  free(irn), free(jcn), free(a);
  MPI_Finalize();
  return err ? 1 : 0;
#else
  (void)argc, (void)argv;
  fprintf(stderr, "simple-bench cholesky: no MUMPS in this build\n");
  return 1;
#endif
}

/* ---------------------------------------------------------------------
 * The driver. */

enum { S1, SP, ANCHOR, NSIDE };

typedef struct {
  const char *matrix, *anchor;
  double t[NSIDE][C_ROUNDS];
  int n[NSIDE];
  long p;
} crow_t;

static crow_t crows[2];

static int cline(const char *line, void *arg) {
  (void)arg;
  char side[16], kind[16];
  int p;
  double sec;
  if (sscanf(line, "R %15s %15s %d %lf", side, kind, &p, &sec) != 4) return 0;
  crow_t *r = &crows[strcmp(kind, "sparse") == 0];
  int s = strcmp(side, "simple") ? ANCHOR : p == 1 && r->p != 1 ? S1 : SP;
  if (strcmp(side, "simple") == 0 && p == 1 && r->p == 1) s = r->n[S1] <= r->n[SP] ? S1 : SP;
  if (r->n[s] < C_ROUNDS) r->t[s][r->n[s]++] = sec;
  return 1;
}

static void cusage(FILE *f) {
  fprintf(f,
          "usage: simple-bench cholesky [-N NODES] [-t THREADS] [--vcluster] [--quick]\n"
          "                             [--rounds R] [--n N] [--nb NB] [--matrix FILE.mtx]\n"
          "                             [--csv FILE]\n"
          "  dense (n = 1000, blocks of NB on both sides, default 64) against ScaLAPACK\n"
          "  pdpotrf, sparse (BCSSTK15) against MUMPS\n");
}

/* One worker job of the six: on 1 x 1 (nodes = 1) or NODES x THREADS. */
static void cjob(bench_speedup_t *b, int one, bench_side_t side, const char *worker,
                 const char *args) {
  bench_speedup_conf_t *c = bench_speedup_add(b, worker, one ? 1 : b->c.N, one ? 1 : b->c.T, 0, 0);
  bench_worker_cmd(c->cmd, sizeof c->cmd, &b->c.pl, one ? 0 : b->c.vcluster, side, c->nodes,
                   c->threads, "", worker, args);
}

int bench_cholesky_suite(int argc, char **argv) {
  static bench_speedup_t b = {.suite = "cholesky"};
  long n = 0, nb = 64;
  const char *matrix = C_DEFAULT_MATRIX;
  const bench_opt_t opts[] = {{"--n", BENCH_NUM, &n, 1, SIMPLE_CHOLESKY_MAX_N, NULL},
                              {"--nb", BENCH_NUM, &nb, 1, 1024, NULL},
                              {"--matrix", BENCH_WORD, &matrix, 0, 0, NULL},
                              {0}};
  int rc = bench_speedup_parse(&b, argc, argv, opts, cusage);
  if (rc) return rc < 0 ? 0 : rc;
  if (!n) n = b.c.quick ? 500 : 1000;
  if (bench_speedup_start(&b)) return 1;
  long N = b.c.N, T = b.c.T, P = N * T;
  crows[0] = (crow_t){"dense", "pdpotrf", {{0}}, {0}, P};
  crows[1] = (crow_t){"sparse", "mumps", {{0}}, {0}, P};
  char da[64], sa[PATH_MAX + 16];
  snprintf(da, sizeof da, "--n %ld --nb %ld", n, nb);
  snprintf(sa, sizeof sa, "--matrix '%s'", matrix);
  cjob(&b, 1, BENCH_HYBRID, "cholesky-simple", da);
  cjob(&b, 0, BENCH_HYBRID, "cholesky-simple", da);
  cjob(&b, 0, BENCH_FLAT, "cholesky-pdpotrf", da);
  cjob(&b, 1, BENCH_HYBRID, "cholesky-simple", sa);
  cjob(&b, 0, BENCH_HYBRID, "cholesky-simple", sa);
  cjob(&b, 0, BENCH_FLAT, "cholesky-mumps", sa);
  printf(
      "simple-bench cholesky: simple_cholesky on 1 and %ld x %ld processors, ScaLAPACK pdpotrf "
      "(dense n = %ld, blocks of %ld) and MUMPS (sparse %s) on %ld flat ranks; %s, %d core(s), "
      "%ld round(s)\n",
      N, T, n, nb, matrix, P, bench_speedup_where(&b), b.c.pl.cores, b.c.rounds);
  fflush(stdout);
  if (bench_speedup_rounds(&b, cline)) return 1;
  FILE *out = b.c.out;
  if (out) fprintf(out, "suite,matrix,p,simple1_s,simple_p_s,speedup,anchor,anchor_s,ratio\n");
  printf("%-7s %4s %11s %11s %8s %8s %10s %14s\n", "matrix", "p", "simple1_s", "simple_p_s",
         "speedup", "anchor", "anchor_s", "simple/anchor");
  for (int k = 0; k < 2; k++) {
    crow_t *r = &crows[k];
    double t1 = bench_median(r->t[S1], (size_t)r->n[S1]);
    double tp = P == 1 ? t1 : bench_median(r->t[SP], (size_t)r->n[SP]);
    double ta = bench_median(r->t[ANCHOR], (size_t)r->n[ANCHOR]);
    printf("%-7s %4ld %11.4f %11.4f %8.3f %8s %10.4f %14.3f\n", r->matrix, P, t1, tp, t1 / tp,
           r->anchor, ta, tp / ta);
    if (out)
      fprintf(out, "cholesky,%s,%ld,%.6f,%.6f,%.4f,%s,%.6f,%.4f\n", r->matrix, P, t1, tp, t1 / tp,
              r->anchor, ta, tp / ta);
  }
  if (bench_suite_finish(&b.c)) return 1;
  printf(
      "times: the factorization alone, medians over rounds, max over processors; simple's "
      "residuals checked < 1e-12 every run; target: simple/anchor <= 1.5\n");
  return 0;
}
