/* simple-bench: each primitive of simple against its anchor, side by side in
 * one invocation.
 *
 * The driver launches worker jobs through simplerun, alternating the hybrid
 * side and the anchor side(s) round by round so that all see the same
 * machine load, and reports per size the median over rounds of each side's
 * median time and the ratio anchor/hybrid (above 1: simple is faster).
 *
 * Suites:
 *   node  the node library among T threads vs MPI among T ranks;
 *   coll  the hybrid collectives on NODES x THREADS vs the MPI collective
 *         on NODES*THREADS single-threaded ranks, the latter with Open MPI's
 *         default collectives and with its hierarchical component (HAN),
 *         the faster of the two being the anchor (for a collective HAN
 *         leaves to the default, the median of both jobs' rounds). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <simple.h>

#include "bench.h"

#define MAX_ROWS        256
#define MAX_ROUNDS      BENCH_ROUNDS
#define NSIDES          3 /* jobs: hybrid, anchor (MPI default), anchor (MPI with HAN) */
#define MAX_THREADS     1024
#define MAX_NODES       256
#define MAX_BYTES_LIMIT ((size_t)1 << 30)

/* Sides of a row (<= BENCH_SIDES): the jobs', then what the hybrid job
 * times beside its own collectives with one thread per node: MPI's own
 * collective on the same processes (us), and the median ratio of their
 * samples (MPI's over simple's); and on one node of several threads an
 * alltoall's copy floor (us). */
enum { SIDE_HYBRID, SIDE_MPI, SIDE_HAN, SIDE_SAME, SIDE_SAME_RATIO, SIDE_FLOOR };

typedef bench_row_t row_t;
static row_t rows[MAX_ROWS];
static bench_table_t table = {rows, 0, MAX_ROWS};

/* What the workers said besides results. */
static char mpi_library[256];
static int han_priority_seen = -2; /* -2: not reported */
static int mpi_hosts;              /* hosts the MPI side's ranks are on; 0: not reported */
/* The collectives HAN has algorithms of its own for, " op op ... ", as the
 * HAN job's worker read them from the MPI tool interface; han_covers_seen 0
 * when it could not say. */
static char han_covers[512];
static int han_covers_seen;

static void usage(FILE *f) {
  fprintf(
      f,
      "usage: simple-bench SUITE [options]\n"
      "       simple-bench --version | --help | SUITE --help\n"
      "\n"
      "suites:\n"
      "  node    node barrier and allreduce among T threads of one process,\n"
      "          against MPI_Barrier and MPI_Allreduce among T processes\n"
      "  coll    every hybrid collective on NODES x THREADS processors, against\n"
      "          the MPI collective on NODES*THREADS single-threaded ranks\n"
      "          (Open MPI default and HAN; the faster is the anchor, or the\n"
      "          median of both jobs where HAN leaves the collective to the default)\n"
      "  pingpong  half round-trip latency and bandwidth, 0 B..4 MiB, thread to thread\n"
      "          inside a node and node to node, each beside raw MPI between 2 processes;\n"
      "          empty-probe cost; options --vcluster --quick --rounds --max-bytes --csv\n"
      "  rma     one-sided BSP supersteps: put/get throughput and sync latency, inside\n"
      "          a node and between nodes, one-sided (MPI windows) against two-sided\n"
      "          backend; options -N -t --vcluster --quick --rounds --max-bytes --csv\n"
      "  transpose  n x n matrix transpose (simple_transpose) against flat MPI\n"
      "          (one rank per thread, MPI_Alltoall), and with --ops the block <-> cyclic\n"
      "          row conversions (simple_redistribute against MPI_Alltoallv); options\n"
      "          -N -t --vcluster --quick --rounds --max-n --ops --csv\n"
      "  matmul  Cannon's matrix multiply (simple_matmul_cannon, put and get) on a q x q\n"
      "          grid beside ScaLAPACK pdgemm (one rank per thread) and serial dgemm;\n"
      "          GFLOP/s; options -N -t --vcluster --quick --rounds --max-n --csv\n"
      "  as      paper 004's As suite: tests 1-5 (empty, comp, full, simple, scatter),\n"
      "          the total exchange and the BSP probe (g and L of the intra-node level,\n"
      "          the inter-node level, the whole job), with put/get (both backends) and\n"
      "          sends, hybrid and flat MPI; options -N -t --vcluster --quick --rounds\n"
      "          --max-h --probe-step --csv --plot --json\n"
      "  bsp     the same as 'as' (its former name)\n"
      "  traffic messages and bytes between nodes and memory per node, hybrid against\n"
      "          flat MPI, counted (PMPI, kernel); options -N -t --vcluster --quick --bytes --csv\n"
      "  model   the cost model (bench/model): measured against predicted here, projected\n"
      "          hybrid/flat ratios for large clusters; options --measure --quick --csv\n"
      "  queens  n-queens count (simple_nqueens) on 1 and on NODES x THREADS processors\n"
      "          beside the classic sequential bitmask solver: single-thread rate and\n"
      "          parallel efficiency at n = 16, 17; options -N -t --vcluster --quick\n"
      "          --rounds --symmetry --static --n --csv\n"
      "  water   Water molecular dynamics (simple_water): speedup from 1 thread to\n"
      "          NODES x THREADS; options -N -t --vcluster --quick --rounds --molecules\n"
      "          --steps --csv\n"
      "  barnes  Barnes-Hut (simple_barnes): speedup, and remote fetches of the node-shared\n"
      "          cache against one cache per process (flat placement); options -N -t\n"
      "          --vcluster --quick --rounds --bodies --steps --csv\n"
      "  cholesky  block Cholesky (simple_cholesky): dense n = 1000 against ScaLAPACK\n"
      "          pdpotrf, sparse BCSSTK15 against MUMPS, flat ranks; options -N -t\n"
      "          --vcluster --quick --rounds --n --matrix --csv\n"
      "  groebner  Buchberger (simple_groebner): speedup from 1 thread to NODES x\n"
      "          THREADS; options -N -t --vcluster --quick --rounds --cyclic --katsura\n"
      "          --csv\n"
      "  sort    radix sort of 2^20..2^26 keys (simple_sort) against the same algorithm\n"
      "          in flat MPI and one thread (radix, qsort); options -N -t --vcluster\n"
      "          --quick --rounds --bits --algo --max-n --qsort-max --csv\n"
      "  fft     2D FFT of n x n complex doubles (simple_fft2d) against FFTW-MPI\n"
      "          (fftw_mpi_plan_dft_2d: one rank per thread, and ranks x FFTW threads);\n"
      "          options -N -t --vcluster --quick --rounds --max-n --patient --csv\n"
      "\n"
      "options of node and coll (each other suite: simple-bench SUITE --help):\n"
      "  -t THREADS      threads per node (and MPI ranks per node); default 2\n"
      "  --rounds R      alternating rounds of the sides; default 5 (1 with --quick)\n"
      "  --quick         fewer samples and sizes (coll: 8 B, 4 KiB, 64 KiB): a smoke run\n"
      "  --max-bytes N   largest message size in bytes; default 4 MiB\n"
      "  --csv FILE      also write the table as CSV\n"
      "\n"
      "options (coll only):\n"
      "  -N NODES        nodes (processes of the hybrid side); default 1, 2 with --vcluster\n"
      "  --vcluster      run on the virtual cluster (tools/vcluster): one hybrid process,\n"
      "                  or THREADS MPI ranks, on each of NODES virtual nodes\n"
      "  --only LIST     comma-separated collectives to run, or 'all'; default:\n"
      "                  barrier,bcast,reduce,allreduce,scan,exscan,gather,scatter,\n"
      "                  allgather,alltoall (also: gatherv,scatterv,allgatherv,alltoallv)\n"
      "  --plot FILE.png time against size per collective, simple vs anchor (gnuplot)\n");
}

/* Files an "I key value" line of a worker. */
static void worker_info(const char *line) {
  char key[64];
  int off = 0;
  if (sscanf(line, "I %63s %n", key, &off) != 1) return;
  const char *val = line + off;
  size_t len = strcspn(val, "\n");
  if (strcmp(key, "library") == 0) {
    snprintf(mpi_library, sizeof mpi_library, "%.*s", (int)len, val);
  } else if (strcmp(key, "hosts") == 0) {
    mpi_hosts = atoi(val);
  } else if (strcmp(key, "coll_han_priority") == 0) {
    han_priority_seen = atoi(val);
  } else if (strcmp(key, "han_covers") == 0) {
    snprintf(han_covers, sizeof han_covers, " %.*s ", (int)len, val);
    han_covers_seen = 1;
  }
}

/* One worker job's lines: "R op bytes us" results filed under `side`,
 * "S op bytes us ratio" MPI's collective timed in the hybrid job, "F op
 * bytes us" the copy floor of an alltoall on one node, "I"
 * information about the MPI side, "N" notes (printed once). */
typedef struct {
  int side, round;
} side_ctx_t;

static int side_line(const char *line, void *arg) {
  const side_ctx_t *c = arg;
  char op[32];
  size_t bytes;
  double us, ratio;
  if (sscanf(line, "R %31s %zu %lf", op, &bytes, &us) == 3) {
    bench_row_add(bench_row(&table, op, bytes), c->side, us);
  } else if (sscanf(line, "S %31s %zu %lf %lf", op, &bytes, &us, &ratio) == 4) {
    bench_row_t *r = bench_row(&table, op, bytes);
    bench_row_add(r, SIDE_SAME, us);
    bench_row_add(r, SIDE_SAME_RATIO, ratio);
  } else if (sscanf(line, "F %31s %zu %lf", op, &bytes, &us) == 3) {
    bench_row_add(bench_row(&table, op, bytes), SIDE_FLOOR, us);
  } else if (line[0] == 'I' && line[1] == ' ') {
    worker_info(line);
  } else if (line[0] == 'N' && line[1] == ' ') {
    if (c->round == 0 && c->side == SIDE_MPI) fprintf(stderr, "simple-bench: %s", line + 2);
  } else {
    return 0;
  }
  return 1;
}

static int run_side(const char *cmd, int side, int round) {
  side_ctx_t c = {side, round};
  return bench_run_worker(cmd, side_line, &c);
}

/* The sides of a coll round. HAN runs only where it can (see the suite);
 * a failure of Open MPI's HAN is not simple's: the suite goes on without
 * it, any other failure stops the suite. */
typedef struct {
  const bench_cmd_t *cmd;
  int use_han;
  const char *no_han;
} coll_sides_t;
static int coll_side(int side, long round, void *ctx) {
  coll_sides_t *c = ctx;
  if (side == SIDE_HAN && c->use_han) {
    if (mpi_library[0] && !strstr(mpi_library, "Open MPI")) {
      c->use_han = 0;
      c->no_han = "not Open MPI";
    } else if (mpi_hosts == 1) {
      c->use_han = 0;
      c->no_han = "not used: every rank on one host, where Open MPI's HAN disqualifies itself";
    }
  }
  if (side == SIDE_HAN && !c->use_han) return 0;
  if (run_side(c->cmd[side], side, (int)round) == 0) return 0;
  if (side != SIDE_HAN) return 1;
  fprintf(stderr,
          "simple-bench: the run with Open MPI's HAN failed; the anchor is Open"
          " MPI's default collectives from here on\n");
  c->use_han = 0;
  c->no_han = "failed, left out";
  for (int i = 0; i < table.nrows; i++) rows[i].n[SIDE_HAN] = 0;
  return 0;
}

typedef int bench_worker_fn(int argc, char **argv, const bench_opts_t *o);
static bench_worker_fn *find_worker(const char *name);

static int worker(int argc, char **argv) {
  bench_opts_t o = {.quick = 0, .max_bytes = 4u << 20, .only = NULL, .han = 0};
  const char *name = argv[2];
  for (int i = 3; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) o.quick = 1;
    if (strcmp(argv[i], "--han") == 0) o.han = 1;
    if (strcmp(argv[i], "--max-bytes") == 0 && i + 1 < argc)
      bench_parse_bytes(argv[++i], &o.max_bytes);
    if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) o.only = argv[++i];
  }
  bench_worker_fn *fn = find_worker(name);
  if (fn) return fn(argc, argv, &o);
  fprintf(stderr, "simple-bench: unknown worker '%s'\n", name);
  return 2;
}

/* ------------------------------------------------------------------------
 * Options. */
typedef struct {
  bench_suite_t b; /* -t 2 and 5 rounds unless given */
  size_t max_bytes;
  const char *plot, *only;
} opts_t;

static int bad(const char *fmt, const char *v) {
  fprintf(stderr, "simple-bench: ");
  fprintf(stderr, fmt, v);
  fputc('\n', stderr);
  return 2;
}

/* Checks a --only list: known names, no empty entries. */
static int check_only(const char *list) {
  const bench_coll_info_t *cl;
  int nc = bench_coll_list(&cl);
  const char *p = list;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    if (n == 0) return bad("--only: empty name in '%s'", list);
    int ok = n == 3 && strncmp(p, "all", 3) == 0;
    for (int c = 0; c < nc && !ok; c++)
      ok = strlen(cl[c].name) == n && strncmp(cl[c].name, p, n) == 0;
    if (!ok) {
      fprintf(stderr, "simple-bench: --only: unknown collective '%.*s'; known:", (int)n, p);
      for (int c = 0; c < nc; c++) fprintf(stderr, " %s", cl[c].name);
      fprintf(stderr, " (or all)\n");
      return 2;
    }
    if (!comma) break;
    p = comma + 1;
  }
  return 0;
}

#define COLL_ONLY "is an option of the coll suite only"

/* The options of node and coll, in their own words for a bad value; node
 * runs on one process and refuses coll's own options. Returns as
 * bench_suite_parse does. */
static int parse_opts(int argc, char **argv, int coll, opts_t *o) {
  bench_suite_t *b = &o->b;
  *b = (bench_suite_t){.T = 2, .rounds = 5};
  o->max_bytes = 4u << 20;
  o->plot = o->only = NULL;
  const bench_opt_t opts[] = {
      {"-t", BENCH_NUM, &b->T, 1, MAX_THREADS,
       "a thread count from 1 to 1024 (the same on every node), not '%s'"},
      {"--rounds", BENCH_NUM, &b->rounds, 1, MAX_ROUNDS, "a count from 1 to 32, not '%s'"},
      {"--max-bytes", BENCH_BYTES, &o->max_bytes, 8, MAX_BYTES_LIMIT,
       "a byte count from 8 to 1 GiB (e.g. 65536, 64K, 4MiB), not '%s'"},
      {"--csv", BENCH_WORD, &b->csv, 0, 0, "a file name"},
      {"-N", BENCH_NUM, coll ? &b->N : NULL, 1, MAX_NODES,
       coll ? "a node count from 1 to 256, not '%s'" : COLL_ONLY},
      {"--vcluster", BENCH_FLAG, coll ? &b->vcluster : NULL, 0, 0, COLL_ONLY},
      {"--plot", BENCH_WORD, coll ? &o->plot : NULL, 0, 0, coll ? "a file name" : COLL_ONLY},
      {"--only", BENCH_WORD, coll ? &o->only : NULL, 0, 0,
       coll ? "a comma-separated list of collectives" : COLL_ONLY},
      {0}};
  int rc = bench_suite_parse(b, argc, argv, MAX_ROUNDS, opts, usage);
  if (rc) return rc;
  if (o->only && check_only(o->only) != 0) return 2;
  if (b->N * b->T > 4096) return bad("%s: more than 4096 processors in all", "-N x -t");
  return 0;
}

/* ------------------------------------------------------------------------
 * simple-bench node */
/* The node suite's sides: ctx holds the commands of SIDE_HYBRID (0) and
 * SIDE_MPI (1). */
static int node_side(int side, long round, void *ctx) {
  return run_side(((const bench_cmd_t *)ctx)[side], side, (int)round);
}

static int suite_node(int argc, char **argv) {
  opts_t o;
  int rc = parse_opts(argc, argv, 0, &o);
  if (rc) return rc < 0 ? 0 : rc;
  bench_suite_t *b = &o.b;
  size_t max_bytes = o.max_bytes;
  if (b->quick && max_bytes > 65536) max_bytes = 65536;
  /* Both sides pinned one core per processor when they fit: the anchor at
   * its best settings (Open MPI binds ranks to cores by default for small
   * jobs); with more processors than cores neither is bound. */
  if (bench_suite_start(b, b->T)) return 1;
  bench_cmd_t cmd[2];
  char args[64];
  snprintf(args, sizeof args, "--max-bytes %zu%s", max_bytes, b->quick ? " --quick" : "");
  bench_worker_cmd(cmd[SIDE_HYBRID], sizeof cmd[0], &b->pl, 0, BENCH_HYBRID, 1, b->T, "",
                   "node-hybrid", args);
  bench_worker_cmd(cmd[SIDE_MPI], sizeof cmd[0], &b->pl, 0, BENCH_FLAT, 1, b->T, "", "node-mpi",
                   args);
  printf(
      "simple-bench node: 1 process x %ld threads (simple) against %ld MPI ranks x 1 thread"
      " (MPI), %ld round(s)%s\n",
      b->T, b->T, b->rounds, b->pl.pin ? ", pinned" : ", not pinned (more processors than cores)");
  fflush(stdout);
  if (bench_alternate(b->rounds, 2, node_side, cmd) != 0) {
    bench_suite_close(b);
    return 1;
  }
  FILE *out = b->out;
  if (out) fprintf(out, "suite,op,bytes,simple_us,mpi_us,ratio\n");
  printf("%-10s %10s %12s %12s %10s\n", "op", "bytes", "simple_us", "mpi_us", "mpi/simple");
  for (int i = 0; i < table.nrows; i++) {
    row_t *r = &rows[i];
    double h = bench_row_median(r, SIDE_HYBRID), m = bench_row_median(r, SIDE_MPI);
    double ratio = h > 0 ? m / h : 0;
    printf("%-10s %10zu %12.3f %12.3f %10.2f\n", r->op, r->bytes, h, m, ratio);
    if (out) fprintf(out, "node,%s,%zu,%.4f,%.4f,%.4f\n", r->op, r->bytes, h, m, ratio);
  }
  bench_suite_close(b);
  return 0;
}

/* ------------------------------------------------------------------------
 * simple-bench coll */

static int coll_index(const char *op) {
  const bench_coll_info_t *cl;
  int nc = bench_coll_list(&cl);
  for (int c = 0; c < nc; c++)
    if (strcmp(cl[c].name, op) == 0) return c;
  return nc;
}

static int cmp_rows(const void *a, const void *b) {
  const row_t *x = a, *y = b;
  int cx = coll_index(x->op), cy = coll_index(y->op);
  if (cx != cy) return cx - cy;
  return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/* 1 when HAN has an algorithm of its own for collective op (or nobody
 * could say). */
static int han_covers_op(const char *op) {
  char word[40];
  snprintf(word, sizeof word, " %s ", op);
  return !han_covers_seen || strstr(han_covers, word) != NULL;
}

/* The anchor of a row: the faster MPI variant; returns its side or -1. A
 * collective that HAN leaves to the default component ran the same
 * algorithm in both MPI jobs: the faster of two noisy measurements of one
 * thing would flatter the anchor (scan of 32 KiB on 2 x 1, six runs of
 * --rounds 3: the default job's median 16.8-21.5 us, the HAN job's
 * 17.3-20.7, either the faster by turns), so its anchor is the median
 * over both jobs' rounds, reported as the default's. */
static int anchor_of(row_t *r, double *t) {
  double d = bench_row_median(r, SIDE_MPI), h = bench_row_median(r, SIDE_HAN);
  if (isnan(d) && isnan(h)) return -1;
  if (!isnan(d) && !isnan(h) && !han_covers_op(r->op)) {
    double v[2 * BENCH_ROUNDS];
    size_t n = 0;
    for (int k = 0; k < r->n[SIDE_MPI]; k++) v[n++] = r->side[SIDE_MPI][k];
    for (int k = 0; k < r->n[SIDE_HAN]; k++) v[n++] = r->side[SIDE_HAN][k];
    *t = bench_median(v, n);
    return SIDE_MPI;
  }
  if (isnan(h) || (!isnan(d) && d <= h)) {
    *t = d;
    return SIDE_MPI;
  }
  *t = h;
  return SIDE_HAN;
}

/* A table field: v with `digits` decimals, or "-" when there is none. */
static void fmt_num(char *buf, size_t len, double v, int digits) {
  if (isnan(v))
    snprintf(buf, len, "-");
  else
    snprintf(buf, len, "%.*f", digits, v);
}

/* A CSV field: the value (4 decimals), or empty when there is none. */
static void csv_num(FILE *out, double v, const char *end) {
  if (isnan(v))
    fprintf(out, "%s", end);
  else
    fprintf(out, "%.4f%s", v, end);
}

static void fmt_bytes(char *buf, size_t len, size_t b) {
  if (b >= (1u << 20) && b % (1u << 20) == 0)
    snprintf(buf, len, "%zuMiB", b >> 20);
  else if (b >= 1024 && b % 1024 == 0)
    snprintf(buf, len, "%zuKiB", b >> 10);
  else
    snprintf(buf, len, "%zuB", b);
}

/* One panel per collective, log-log time against size: simple and the
 * anchor solid, the two MPI variants dashed. Rows are sorted by collective. */
static int write_plot(const char *png, const char *title) {
  char data[] = "/tmp/simple-bench-plot-XXXXXX";
  int fd = mkstemp(data);
  if (fd < 0) {
    fprintf(stderr, "simple-bench: --plot: cannot create a temporary file: %s\n", strerror(errno));
    return 1;
  }
  FILE *d = fdopen(fd, "w");
  int first[MAX_ROWS + 1], nblocks = 0;
  for (int i = 0; i < table.nrows; i++) {
    row_t *r = &rows[i];
    if (i == 0 || strcmp(r->op, rows[i - 1].op) != 0) {
      if (i) fprintf(d, "\n\n");
      first[nblocks++] = i;
    }
    double at, v[4] = {bench_row_median(r, SIDE_HYBRID), NAN, bench_row_median(r, SIDE_MPI),
                       bench_row_median(r, SIDE_HAN)};
    if (anchor_of(r, &at) >= 0) v[1] = at;
    /* The barrier has no size: drawn at x = 1. */
    fprintf(d, "%zu", r->bytes ? r->bytes : 1);
    for (int k = 0; k < 4; k++) {
      if (isnan(v[k]))
        fprintf(d, " ?");
      else
        fprintf(d, " %.6g", v[k]);
    }
    fprintf(d, "\n");
  }
  first[nblocks] = table.nrows;
  fclose(d);
  if (nblocks == 0) {
    unlink(data);
    fprintf(stderr, "simple-bench: --plot: no results to plot\n");
    return 1;
  }
  int cols = nblocks <= 4 ? nblocks : nblocks <= 9 ? 3 : 4;
  int lines = (nblocks + cols - 1) / cols;
  FILE *g = bench_plot_open(png, 420 * cols, 320 * lines);
  if (!g) {
    unlink(data);
    return 1;
  }
  fprintf(g,
          "set multiplot layout %d,%d title \"%s\"\n"
          "set grid\n"
          "set key top left\n"
          "set ylabel 'us'\n",
          lines, cols, title);
  static const char *curve[4] = {
      "with linespoints lw 2 lc rgb '#9400d3' title 'simple'",
      "with linespoints lw 2 lc rgb '#009e73' title 'anchor (faster MPI)'",
      "with lines dt 2 lc rgb '#56b4e9' title 'MPI default'",
      "with lines dt 3 lc rgb '#e69f00' title 'MPI HAN'"};
  for (int b = 0; b < nblocks; b++) {
    row_t *r0 = &rows[first[b]];
    fprintf(g, "set title '%s'\n", r0->op);
    if (r0->bytes == 0) {
      fprintf(g,
              "unset logscale\nset logscale y\nset xrange [0.5:1.5]\nset xtics ('' 1)\n"
              "set xlabel ''\n");
    } else {
      fprintf(g,
              "set logscale xy\nset autoscale x\nset xlabel 'bytes per processor%s'\nset xtics (",
              strcmp(r0->op, "alltoall") == 0 || strcmp(r0->op, "alltoallv") == 0 ? " pair" : "");
      for (int i = first[b]; i < first[b + 1]; i++) {
        char lb[32];
        fmt_bytes(lb, sizeof lb, rows[i].bytes);
        fprintf(g, "%s'%s' %zu", i > first[b] ? ", " : "", lb, rows[i].bytes);
      }
      fprintf(g, ")\n");
    }
    /* Only the curves with data: a collective missing from libsimple has
     * no simple curve, a run without HAN no HAN curve. */
    int any = 0;
    for (int k = 0; k < 4; k++) {
      int has = 0;
      for (int i = first[b]; i < first[b + 1]; i++) {
        row_t *r = &rows[i];
        double at;
        has |= k == 0   ? r->n[SIDE_HYBRID] > 0
               : k == 1 ? anchor_of(r, &at) >= 0
               : k == 2 ? r->n[SIDE_MPI] > 0
                        : r->n[SIDE_HAN] > 0;
      }
      if (!has) continue;
      fprintf(g, "%s'%s' index %d using 1:%d %s", any ? ", " : "plot ", data, b, k + 2, curve[k]);
      any = 1;
    }
    fprintf(g, any ? "\n" : "set multiplot next\n");
  }
  return bench_plot_close(g, data);
}

/* Whether simplerun can start several single-threaded ranks per virtual
 * node (--procs-per-node), which the flat side needs on the vcluster. */
static int simplerun_has(const char *dir, const char *opt) {
  char cmd[PATH_MAX + 64];
  snprintf(cmd, sizeof cmd, "'%s/simplerun' --help 2>&1", dir);
  FILE *p = popen(cmd, "r");
  if (!p) return 0;
  char line[512];
  int found = 0;
  while (fgets(line, sizeof line, p))
    if (strstr(line, opt)) found = 1;
  pclose(p);
  return found;
}

static int suite_coll(int argc, char **argv) {
  opts_t o;
  int rc = parse_opts(argc, argv, 1, &o);
  if (rc) return rc < 0 ? 0 : rc;
  bench_suite_t *b = &o.b;
  long N = b->N, T = b->T, P = N * T;
  if (o.plot && bench_plot_check(o.plot)) return 1;
  /* On several hosts (the virtual cluster, or a Slurm allocation, where
   * simplerun starts one process per node) the MPI side needs THREADS
   * ranks on each of NODES nodes: simplerun --procs-per-node. Local runs:
   * both sides pinned one processor per core when they fit (the anchor at
   * its best settings). On the virtual cluster each node's cgroup confines
   * its processes, under Slurm the allocation does, and neither side is
   * bound. */
  bench_place(&b->pl, b->vcluster, P);
  if (b->pl.multi && !simplerun_has(b->pl.dir, "--procs-per-node")) {
    fprintf(stderr,
            "simple-bench: %s: this build's simplerun has no --procs-per-node, which the MPI side"
            " needs (THREADS single-threaded ranks on each of NODES nodes)\n",
            b->vcluster ? "--vcluster" : "under Slurm");
    return 1;
  }
  if (bench_suite_start(b, P)) return 1;
  FILE *out = b->out;
  char args[512], han_args[520];
  snprintf(args, sizeof args, "--max-bytes %zu%s%s%s", o.max_bytes, b->quick ? " --quick" : "",
           o.only ? " --only " : "", o.only ? o.only : "");
  snprintf(han_args, sizeof han_args, "%s --han", args);
  bench_cmd_t cmd[NSIDES];
  bench_worker_cmd(cmd[SIDE_HYBRID], sizeof cmd[0], &b->pl, b->vcluster, BENCH_HYBRID, N, T, "",
                   "coll-hybrid", args);
  bench_worker_cmd(cmd[SIDE_MPI], sizeof cmd[0], &b->pl, b->vcluster, BENCH_FLAT, N, T, "",
                   "coll-mpi", args);
  bench_worker_cmd(cmd[SIDE_HAN], sizeof cmd[0], &b->pl, b->vcluster, BENCH_FLAT, N, T,
                   "OMPI_MCA_coll_han_priority=100 ", "coll-mpi", han_args);
  const char *where = bench_where(b->vcluster, b->pl.multi);
  printf(
      "simple-bench coll: %ld node(s) x %ld thread(s) (simple) against %ld MPI rank(s) x 1"
      " thread (%s), %ld round(s)%s\n",
      N, T, P, where, b->rounds, b->pl.pin ? ", pinned" : "");
  fflush(stdout);
  /* HAN is measured only where it can run: Open MPI, ranks on more than
   * one host (on one host HAN disqualifies itself and would only repeat
   * the default collectives, and the faster of two noisy measurements of
   * the same thing would flatter the anchor). Round 1 runs the default
   * side first, whose worker reports the library and the hosts. */
  coll_sides_t sides = {cmd, 1, NULL};
  if (bench_alternate(b->rounds, NSIDES, coll_side, &sides) != 0) {
    bench_suite_close(b);
    return 1;
  }
  const char *no_han = sides.no_han;

  qsort(rows, (size_t)table.nrows, sizeof rows[0], cmp_rows);
  printf("MPI: %s; HAN: %s\n", mpi_library[0] ? mpi_library : "unknown library",
         no_han                     ? no_han
         : han_priority_seen == 100 ? "coll_han_priority=100"
         : han_priority_seen == -1  ? "OMPI_MCA_coll_han_priority=100 (not confirmed by MPI_T)"
                                    : "requested, but coll_han_priority is not 100 in the ranks");
  int same = 0;
  for (int i = 0; i < table.nrows; i++) same |= rows[i].n[SIDE_SAME] > 0;
  printf("%-11s %8s %12s %12s %12s %8s %13s", "op", "bytes", "simple_us", "default_us", "han_us",
         "anchor", "anchor/simple");
  printf(same ? " %12s %11s\n" : "\n", "same_us", "same/simple");
  if (out)
    fprintf(out,
            "suite,op,bytes,nodes,threads,simple_us,mpi_default_us,mpi_han_us,anchor,"
            "anchor_us,ratio,mpi_same_us,same_ratio\n");
  for (int i = 0; i < table.nrows; i++) {
    row_t *r = &rows[i];
    double h = bench_row_median(r, SIDE_HYBRID), m = bench_row_median(r, SIDE_MPI),
           n = bench_row_median(r, SIDE_HAN), at = NAN;
    double same_us = bench_row_median(r, SIDE_SAME),
           same_ratio = bench_row_median(r, SIDE_SAME_RATIO);
    int a = anchor_of(r, &at);
    const char *an = a == SIDE_MPI ? "default" : a == SIDE_HAN ? "han" : "-";
    double ratio = h > 0 && !isnan(at) ? at / h : NAN;
    char sb[32], sh[32], sm[32], sn[32], sr[32], ss[32], sq[32];
    fmt_bytes(sb, sizeof sb, r->bytes);
    fmt_num(sh, sizeof sh, h, 3);
    fmt_num(sm, sizeof sm, m, 3);
    fmt_num(sn, sizeof sn, n, 3);
    fmt_num(sr, sizeof sr, ratio, 2);
    fmt_num(ss, sizeof ss, same_us, 3);
    fmt_num(sq, sizeof sq, same_ratio, 2);
    printf("%-11s %8s %12s %12s %12s %8s %13s", r->op, r->bytes ? sb : "-", sh, sm, sn, an, sr);
    printf(same ? " %12s %11s\n" : "\n", ss, sq);
    if (out) {
      fprintf(out, "coll,%s,%zu,%ld,%ld,", r->op, r->bytes, N, T);
      double v[3] = {h, m, n};
      for (int k = 0; k < 3; k++) csv_num(out, v[k], ",");
      fprintf(out, "%s,", a < 0 ? "" : an);
      csv_num(out, at, ",");
      csv_num(out, ratio, ",");
      csv_num(out, same_us, ",");
      csv_num(out, same_ratio, "\n");
    }
  }
  /* The copy floors: how far the library is from the copies alone, and
   * how far any implementation could get from the anchor. */
  int floors = 0;
  for (int i = 0; i < table.nrows; i++) {
    row_t *r = &rows[i];
    double f = bench_row_median(r, SIDE_FLOOR), h = bench_row_median(r, SIDE_HYBRID), at = NAN;
    if (isnan(f) || f <= 0) continue;
    if (!floors++)
      printf(
          "copy floor (each block copied once into its destination, nothing else;"
          " anchor/floor bounds anchor/simple):\n%-11s %8s %12s %12s %12s\n",
          "op", "bytes", "floor_us", "simple/floor", "anchor/floor");
    anchor_of(r, &at);
    char sb[32], sf[32], sh[32], sa[32];
    fmt_bytes(sb, sizeof sb, r->bytes);
    fmt_num(sf, sizeof sf, f, 3);
    fmt_num(sh, sizeof sh, h / f, 2);
    fmt_num(sa, sizeof sa, at / f, 2);
    printf("%-11s %8s %12s %12s %12s\n", r->op, sb, sf, sh, sa);
  }
  if (bench_suite_finish(b)) return 1;
  if (o.plot) {
    char title[256];
    snprintf(title, sizeof title, "simple-bench coll: %ld x %ld (simple) vs %ld MPI ranks (%s)", N,
             T, P, where);
    if (write_plot(o.plot, title) != 0) return 1;
    printf("plot: %s\n", o.plot);
  }
  return 0;
}

/* ------------------------------------------------------------------------
 * The suites: each one's driver and the workers it launches (simple-bench
 * --worker NAME). An application's suite is in the table without a driver
 * where its application is not in this build. */
typedef struct {
  const char *name;
  int (*run)(int argc, char **argv);
  struct {
    const char *name;
    bench_worker_fn *fn;
  } workers[3];
} suite_t;

#define NOT_BUILT(name) \
  {                     \
    name, NULL, {       \
      { NULL, NULL }    \
    }                   \
  }

static const suite_t suites[] = {
    {"node", suite_node, {{"node-hybrid", bench_node_hybrid}, {"node-mpi", bench_node_mpi}}},
    {"coll", suite_coll, {{"coll-hybrid", bench_coll_hybrid}, {"coll-mpi", bench_coll_mpi}}},
    {"pingpong",
     bench_pingpong_suite,
     {{"pingpong-hybrid", bench_pingpong_hybrid}, {"pingpong-mpi", bench_pingpong_mpi}}},
    {"rma", bench_rma_suite, {{"rma", bench_rma_worker}}},
    {"transpose",
     bench_transpose_suite,
     {{"transpose-hybrid", bench_transpose_hybrid}, {"transpose-mpi", bench_transpose_mpi}}},
    {"as", bench_as_suite, {{"as", bench_as_worker}}},
    {"bsp", bench_as_suite, {{"bsp", bench_as_worker}}},
    {"traffic", bench_traffic_suite, {{"traffic", bench_traffic_worker}}},
    {"model", bench_model_suite, {{NULL, NULL}}},
#ifdef SIMPLE_BENCH_MATMUL
    {"matmul",
     bench_matmul_suite,
     {{"matmul-hybrid", bench_matmul_hybrid},
      {"matmul-pdgemm", bench_matmul_pdgemm},
      {"matmul-serial", bench_matmul_serial}}},
#else
    NOT_BUILT("matmul"),
#endif
#ifdef SIMPLE_BENCH_QUEENS
    {"queens", bench_queens_suite, {{"queens", bench_queens_worker}}},
#else
    NOT_BUILT("queens"),
#endif
#ifdef SIMPLE_BENCH_WATER
    {"water", bench_water_suite, {{"water", bench_water_worker}}},
#else
    NOT_BUILT("water"),
#endif
#ifdef SIMPLE_BENCH_BARNES
    {"barnes", bench_barnes_suite, {{"barnes", bench_barnes_worker}}},
#else
    NOT_BUILT("barnes"),
#endif
#ifdef SIMPLE_BENCH_GROEBNER
    {"groebner", bench_groebner_suite, {{"groebner", bench_groebner_worker}}},
#else
    NOT_BUILT("groebner"),
#endif
#ifdef SIMPLE_BENCH_CHOLESKY
    {"cholesky",
     bench_cholesky_suite,
     {{"cholesky-simple", bench_cholesky_simple},
      {"cholesky-pdpotrf", bench_cholesky_pdpotrf},
      {"cholesky-mumps", bench_cholesky_mumps}}},
#else
    NOT_BUILT("cholesky"),
#endif
#ifdef SIMPLE_BENCH_SORT
    {"sort",
     bench_sort_suite,
     {{"sort-hybrid", bench_sort_hybrid},
      {"sort-mpi", bench_sort_mpi},
      {"sort-serial", bench_sort_serial}}},
#else
    NOT_BUILT("sort"),
#endif
#ifdef SIMPLE_BENCH_FFT
    {"fft", bench_fft_suite, {{"fft-simple", bench_fft_simple}, {"fft-fftw", bench_fft_fftw}}},
#else
    NOT_BUILT("fft"),
#endif
};

static bench_worker_fn *find_worker(const char *name) {
  for (size_t i = 0; i < LEN(suites); i++)
    for (size_t k = 0; k < LEN(suites[i].workers) && suites[i].workers[k].name; k++)
      if (strcmp(name, suites[i].workers[k].name) == 0) return suites[i].workers[k].fn;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "--worker") == 0) return worker(argc, argv);
  if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("simple-bench (simple) %s\n", simple_version_string());
    return 0;
  }
  const char *suite = argv[1];
  /* node and coll share one usage text: theirs on --help. */
  if (strcmp(suite, "node") == 0 || strcmp(suite, "coll") == 0)
    for (int i = 2; i < argc; i++)
      if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
        usage(stdout);
        return 0;
      }
  for (size_t i = 0; i < LEN(suites); i++) {
    if (strcmp(suite, suites[i].name) != 0) continue;
    if (suites[i].run) return suites[i].run(argc, argv);
    fprintf(stderr,
            "simple-bench: suite '%s' is not in this build: its application was not built"
            " (configure with -DSIMPLE_BUILD_APPS=ON; fft needs FFTW, matmul OpenBLAS and"
            " ScaLAPACK)\n",
            suite);
    return 2;
  }
  fprintf(stderr, "simple-bench: unknown suite '%s'\n", suite);
  usage(stderr);
  return 2;
}
