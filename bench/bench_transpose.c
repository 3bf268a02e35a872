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
 * per second) and the ratio mpi/simple (above 1: simple is faster).
 *
 * --ops adds paper 002's layout conversions of the same matrix (Fig. 5c):
 * block-cyclic (rows in blocks to rows dealt cyclically) and cyclic-block,
 * simple_redistribute against flat MPI's pack by destination,
 * MPI_Alltoallv and unpack, with the rows' places worked out once per
 * size (as a user's plan would be). */
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

/* The operations: the transpose, and the conversions between rows in
 * blocks and rows dealt cyclically (source kind, destination kind). */
enum { OP_TRANSPOSE, OP_BLOCK_CYCLIC, OP_CYCLIC_BLOCK, NOPS };
static const char *const op_names[NOPS] = {"transpose", "block-cyclic", "cyclic-block"};
static const simple_kind_t op_src[NOPS] = {SIMPLE_BLOCK, SIMPLE_BLOCK, SIMPLE_CYCLIC};
static const simple_kind_t op_dst[NOPS] = {SIMPLE_BLOCK, SIMPLE_CYCLIC, SIMPLE_BLOCK};

/* The operations named by a comma-separated list into ops[] (each once,
 * in list order); the count, or -1 naming the unknown one on stderr. */
static int parse_ops(const char *list, int ops[NOPS]) {
  int k = 0;
  const char *p = list;
  while (*p) {
    size_t len = strcspn(p, ",");
    int found = -1;
    for (int i = 0; i < NOPS; i++)
      if (strlen(op_names[i]) == len && strncmp(p, op_names[i], len) == 0) found = i;
    if (found < 0) {
      fprintf(stderr, "simple-bench transpose: unknown operation '%.*s' in --ops (%s, %s, %s)\n",
              (int)len, p, op_names[0], op_names[1], op_names[2]);
      return -1;
    }
    int seen = 0;
    for (int i = 0; i < k; i++) seen |= ops[i] == found;
    if (!seen) ops[k++] = found;
    p += len;
    if (*p == ',') p++;
  }
  return k;
}

/* The worker's operations: --ops, else the transpose alone. */
static int worker_ops(int argc, char **argv, int ops[NOPS]) {
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--ops") == 0) return parse_ops(argv[i + 1], ops);
  ops[0] = OP_TRANSPOSE;
  return 1;
}

/* The li-th index (0-based) of range r, in increasing order. */
static long range_at(const simple_range_t *r, long li) {
  return r->lo + li / r->block * r->stride + li % r->block;
}

/* Sizes the worker runs: --quick's or the full list, up to --max-n. */
static int worker_sizes(int argc, char **argv, const bench_opts_t *o, const long **list) {
  *list = o->quick ? sizes_quick : sizes_full;
  return bench_sizes_upto(*list, o->quick ? LEN(sizes_quick) : LEN(sizes_full),
                          bench_arg_long(argc, argv, "--max-n", 8192));
}

/* Samples per size: about 0.5 s (0.2 s with --quick) of calls, 3 to 15
 * (7 with --quick). */
static bench_timed_t timed(void (*call)(void *), void *ctx, int quick) {
  return (bench_timed_t){call, NULL, NULL, ctx, quick ? 0.2 : 0.5, quick ? 7 : 15};
}

static void *alloc_or_null(size_t bytes) {
  void *p = NULL;
  if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) return NULL;
  return p;
}

/* ------------------------------------------------------------------------
 * Hybrid side. */

static void hyb_fail(simple_t *s, const char *what, long n, int rc) {
  simple_abort(s, "simple-bench transpose: n = %ld: %s (%s)", n, what, simple_errname(rc));
}

static void hyb_sync(simple_t *s) {
  simple_barrier(s);
  simple_node_barrier(s);
}

/* One call of operation op on the hybrid side. */
static int hyb_call(simple_t *s, int op, const double *src, const simple_dist_t *dsrc, double *dst,
                    const simple_dist_t *ddst) {
  return op == OP_TRANSPOSE ? simple_transpose(s, src, dsrc, dst, ddst, sizeof(double))
                            : simple_redistribute(s, src, dsrc, dst, ddst, sizeof(double));
}

typedef struct {
  simple_t *s;
  int op;
  long n;
  const double *src;
  const simple_dist_t *dsrc;
  double *dst;
  const simple_dist_t *ddst;
} hyb_timed_t;

static void hyb_timed(void *arg) {
  const hyb_timed_t *c = arg;
  int rc = hyb_call(c->s, c->op, c->src, c->dsrc, c->dst, c->ddst);
  if (rc) hyb_fail(c->s, op_names[c->op], c->n, rc);
}

/* Operation op on an n x n matrix: checked once, warmed up, timed. */
static void hyb_op(simple_t *s, const bench_args_t *a, int op, long n) {
  int me = simple_pid(s);
  simple_dist_t dsrc = simple_dist_2d(n, n, SIMPLE_ROWS, op_src[op], 1, SIMPLE_OVER_THREADS),
                ddst = simple_dist_2d(n, n, SIMPLE_ROWS, op_dst[op], 1, SIMPLE_OVER_THREADS);
  simple_domain_t ds, dd;
  int rc = simple_dist_domain(s, &dsrc, me, &ds);
  if (!rc) rc = simple_dist_domain(s, &ddst, me, &dd);
  if (rc) hyb_fail(s, "domain", n, rc);
  double *src = alloc_or_null((size_t)ds.local_rows * (size_t)n * sizeof(double)),
         *dst = alloc_or_null((size_t)dd.local_rows * (size_t)n * sizeof(double));
  if (!src || !dst) hyb_fail(s, "out of memory", n, SIMPLE_ERR_NOMEM);
  for (long li = 0; li < ds.local_rows; li++)
    for (long j = 0; j < n; j++) src[li * n + j] = elem(range_at(&ds.row, li), j, n);
  memset(dst, 0, (size_t)dd.local_rows * (size_t)n * sizeof(double));
  hyb_sync(s);
  if ((rc = hyb_call(s, op, src, &dsrc, dst, &ddst))) hyb_fail(s, op_names[op], n, rc);
  /* Transpose: row c of the result is column c of the source; the
   * conversions move whole rows. */
  for (long lr = 0; lr < dd.local_rows; lr++) {
    long g = range_at(&dd.row, lr);
    for (long j = 0; j < n; j++)
      if (dst[lr * n + j] != (op == OP_TRANSPOSE ? elem(j, g, n) : elem(g, j, n)))
        simple_abort(s, "simple-bench transpose: %s, n = %ld: wrong element (%ld, %ld)",
                     op_names[op], n, g, j);
  }
  hyb_timed_t c = {s, op, n, src, &dsrc, dst, &ddst};
  bench_timed_t t = timed(hyb_timed, &c, a->o->quick);
  double med = bench_time_hybrid(s, &t);
  bench_row_out(me, op_names[op], n, med);
  free(src);
  free(dst);
}

static void hybrid_main(simple_t *s, void *arg) {
  const bench_args_t *a = arg;
  const long *sizes;
  int ops[NOPS], nops = worker_ops(a->argc, a->argv, ops);
  int ns = worker_sizes(a->argc, a->argv, a->o, &sizes);
  if (nops < 0) simple_abort(s, "simple-bench transpose: bad --ops");
  if (simple_pid(s) == 0) {
    printf("I layout %d nodes x %d threads\n", simple_nodes(s), simple_threads(s));
    fflush(stdout);
  }
  for (int k = 0; k < ns; k++)
    for (int o = 0; o < nops; o++) hyb_op(s, a, ops[o], sizes[k]);
}

int bench_transpose_hybrid(int argc, char **argv, const bench_opts_t *o) {
  bench_args_t a = {argc, argv, o};
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
   * (cnt_q rows of my m elements), through TILE_C x TILE_I tiles; a
   * tile's whole row in a loop of constant count, whose TILE_I strided
   * loads the compiler issues together, as the library does (src/dist:
   * at large sizes each is a cache miss, and they overlap). */
  for (int q = 0; q < f->P; q++) {
    double *b = f->sbuf + f->sd[q];
    long c0 = f->los[q], cq = f->cnt[q];
    for (long cc = 0; cc < cq; cc += TILE_C)
      for (long ii = 0; ii < m; ii += TILE_I) {
        long ie = ii + TILE_I < m ? ii + TILE_I : m, ce = cc + TILE_C < cq ? cc + TILE_C : cq;
        for (long c = cc; c < ce; c++)
          if (ie - ii == TILE_I)
            for (long i = ii; i < ii + TILE_I; i++) b[c * m + i] = f->src[i * n + c0 + c];
          else
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

/* Times `call` on the flat side as the hybrid side is timed: one warm-up
 * call, then samples between barriers, each the slowest rank's. */
static void flat_time(void (*call)(void *), void *ctx, int quick, int op, long n, int rank) {
  bench_timed_t t = timed(call, ctx, quick);
  double med = bench_time_flat(&t);
  bench_row_out(rank, op_names[op], n, med);
}

static void flat_transpose_call(void *f) { flat_transpose(f); }

static void flat_run_transpose(flat_t *f, int quick, long n) {
  int P = f->P;
  f->n = n;
  for (int q = 0; q < P; q++) {
    f->cnt[q] = n / P + (q < n % P);
    f->los[q] = q * (n / P) + (q < n % P ? q : n % P);
  }
  f->lo = f->los[f->rank];
  f->rows = f->cnt[f->rank];
  f->uniform = n % P == 0;
  long at = 0, ar = 0;
  for (int q = 0; q < P; q++) {
    f->sc[q] = (int)(f->rows * f->cnt[q]);
    f->sd[q] = (int)at;
    at += f->sc[q];
    f->rc[q] = (int)(f->cnt[q] * f->rows);
    f->rd[q] = (int)ar;
    ar += f->rc[q];
  }
  size_t local = (size_t)f->rows * (size_t)n * sizeof(double);
  f->src = alloc_or_null(local);
  f->dst = alloc_or_null(local);
  f->sbuf = alloc_or_null(local);
  f->rbuf = alloc_or_null(local);
  if (!f->src || !f->dst || !f->sbuf || !f->rbuf) mpi_fail(f->rank, n, "out of memory");
  for (long li = 0; li < f->rows; li++)
    for (long j = 0; j < n; j++) f->src[li * n + j] = elem(f->lo + li, j, n);
  memset(f->dst, 0, local);
  MPI_Barrier(MPI_COMM_WORLD);
  flat_transpose(f);
  for (long lc = 0; lc < f->rows; lc++)
    for (long i = 0; i < n; i++)
      if (f->dst[lc * n + i] != elem(i, f->lo + lc, n)) mpi_fail(f->rank, n, "wrong result");
  flat_time(flat_transpose_call, f, quick, OP_TRANSPOSE, n, f->rank);
  free(f->src);
  free(f->dst);
  free(f->sbuf);
  free(f->rbuf);
}

/* Rows in blocks or dealt cyclically over P ranks: how many rank q holds,
 * its li-th global row, and the owner and local index of global row i. */
static long rows_of(simple_kind_t k, long n, int P, int q) {
  (void)k; /* the same counts both ways */
  return n / P + (q < n % P);
}
static long row_at(simple_kind_t k, long n, int P, int q, long li) {
  if (k == SIMPLE_CYCLIC) return q + li * P;
  return q * (n / P) + (q < n % P ? q : n % P) + li;
}
static int row_owner(simple_kind_t k, long n, int P, long i, long *li) {
  if (k == SIMPLE_CYCLIC) {
    *li = i / P;
    return (int)(i % P);
  }
  long b = n / P, r = n % P, big = r * (b + 1);
  int q = i < big ? (int)(i / (b + 1)) : (int)(r + (i - big) / b);
  *li = i - row_at(k, n, P, q, 0);
  return q;
}

/* A layout conversion with flat MPI, as a user writes it: rows packed by
 * destination rank, MPI_Alltoallv, rows unpacked into place; where each
 * row goes and lands (sidx, ridx: local row indices in message order) is
 * worked out once per size. */
typedef struct {
  long n, srows, drows;
  int P;
  int *sc, *sd, *rc, *rd; /* elements */
  long *sidx, *ridx;
  double *src, *dst, *sbuf, *rbuf;
} conv_t;

static void flat_conv_call(void *arg) {
  conv_t *c = arg;
  size_t row = (size_t)c->n * sizeof(double);
  for (long k = 0; k < c->srows; k++) memcpy(c->sbuf + k * c->n, c->src + c->sidx[k] * c->n, row);
  MPI_Alltoallv(c->sbuf, c->sc, c->sd, MPI_DOUBLE, c->rbuf, c->rc, c->rd, MPI_DOUBLE,
                MPI_COMM_WORLD);
  for (long k = 0; k < c->drows; k++) memcpy(c->dst + c->ridx[k] * c->n, c->rbuf + k * c->n, row);
}

static void flat_run_conv(const flat_t *f, int quick, int op, long n) {
  int P = f->P, me = f->rank;
  simple_kind_t ks = op_src[op], kd = op_dst[op];
  conv_t c = {.n = n,
              .srows = rows_of(ks, n, P, me),
              .drows = rows_of(kd, n, P, me),
              .P = P,
              .sc = f->sc,
              .sd = f->sd,
              .rc = f->rc,
              .rd = f->rd};
  size_t cap = (size_t)(n / P + 1);
  c.sidx = malloc(sizeof(long) * 2 * cap);
  c.src = alloc_or_null(cap * (size_t)n * sizeof(double));
  c.dst = alloc_or_null(cap * (size_t)n * sizeof(double));
  c.sbuf = alloc_or_null(cap * (size_t)n * sizeof(double));
  c.rbuf = alloc_or_null(cap * (size_t)n * sizeof(double));
  if (!c.sidx || !c.src || !c.dst || !c.sbuf || !c.rbuf) mpi_fail(me, n, "out of memory");
  c.ridx = c.sidx + cap;
  /* Sends: my rows grouped by destination, each group in row order. */
  long k = 0, li;
  for (int q = 0; q < P; q++) {
    c.sd[q] = (int)(k * n);
    for (long r = 0; r < c.srows; r++)
      if (row_owner(kd, n, P, row_at(ks, n, P, me, r), &li) == q) c.sidx[k++] = r;
    c.sc[q] = (int)(k * n) - c.sd[q];
  }
  /* Receives: from each source, in its row order, the rows that are mine. */
  k = 0;
  for (int q = 0; q < P; q++) {
    c.rd[q] = (int)(k * n);
    for (long r = 0, rq = rows_of(ks, n, P, q); r < rq; r++)
      if (row_owner(kd, n, P, row_at(ks, n, P, q, r), &li) == me) c.ridx[k++] = li;
    c.rc[q] = (int)(k * n) - c.rd[q];
  }
  for (long r = 0; r < c.srows; r++)
    for (long j = 0; j < n; j++) c.src[r * n + j] = elem(row_at(ks, n, P, me, r), j, n);
  memset(c.dst, 0, cap * (size_t)n * sizeof(double));
  MPI_Barrier(MPI_COMM_WORLD);
  flat_conv_call(&c);
  for (long r = 0; r < c.drows; r++)
    for (long j = 0; j < n; j++)
      if (c.dst[r * n + j] != elem(row_at(kd, n, P, me, r), j, n)) mpi_fail(me, n, "wrong result");
  flat_time(flat_conv_call, &c, quick, op, n, me);
  free(c.sidx);
  free(c.src);
  free(c.dst);
  free(c.sbuf);
  free(c.rbuf);
}

int bench_transpose_mpi(int argc, char **argv, const bench_opts_t *o) {
  MPI_Init(&argc, &argv);
  flat_t f;
  memset(&f, 0, sizeof f);
  MPI_Comm_rank(MPI_COMM_WORLD, &f.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &f.P);
  const long *sizes;
  int ops[NOPS], nops = worker_ops(argc, argv, ops);
  int ns = worker_sizes(argc, argv, o, &sizes), P = f.P;
  if (nops < 0) mpi_fail(f.rank, 0, "bad --ops");
  if (f.rank == 0) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    bench_mpi_library(lib, sizeof lib);
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
  for (int k = 0; k < ns; k++)
    for (int j = 0; j < nops; j++) {
      if (ops[j] == OP_TRANSPOSE)
        flat_run_transpose(&f, o->quick, sizes[k]);
      else
        flat_run_conv(&f, o->quick, ops[j], sizes[k]);
    }
  free(f.sc);
  free(f.los);
  MPI_Finalize();
  return 0;
}

/* ------------------------------------------------------------------------
 * The driver. */

/* Rows by matrix order (bytes = n); sides hybrid (0) and flat MPI (1). */
static bench_row_t trows[MAX_SIZES * NOPS];
static bench_table_t ttable = {trows, 0, MAX_SIZES *NOPS};
static char tlib[256];

static int tline(const char *line, void *arg) {
  int side = *(const int *)arg;
  long n;
  double us;
  char op[32];
  if (sscanf(line, "R %31s %ld %lf", op, &n, &us) == 3) {
    if (n > 0) bench_row_add(bench_row(&ttable, op, (size_t)n), side, us);
    return 1;
  }
  return bench_info(line, "library", tlib, sizeof tlib) || (line[0] == 'I' && line[1] == ' ');
}

static int trun(int side, long round, void *cmds) {
  (void)round;
  return bench_run_worker(((const bench_cmd_t *)cmds)[side], tline, &side);
}

static void tusage(FILE *f) {
  fprintf(f,
          "usage: simple-bench transpose [-N NODES] [-t THREADS] [--vcluster] [--quick]\n"
          "                              [--rounds R] [--max-n N] [--ops LIST] [--csv FILE]\n"
          "  --ops: comma-separated, of transpose (the default), block-cyclic, cyclic-block\n");
}

int bench_transpose_suite(int argc, char **argv) {
  bench_suite_t b = {.T = 2, .rounds = 3};
  long max_n = 8192;
  const char *ops_list = "transpose";
  const bench_opt_t opts[] = {{"--ops", BENCH_WORD, &ops_list, 0, 0, NULL},
                              {"--max-n", BENCH_NUM, &max_n, 1, 65536, NULL},
                              {0}};
  int rc = bench_suite_parse(&b, argc, argv, MAX_ROUNDS, opts, tusage);
  if (rc) return rc < 0 ? 0 : rc;
  int ops[NOPS], nops = parse_ops(ops_list, ops);
  if (nops <= 0) {
    if (nops == 0) fprintf(stderr, "simple-bench transpose: --ops names no operation\n");
    return 2;
  }
  /* The workers get the list as parsed: known names, each once. */
  char canon[64] = "";
  for (int i = 0; i < nops; i++) {
    if (i) strcat(canon, ",");
    strcat(canon, op_names[ops[i]]);
  }
  long N = b.N, T = b.T, rounds = b.rounds, P = N * T;
  int quick = b.quick, vcluster = b.vcluster;
  /* Memory: each side holds about four n x n matrices of doubles at once
   * (source, result, and packing or message buffers), all on this host
   * here or on the virtual cluster; keep them within half of what is
   * available. */
  max_n = bench_fit_memory(max_n, 256, 32, 2);
  if (bench_suite_start(&b, P)) return 1;
  FILE *out = b.out;
  int multi = b.pl.multi, pin = b.pl.pin;
  char args[128];
  snprintf(args, sizeof args, "--max-n %ld --ops %s%s", max_n, canon, quick ? " --quick" : "");
  bench_cmd_t cmd[2];
  bench_worker_cmd(cmd[0], sizeof cmd[0], &b.pl, vcluster, BENCH_HYBRID, N, T, "",
                   "transpose-hybrid", args);
  bench_worker_cmd(cmd[1], sizeof cmd[1], &b.pl, vcluster, BENCH_FLAT, N, T, "", "transpose-mpi",
                   args);
  printf(
      "simple-bench transpose: n x n doubles by rows; %ld node(s) x %ld thread(s) (simple) against"
      " %ld MPI rank(s) x 1 thread (flat MPI_Alltoall), %s, %ld round(s)%s\n",
      N, T, P, bench_where(vcluster, multi), rounds, pin ? ", pinned" : "");
  fflush(stdout);
  if (bench_alternate(rounds, 2, trun, cmd) != 0) {
    bench_suite_close(&b);
    return 1;
  }
  printf("MPI: %s\n", tlib[0] ? tlib : "unknown library");
  printf("%-12s %6s %9s %12s %12s %11s %11s %11s\n", "op", "n", "MiB", "simple_ms", "mpi_ms",
         "simple_GB/s", "mpi_GB/s", "mpi/simple");
  if (out) fprintf(out, "suite,op,n,nodes,threads,simple_us,mpi_us,simple_gbs,mpi_gbs,ratio\n");
  for (int i = 0; i < ttable.nrows; i++) {
    bench_row_t *r = &trows[i];
    long rn = (long)r->bytes;
    double h = bench_row_median(r, 0), m = bench_row_median(r, 1);
    double bytes = 8.0 * (double)rn * (double)rn;
    double gh = bytes / (h * 1e3), gm = bytes / (m * 1e3), ratio = m / h;
    printf("%-12s %6ld %9.1f %12.3f %12.3f %11.2f %11.2f %11.2f\n", r->op, rn, bytes / 1048576.0,
           h / 1e3, m / 1e3, gh, gm, ratio);
    if (out)
      fprintf(out, "transpose,%s,%ld,%ld,%ld,%.3f,%.3f,%.4f,%.4f,%.4f\n", r->op, rn, N, T, h, m, gh,
              gm, ratio);
  }
  if (bench_suite_finish(&b)) return 1;
  return 0;
}
