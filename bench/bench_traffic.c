/* simple-bench traffic: what crosses between nodes, counted, for the hybrid
 * primitives and applications and for flat MPI on the same processors.
 *
 * Two worker jobs under libsimple-traffic (bench/traffic, preloaded): the
 * hybrid side, NODES processes of THREADS threads; the flat side,
 * NODES*THREADS single-thread processes, THREADS per node (node-major).
 * Each operation runs once untimed (connections, plans), then COUNTED_CALLS
 * (16) times inside one counted segment:
 *   barrier; the node leaders read the kernel's interface counters;
 *   barrier; MPI_Pcontrol(1) (libsimple-traffic starts counting);
 *   the calls; MPI_Pcontrol(0); barrier; the leaders read the counters.
 * The median of five empty segments (no calls) is subtracted from the
 * kernel's counts, which see everything the node sends (the barriers,
 * TCP acknowledgements, the launcher's own traffic); the MPI view counts
 * only the calls inside the segment. Counts are per call, summed over the
 * job. Times are never taken: the jobs may be heavily oversubscribed.
 *
 * The flat side runs MPI's own collectives, MPI_Put with MPI_Win_fence,
 * and MPI_Alltoall for the transpose; the applications, which have no flat
 * MPI twin in this suite, run simple's own code on NODES*THREADS one-thread
 * processes (the library used as flat MPI is used: a process per core). */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "simple.h"
#include "simple_traffic.h"
#ifdef SIMPLE_BENCH_SORT
#include "simple_sort.h"
#endif
#ifdef SIMPLE_BENCH_FFT
#include "simple_fft.h"
#endif
#ifdef SIMPLE_BENCH_MATMUL
#include "simple_matmul.h"
#endif
#ifdef SIMPLE_BENCH_QUEENS
#include "simple_nqueens.h"
#endif

#define COUNTED_CALLS  16
#define EMPTY_SEGMENTS 5
#define MAX_OPS        64
#define NFIELDS        7 /* api_msgs api_bytes coll_calls kern_pkts kern_bytes pml_msgs pml_bytes */

/* ------------------------------------------------------------------------
 * The worker. */
typedef struct {
  int flat;     /* 1: the flat-MPI side (one thread per process) */
  int ppn;      /* processes per node (1 hybrid, THREADS flat) */
  size_t bytes; /* bytes per processor of the collectives */
  long tn;      /* transpose and FFT order */
  int quick;
} wk_t;

static void kern_read(uint64_t *pkts, uint64_t *bytes) {
  /* /proc/net/dev belongs to the reader's network namespace: on the virtual
   * cluster, the node's own interface. Loopback is left out. */
  *pkts = *bytes = 0;
  FILE *f = fopen("/proc/net/dev", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (!colon) continue;
    *colon = '\0';
    char *name = line;
    while (*name == ' ') name++;
    if (strcmp(name, "lo") == 0) continue;
    unsigned long long v[16];
    if (sscanf(colon + 1, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
               &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) == 10) {
      *bytes += v[8];
      *pkts += v[9];
    }
  }
  fclose(f);
}

/* KiB from a "Key:   N kB" line of a /proc file; 0 if absent. */
static long proc_kib(const char *path, const char *key) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char line[256];
  long v = 0;
  size_t k = strlen(key);
  while (fgets(line, sizeof line, f))
    if (strncmp(line, key, k) == 0 && line[k] == ':') {
      v = atol(line + k + 1);
      break;
    }
  fclose(f);
  return v;
}

static int leader(simple_t *s, const wk_t *w) {
  return simple_thread(s) == 0 && simple_node(s) % w->ppn == 0;
}

typedef struct {
  uint64_t k0[2];
  double sum[NFIELDS];
} seg_t;

static void seg_begin(simple_t *s, const wk_t *w, seg_t *g) {
  simple_barrier(s);
  if (leader(s, w)) kern_read(&g->k0[0], &g->k0[1]);
  simple_barrier(s);
  if (simple_thread(s) == 0) MPI_Pcontrol(1);
  simple_node_barrier(s);
}

/* Ends a segment; the job's sums land in g->sum on every thread. */
static void seg_end(simple_t *s, const wk_t *w, seg_t *g) {
  simple_node_barrier(s);
  simple_traffic_counts_t c = {0};
  if (simple_thread(s) == 0) {
    MPI_Pcontrol(0);
    MPI_Pcontrol(2, &c);
    if (!c.loaded) simple_abort(s, "simple-bench traffic: libsimple-traffic is not loaded");
  }
  simple_barrier(s);
  double v[NFIELDS] = {0};
  if (simple_thread(s) == 0) {
    v[0] = (double)c.api_msgs;
    v[1] = (double)c.api_bytes;
    v[2] = (double)c.coll_calls;
    v[5] = (double)c.pml_msgs;
    v[6] = (double)c.pml_bytes;
  }
  if (leader(s, w)) {
    uint64_t k1[2];
    kern_read(&k1[0], &k1[1]);
    v[3] = (double)(k1[0] - g->k0[0]);
    v[4] = (double)(k1[1] - g->k0[1]);
  }
  simple_allreduce(s, v, g->sum, NFIELDS, SIMPLE_DOUBLE, SIMPLE_SUM);
}

static void report(simple_t *s, const char *op, size_t bytes, const seg_t *g, const seg_t *empty,
                   int calls) {
  if (simple_pid(s) != 0) return;
  printf("T %s %zu %.1f %.1f %.1f %.1f %.1f\n", op, bytes, g->sum[0] / calls, g->sum[1] / calls,
         g->sum[2] / calls, (g->sum[3] - empty->sum[3]) / calls,
         (g->sum[4] - empty->sum[4]) / calls);
  fflush(stdout);
}

static void fail(simple_t *s, const char *op, int rc) {
  simple_abort(s, "simple-bench traffic: %s failed: %s", op, simple_errname(rc));
}

/* The buffers of the collectives: p blocks of `bytes` each way. */
typedef struct {
  unsigned char *a, *b;
  size_t *counts, *displs;
  int *icounts, *idispls;
} bufs_t;

static int run_coll(simple_t *s, const wk_t *w, const char *op, bufs_t *B) {
  int p = simple_nprocs(s);
  size_t n = w->bytes, nd = n / 8 ? n / 8 : 1;
  if (!w->flat) {
    if (!strcmp(op, "barrier")) return simple_barrier(s);
    if (!strcmp(op, "bcast")) return simple_bcast(s, B->a, n, SIMPLE_BYTE, 0);
    if (!strcmp(op, "reduce"))
      return simple_reduce(s, B->a, B->b, nd, SIMPLE_DOUBLE, SIMPLE_SUM, 0);
    if (!strcmp(op, "allreduce"))
      return simple_allreduce(s, B->a, B->b, nd, SIMPLE_DOUBLE, SIMPLE_SUM);
    if (!strcmp(op, "scan")) return simple_scan(s, B->a, B->b, nd, SIMPLE_DOUBLE, SIMPLE_SUM);
    if (!strcmp(op, "exscan")) return simple_exscan(s, B->a, B->b, nd, SIMPLE_DOUBLE, SIMPLE_SUM);
    if (!strcmp(op, "gather")) return simple_gather(s, B->a, B->b, n, SIMPLE_BYTE, 0);
    if (!strcmp(op, "scatter")) return simple_scatter(s, B->a, B->b, n, SIMPLE_BYTE, 0);
    if (!strcmp(op, "allgather")) return simple_allgather(s, B->a, B->b, n, SIMPLE_BYTE);
    if (!strcmp(op, "alltoall")) return simple_alltoall(s, B->a, B->b, n, SIMPLE_BYTE);
    if (!strcmp(op, "alltoallv"))
      return simple_alltoallv(s, B->a, B->counts, B->displs, B->b, B->counts, B->displs,
                              SIMPLE_BYTE);
    if (!strcmp(op, "allgatherv"))
      return simple_allgatherv(s, B->a, n, B->b, B->counts, B->displs, SIMPLE_BYTE);
    return SIMPLE_ERR_ARG;
  }
  MPI_Comm c = MPI_COMM_WORLD;
  int in = (int)n, ind = (int)nd;
  if (!strcmp(op, "barrier")) return MPI_Barrier(c);
  if (!strcmp(op, "bcast")) return MPI_Bcast(B->a, in, MPI_BYTE, 0, c);
  if (!strcmp(op, "reduce")) return MPI_Reduce(B->a, B->b, ind, MPI_DOUBLE, MPI_SUM, 0, c);
  if (!strcmp(op, "allreduce")) return MPI_Allreduce(B->a, B->b, ind, MPI_DOUBLE, MPI_SUM, c);
  if (!strcmp(op, "scan")) return MPI_Scan(B->a, B->b, ind, MPI_DOUBLE, MPI_SUM, c);
  if (!strcmp(op, "exscan")) return MPI_Exscan(B->a, B->b, ind, MPI_DOUBLE, MPI_SUM, c);
  if (!strcmp(op, "gather")) return MPI_Gather(B->a, in, MPI_BYTE, B->b, in, MPI_BYTE, 0, c);
  if (!strcmp(op, "scatter")) return MPI_Scatter(B->a, in, MPI_BYTE, B->b, in, MPI_BYTE, 0, c);
  if (!strcmp(op, "allgather")) return MPI_Allgather(B->a, in, MPI_BYTE, B->b, in, MPI_BYTE, c);
  if (!strcmp(op, "alltoall")) return MPI_Alltoall(B->a, in, MPI_BYTE, B->b, in, MPI_BYTE, c);
  if (!strcmp(op, "alltoallv"))
    return MPI_Alltoallv(B->a, B->icounts, B->idispls, MPI_BYTE, B->b, B->icounts, B->idispls,
                         MPI_BYTE, c);
  if (!strcmp(op, "allgatherv"))
    return MPI_Allgatherv(B->a, in, MPI_BYTE, B->b, B->icounts, B->idispls, MPI_BYTE, c);
  (void)p;
  return MPI_ERR_ARG;
}

/* RMA superstep: every processor puts `bytes` into every other processor. */
typedef struct {
  MPI_Win win;
  int registered;
} rma_t;

static int run_putall(simple_t *s, const wk_t *w, bufs_t *B, rma_t *r) {
  int p = simple_nprocs(s), me = simple_pid(s), rc = 0;
  size_t n = w->bytes;
  if (!w->flat) {
    if (!r->registered) {
      if ((rc = simple_rma_push_reg(s, B->b, (size_t)p * n)) || (rc = simple_rma_sync(s)))
        return rc;
      r->registered = 1;
    }
    for (int k = 1; k < p && !rc; k++) {
      int to = (me + k) % p;
      rc = simple_rma_put(s, to, B->a + (size_t)to * n, B->b, (size_t)me * n, n);
    }
    return rc ? rc : simple_rma_sync(s);
  }
  if (!r->registered) {
    MPI_Win_create(B->b, (MPI_Aint)((size_t)p * n), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &r->win);
    MPI_Win_fence(0, r->win);
    r->registered = 1;
  }
  for (int k = 1; k < p; k++) {
    int to = (me + k) % p;
    MPI_Put(B->a + (size_t)to * n, (int)n, MPI_BYTE, to, (MPI_Aint)((size_t)me * n), (int)n,
            MPI_BYTE, r->win);
  }
  return MPI_Win_fence(0, r->win);
}

/* The n x n transpose of doubles: simple_transpose, or (flat) the blocks
 * of every rank exchanged by one MPI_Alltoall (the local reordering, which
 * sends nothing, is left out). */
static int run_transpose(simple_t *s, const wk_t *w, double *src, double *dst) {
  long n = w->tn;
  if (!w->flat) {
    simple_dist_t d = simple_dist_2d(n, n, SIMPLE_ROWS, SIMPLE_BLOCK, 1, SIMPLE_OVER_THREADS);
    return simple_transpose(s, src, &d, dst, &d, sizeof(double));
  }
  int p = simple_nprocs(s);
  long rows = n / p;
  int blk = (int)(rows * rows);
  return MPI_Alltoall(src, blk, MPI_DOUBLE, dst, blk, MPI_DOUBLE, MPI_COMM_WORLD);
}

typedef struct {
  int argc;
  char **argv;
  wk_t w;
} targ_t;

static void traffic_main(simple_t *s, void *arg) {
  targ_t *a = arg;
  wk_t *w = &a->w;
  int p = simple_nprocs(s), me = simple_pid(s), rc;
  if (w->flat && simple_threads(s) != 1)
    simple_abort(s, "simple-bench traffic: flat side needs -t 1");
  /* The flat side's counts and displacements are MPI ints. */
  if ((double)p * (double)w->bytes > 2147483647.0)
    simple_abort(s, "simple-bench traffic: %d processors x %zu bytes exceed MPI's int counts", p,
                 w->bytes);
  size_t big = (size_t)p * w->bytes;
  size_t tbytes = (size_t)w->tn * (size_t)w->tn * sizeof(double) / (size_t)p + 64;
  if (tbytes > big) big = tbytes;
  bufs_t B = {calloc(big, 1),
              calloc(big, 1),
              calloc((size_t)p, sizeof(size_t)),
              calloc((size_t)p, sizeof(size_t)),
              calloc((size_t)p, sizeof(int)),
              calloc((size_t)p, sizeof(int))};
  if (!B.a || !B.b || !B.counts || !B.displs || !B.icounts || !B.idispls)
    simple_abort(s, "simple-bench traffic: out of memory");
  for (int i = 0; i < p; i++) {
    B.counts[i] = w->bytes;
    B.displs[i] = (size_t)i * w->bytes;
    B.icounts[i] = (int)w->bytes;
    B.idispls[i] = (int)((size_t)i * w->bytes);
  }
  for (size_t i = 0; i < big; i++) B.a[i] = (unsigned char)(i + (size_t)me);
  /* The empty segment: the median of a few, field by field, since the
   * kernel's counts of the barriers vary from one segment to the next (TCP
   * acknowledgements, which process reaches the barrier last). */
  seg_t empty, g, e[EMPTY_SEGMENTS];
  for (int k = 0; k < EMPTY_SEGMENTS; k++) {
    seg_begin(s, w, &e[k]);
    seg_end(s, w, &e[k]);
  }
  empty = e[0];
  for (int f = 0; f < NFIELDS; f++) {
    double v[EMPTY_SEGMENTS];
    for (int k = 0; k < EMPTY_SEGMENTS; k++) v[k] = e[k].sum[f];
    empty.sum[f] = bench_median(v, EMPTY_SEGMENTS);
  }
  static const char *const colls[] = {"barrier",   "bcast",    "reduce",     "allreduce",
                                      "scan",      "exscan",   "gather",     "scatter",
                                      "allgather", "alltoall", "allgatherv", "alltoallv"};
  for (size_t k = 0; k < sizeof colls / sizeof colls[0]; k++) {
    const char *op = colls[k];
    if ((rc = run_coll(s, w, op, &B))) fail(s, op, rc);
    seg_begin(s, w, &g);
    for (int c = 0; c < COUNTED_CALLS; c++)
      if ((rc = run_coll(s, w, op, &B))) fail(s, op, rc);
    seg_end(s, w, &g);
    report(s, op, strcmp(op, "barrier") ? w->bytes : 0, &g, &empty, COUNTED_CALLS);
  }
  rma_t r = {0};
  if ((rc = run_putall(s, w, &B, &r))) fail(s, "putall", rc);
  seg_begin(s, w, &g);
  for (int c = 0; c < COUNTED_CALLS; c++)
    if ((rc = run_putall(s, w, &B, &r))) fail(s, "putall", rc);
  seg_end(s, w, &g);
  report(s, "putall", w->bytes, &g, &empty, COUNTED_CALLS);
  if (w->flat)
    MPI_Win_free(&r.win);
  else
    simple_rma_pop_reg(s, B.b), simple_rma_sync(s);

  if (w->tn % p == 0) {
    double *src = (double *)(void *)B.a, *dst = (double *)(void *)B.b;
    if ((rc = run_transpose(s, w, src, dst))) fail(s, "transpose", rc);
    seg_begin(s, w, &g);
    for (int c = 0; c < COUNTED_CALLS; c++)
      if ((rc = run_transpose(s, w, src, dst))) fail(s, "transpose", rc);
    seg_end(s, w, &g);
    report(s, "transpose", (size_t)w->tn, &g, &empty, COUNTED_CALLS);
  }

  /* The applications, one call each (after one untimed call). */
#ifdef SIMPLE_BENCH_SORT
  {
    size_t total = w->quick ? (size_t)1 << 16 : (size_t)1 << 18, lo, cnt, nout;
    simple_sort_slice(total, p, me, &lo, &cnt);
    uint32_t *keys = malloc(cnt * sizeof *keys + 4), *out = malloc(2 * cnt * sizeof *out + 64);
    uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(me + 1);
    for (size_t i = 0; i < cnt; i++) x ^= x << 13, x ^= x >> 7, x ^= x << 17, keys[i] = (uint32_t)x;
    size_t cap = 2 * cnt + 16;
    if ((rc = simple_sort_into_u32(s, keys, cnt, out, cap, &nout, NULL))) fail(s, "sort", rc);
    seg_begin(s, w, &g);
    if ((rc = simple_sort_into_u32(s, keys, cnt, out, cap, &nout, NULL))) fail(s, "sort", rc);
    seg_end(s, w, &g);
    report(s, "sort", total, &g, &empty, 1);
    free(keys);
    free(out);
  }
#endif
#ifdef SIMPLE_BENCH_FFT
  {
    long n = w->tn, rows, lo;
    simple_fft2d_local(s, n, n, 0, &rows, &lo);
    double _Complex *in = calloc((size_t)(rows > 0 ? rows : 1) * (size_t)n, sizeof *in),
                    *out = calloc((size_t)(rows > 0 ? rows : 1) * (size_t)n, sizeof *out);
    for (long i = 0; i < rows; i++)
      for (long j = 0; j < n; j++) in[i * n + j] = simple_fft2d_elem(1, lo + i, j);
    if ((rc = simple_fft2d(s, n, n, -1, 0, in, out))) fail(s, "fft", rc);
    seg_begin(s, w, &g);
    if ((rc = simple_fft2d(s, n, n, -1, 0, in, out))) fail(s, "fft", rc);
    seg_end(s, w, &g);
    report(s, "fft", (size_t)n, &g, &empty, 1);
    free(in);
    free(out);
  }
#endif
#ifdef SIMPLE_BENCH_MATMUL
  int q = 0;
  if (simple_matmul_grid(s, &q) == 0 && q > 0) {
    long n = 64L * q, nb = n / q;
    double *ma = calloc((size_t)(nb * nb), sizeof(double)),
           *mb = calloc((size_t)(nb * nb), sizeof(double)),
           *mc = calloc((size_t)(nb * nb), sizeof(double));
    for (long i = 0; i < nb * nb; i++) ma[i] = 1.0 / (double)(i + 1), mb[i] = (double)(i % 7);
    if ((rc = simple_matmul_cannon(s, n, ma, mb, mc, SIMPLE_MATMUL_PUT))) fail(s, "matmul", rc);
    seg_begin(s, w, &g);
    if ((rc = simple_matmul_cannon(s, n, ma, mb, mc, SIMPLE_MATMUL_PUT))) fail(s, "matmul", rc);
    seg_end(s, w, &g);
    report(s, "matmul", (size_t)n, &g, &empty, 1);
    free(ma);
    free(mb);
    free(mc);
  }
#endif
#ifdef SIMPLE_BENCH_QUEENS
  {
    int n = w->quick ? 10 : 12;
    uint64_t sol = 0;
    simple_nqueens_opts_t qo = {.static_partition = 1};
    if ((rc = simple_nqueens(s, n, &qo, &sol))) fail(s, "queens", rc);
    seg_begin(s, w, &g);
    if ((rc = simple_nqueens(s, n, &qo, &sol))) fail(s, "queens", rc);
    seg_end(s, w, &g);
    report(s, "queens", (size_t)n, &g, &empty, 1);
  }
#endif

  /* Resident memory: each process's RSS and PSS (shared pages divided
   * among the processes that map them), summed per node. */
  int N = simple_nodes(s) / w->ppn;
  double *mem = calloc((size_t)(2 * N), sizeof(double)),
         *tot = calloc((size_t)(2 * N), sizeof(double));
  if (simple_thread(s) == 0) {
    int node = simple_node(s) / w->ppn;
    mem[2 * node] = (double)proc_kib("/proc/self/status", "VmRSS");
    mem[2 * node + 1] = (double)proc_kib("/proc/self/smaps_rollup", "Pss");
  }
  simple_allreduce(s, mem, tot, (size_t)(2 * N), SIMPLE_DOUBLE, SIMPLE_SUM);
  if (me == 0) {
    for (int i = 0; i < N; i++) printf("M %d %.0f %.0f\n", i, tot[2 * i], tot[2 * i + 1]);
    fflush(stdout);
  }
  free(mem);
  free(tot);
  free(B.a);
  free(B.b);
  free(B.counts);
  free(B.displs);
  free(B.icounts);
  free(B.idispls);
}

int bench_traffic_worker(int argc, char **argv, const bench_opts_t *o) {
  /* libsimple-traffic must be in the process before MPI starts: the
   * launchers pass SIMPLE_* variables on, not LD_PRELOAD, so the worker
   * puts it there itself and starts again (same process, same MPI
   * environment). */
  const char *lib = getenv("SIMPLE_TRAFFIC_LIB");
  const char *pre = getenv("LD_PRELOAD");
  if (lib && (!pre || !strstr(pre, lib))) {
    setenv("LD_PRELOAD", lib, 1);
    execv("/proc/self/exe", argv);
    fprintf(stderr, "simple-bench traffic: cannot restart with %s: %s\n", lib, strerror(errno));
    return 1;
  }
  targ_t a = {argc, argv, {0, 1, 8, 256, o->quick}};
  for (int i = 3; i < argc; i++) {
    if (!strcmp(argv[i], "--flat")) a.w.flat = 1;
    if (!strcmp(argv[i], "--ppn") && i + 1 < argc) a.w.ppn = atoi(argv[++i]);
    if (!strcmp(argv[i], "--bytes") && i + 1 < argc) a.w.bytes = (size_t)atol(argv[++i]);
    if (!strcmp(argv[i], "--tn") && i + 1 < argc) a.w.tn = atol(argv[++i]);
  }
  if (a.w.ppn < 1) a.w.ppn = 1;
  return simple_run(&argc, &argv, traffic_main, &a);
}

/* ------------------------------------------------------------------------
 * The driver. */
typedef struct {
  char op[24];
  size_t bytes;
  double v[2][5];
  int have[2];
} trow_t;
static trow_t trows[MAX_OPS];
static int ntrows;
static double tmem[2][256][2];
static int tmem_nodes[2];

typedef struct {
  int side;
} tctx_t;

static int traffic_line(const char *line, void *arg) {
  int side = ((tctx_t *)arg)->side;
  char op[24];
  size_t bytes;
  double v[5];
  int node;
  double rss, pss;
  if (sscanf(line, "T %23s %zu %lf %lf %lf %lf %lf", op, &bytes, &v[0], &v[1], &v[2], &v[3],
             &v[4]) == 7) {
    int i = 0;
    while (i < ntrows && !(trows[i].bytes == bytes && !strcmp(trows[i].op, op))) i++;
    if (i == ntrows && ntrows < MAX_OPS) {
      memset(&trows[i], 0, sizeof trows[i]);
      snprintf(trows[i].op, sizeof trows[i].op, "%s", op);
      trows[i].bytes = bytes;
      ntrows++;
    }
    if (i < MAX_OPS) {
      memcpy(trows[i].v[side], v, sizeof v);
      trows[i].have[side] = 1;
    }
    return 1;
  }
  if (sscanf(line, "M %d %lf %lf", &node, &rss, &pss) == 3) {
    if (node >= 0 && node < 256) {
      tmem[side][node][0] = rss;
      tmem[side][node][1] = pss;
      if (node + 1 > tmem_nodes[side]) tmem_nodes[side] = node + 1;
    }
    return 1;
  }
  return 0;
}

static void traffic_usage(FILE *f) {
  fprintf(f,
          "usage: simple-bench traffic [-N NODES] [-t THREADS] [--vcluster] [--quick]\n"
          "                            [--bytes N] [--csv FILE]\n"
          "  messages and bytes between nodes per call, hybrid (NODES x THREADS) against\n"
          "  flat MPI (NODES*THREADS ranks, THREADS per node), counted by libsimple-traffic\n"
          "  (PMPI) and, on the virtual cluster, by the kernel's interface counters; resident\n"
          "  memory per node. No times.\n"
          "  -N NODES      nodes; default 2\n"
          "  -t THREADS    threads (flat: ranks) per node; default 2\n"
          "  --vcluster    on the virtual cluster (kernel counts need it)\n"
          "  --quick       smaller applications\n"
          "  --bytes N     bytes per processor of the collectives and puts; default 4 KiB\n"
          "  --csv FILE    one row per (op, side)\n");
}

int bench_traffic_suite(int argc, char **argv) {
  bench_suite_t b = {.N = 2, .T = 2};
  size_t bytes = 4096;
  const bench_opt_t opts[] = {{"-t", BENCH_NUM, &b.T, 1, 256, NULL},
                              {"--rounds", BENCH_NUM, NULL, 0, 0, NULL},
                              {"--bytes", BENCH_BYTES, &bytes, 8, 1 << 24, NULL},
                              {0}};
  int prc = bench_suite_parse(&b, argc, argv, 1, opts, traffic_usage);
  if (prc) return prc < 0 ? 0 : prc;
  long N = b.N, T = b.T;
  int vcluster = b.vcluster, quick = b.quick;
  if (bench_suite_start(&b, N * T)) return 1;
  FILE *out = b.out;
  b.pl.pin = 0; /* counts, not times: no pinning */
  char lib[4200];
  snprintf(lib, sizeof lib, "%s/../lib/libsimple-traffic.so", b.pl.dir);
  if (access(lib, R_OK) != 0) {
    fprintf(stderr, "simple-bench traffic: %s not found (build target simple-traffic)\n", lib);
    bench_suite_close(&b);
    return 1;
  }
  char *real = realpath(lib, NULL);
  /* The transpose and FFT order: 512 or more, a multiple of the processors. */
  long tn = N * T * ((512 + N * T - 1) / (N * T));
  for (int side = 0; side < 2; side++) {
    char env[4400], args[256], cmd[16384];
    snprintf(env, sizeof env, "SIMPLE_TRAFFIC_LIB='%s' SIMPLE_TRAFFIC_PPN=%ld ", real,
             side ? T : 1);
    snprintf(args, sizeof args, "%s--ppn %ld --bytes %zu --tn %ld%s", side ? "--flat " : "",
             side ? T : 1, bytes, tn, quick ? " --quick" : "");
    tctx_t c = {side};
    if (bench_worker_cmd(cmd, sizeof cmd, &b.pl, vcluster, side ? BENCH_FLAT : BENCH_HYBRID, N, T,
                         env, "traffic", args) == 0) {
      fprintf(stderr, "  %s side\n", side ? "flat MPI" : "hybrid");
      if (bench_run_worker(cmd, traffic_line, &c) == 0) continue;
    }
    free(real);
    bench_suite_close(&b);
    return 1;
  }
  free(real);
  printf(
      "simple-bench traffic: %ld nodes x %ld threads (flat: %ld ranks, %ld per node), %s;"
      " per call, summed over the job\n",
      N, T, N * T, T, vcluster ? "virtual cluster" : "one host (no kernel view)");
  printf("%-10s %8s | %9s %11s %5s %9s %11s | %9s %11s %5s %9s %11s | %7s\n", "op", "size",
         "h_msgs", "h_bytes", "h_col", "h_pkts", "h_kbytes", "f_msgs", "f_bytes", "f_col", "f_pkts",
         "f_kbytes", "pkts f/h");
  if (out)
    fprintf(out,
            "suite,op,size,nodes,threads,side,api_msgs,api_bytes,mpi_coll_calls,kernel_pkts,"
            "kernel_bytes\n");
  for (int i = 0; i < ntrows; i++) {
    trow_t *r = &trows[i];
    double *h = r->v[0], *f = r->v[1];
    char ratio[16] = "-";
    if (vcluster && h[3] > 0.5) snprintf(ratio, sizeof ratio, "%.1f", f[3] / h[3]);
    char hk[2][2][24];
    for (int sd = 0; sd < 2; sd++) {
      if (vcluster) {
        snprintf(hk[sd][0], sizeof hk[sd][0], "%.1f", r->v[sd][3]);
        snprintf(hk[sd][1], sizeof hk[sd][1], "%.0f", r->v[sd][4]);
      } else {
        snprintf(hk[sd][0], sizeof hk[sd][0], "-");
        snprintf(hk[sd][1], sizeof hk[sd][1], "-");
      }
    }
    printf("%-10s %8zu | %9.1f %11.0f %5.1f %9s %11s | %9.1f %11.0f %5.1f %9s %11s | %7s\n", r->op,
           r->bytes, h[0], h[1], h[2], hk[0][0], hk[0][1], f[0], f[1], f[2], hk[1][0], hk[1][1],
           ratio);
    for (int sd = 0; sd < 2 && out; sd++)
      if (r->have[sd]) {
        fprintf(out, "traffic,%s,%zu,%ld,%ld,%s,%.1f,%.0f,%.1f,", r->op, r->bytes, N, T,
                sd ? "flat" : "hybrid", r->v[sd][0], r->v[sd][1], r->v[sd][2]);
        if (vcluster)
          fprintf(out, "%.1f,%.0f\n", r->v[sd][3], r->v[sd][4]);
        else
          fprintf(out, ",\n");
      }
  }
  printf("resident memory per node (KiB, all processes of the node summed):\n");
  printf("%-6s %12s %12s %12s %12s\n", "node", "hybrid_rss", "hybrid_pss", "flat_rss", "flat_pss");
  for (int i = 0; i < tmem_nodes[0] && i < tmem_nodes[1]; i++) {
    printf("%-6d %12.0f %12.0f %12.0f %12.0f\n", i, tmem[0][i][0], tmem[0][i][1], tmem[1][i][0],
           tmem[1][i][1]);
    if (out)
      fprintf(out, "memory,node%d,0,%ld,%ld,both,%.0f,%.0f,%.0f,%.0f,\n", i, N, T, tmem[0][i][0],
              tmem[0][i][1], tmem[1][i][0], tmem[1][i][1]);
  }
  if (out && fclose(out) != 0) {
    fprintf(stderr, "simple-bench traffic: writing %s failed\n", b.csv);
    return 1;
  }
  return 0;
}
