/* `simple-bench rma`: one-sided communication in BSP supersteps, the
 * one-sided backend (MPI windows) against the two-sided one (MPI_Isend /
 * MPI_Irecv), the comparison of paper 004 repeated inside one library.
 *
 * The driver runs the same worker job twice per round, with
 * SIMPLE_RMA=onesided and SIMPLE_RMA=twosided, alternating the order from
 * round to round, and reports per operation and size the median over
 * rounds of each side's median time per superstep, the per-processor
 * throughput, and the ratio twosided/onesided (above 1: one-sided faster).
 *
 * Operations (one superstep each: the transfers, then simple_rma_sync):
 *   sync       an empty superstep: the BSP barrier latency L;
 *   put-node   every processor puts `bytes` to the next thread of its node;
 *   get-node   ... gets them from there;
 *   put-net    every processor puts `bytes` to the same thread of the next
 *              node (so every node pair's packet carries r transfers);
 *   get-net    ... gets them from there;
 *   put-all    every processor puts bytes/p to every processor (the paper's
 *              total exchange, an h-relation with h = bytes).
 * Method (OSU): one checked superstep (the received data is compared with
 * its definition; a wrong result aborts the job, so it never reports a
 * time), warm-up, then samples of a batch of supersteps lasting ~50 us; a
 * sample is the slowest processor's mean superstep time; processor 0
 * prints the median as "R <op> <bytes> <us>". */
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

enum { OP_SYNC, OP_PUT_NODE, OP_GET_NODE, OP_PUT_NET, OP_GET_NET, OP_PUT_ALL, OP_COUNT };
static const char *op_names[OP_COUNT] = {"sync",    "put-node", "get-node",
                                         "put-net", "get-net",  "put-all"};

static const size_t sizes[] = {8, 64, 512, 4096, 32768, 262144, 1048576, 4194304};
static const size_t sizes_quick[] = {8, 4096, 65536};

/* ------------------------------------------------------------------------
 * Worker. */

typedef struct {
  const bench_opts_t *o;
} ctx_t;

static unsigned char pattern(int src, int dst, size_t i) {
  return (unsigned char)(src * 131 + dst * 7 + (int)(i % 251));
}

/* Partner of an operation: the processor this one transfers with. */
static int partner(simple_t *s, int op) {
  int node = simple_node(s), t = simple_thread(s), r = simple_threads(s), P = simple_nodes(s);
  if (op == OP_PUT_NODE || op == OP_GET_NODE) return simple_pid_of(s, node, (t + 1) % r);
  int next = (node + 1) % P;
  int tt = t % simple_threads_on(s, next);
  return simple_pid_of(s, next, tt);
}

/* The processor that puts to this one (the inverse of partner for puts). */
static int source_of(simple_t *s, int op) {
  int node = simple_node(s), t = simple_thread(s), r = simple_threads(s), P = simple_nodes(s);
  if (op == OP_PUT_NODE || op == OP_GET_NODE) return simple_pid_of(s, node, (t + r - 1) % r);
  int prev = (node + P - 1) % P;
  return simple_pid_of(s, prev, t % simple_threads_on(s, prev));
}

typedef struct {
  unsigned char *src, *dst, *area;
  size_t bytes;
} bufs_t;

static int step(simple_t *s, int op, bufs_t *b) {
  int rc = 0, p = simple_nprocs(s), me = simple_pid(s);
  switch (op) {
    case OP_SYNC: break;
    case OP_PUT_NODE:
    case OP_PUT_NET: rc = simple_rma_put(s, partner(s, op), b->src, b->area, 0, b->bytes); break;
    case OP_GET_NODE:
    case OP_GET_NET: rc = simple_rma_get(s, partner(s, op), b->area, 0, b->dst, b->bytes); break;
    case OP_PUT_ALL: {
      size_t per = b->bytes / (size_t)p;
      for (int d = 0; d < p && !rc && per; d++)
        rc = simple_rma_put(s, d, b->src + (size_t)d * per, b->area, (size_t)me * per, per);
      break;
    }
    default: break;
  }
  if (rc) simple_abort(s, "%s: %s", op_names[op], simple_rma_error(s));
  rc = simple_rma_sync(s);
  if (rc) simple_abort(s, "%s: sync: %s", op_names[op], simple_strerror(rc));
  return 0;
}

/* One superstep whose result is compared with its definition. */
static void checked(simple_t *s, int op, bufs_t *b) {
  int p = simple_nprocs(s), me = simple_pid(s);
  size_t n = b->bytes;
  memset(b->area, 0, n);
  memset(b->dst, 0, n);
  if (op == OP_PUT_ALL) {
    size_t per = n / (size_t)p;
    for (int d = 0; d < p; d++)
      for (size_t i = 0; i < per; i++) b->src[(size_t)d * per + i] = pattern(me, d, i);
  } else if (op == OP_GET_NODE || op == OP_GET_NET) {
    for (size_t i = 0; i < n; i++) b->area[i] = pattern(me, -1, i);
  } else {
    for (size_t i = 0; i < n; i++) b->src[i] = pattern(me, partner(s, op), i);
  }
  simple_rma_sync(s); /* everyone's area is ready before the gets */
  step(s, op, b);
  int bad = 0;
  if (op == OP_PUT_ALL) {
    size_t per = n / (size_t)p;
    for (int q = 0; q < p && !bad; q++)
      for (size_t i = 0; i < per; i++)
        if (b->area[(size_t)q * per + i] != pattern(q, me, i)) bad = 1;
  } else if (op == OP_GET_NODE || op == OP_GET_NET) {
    int q = partner(s, op);
    for (size_t i = 0; i < n && !bad; i++)
      if (b->dst[i] != pattern(q, -1, i)) bad = 1;
  } else if (op != OP_SYNC) {
    int q = source_of(s, op);
    for (size_t i = 0; i < n && !bad; i++)
      if (b->area[i] != pattern(q, me, i)) bad = 1;
  }
  if (bad)
    simple_abort(s, "%s of %zu B delivered wrong data (backend %d)", op_names[op], n,
                 simple_rma_backend(s));
}

static void worker_main(simple_t *s, void *arg) {
  const bench_opts_t *o = ((ctx_t *)arg)->o;
  int S = o->quick ? BENCH_SAMPLES_QUICK : BENCH_SAMPLES, P = simple_nodes(s);
  const size_t *sz = o->quick ? sizes_quick : sizes;
  size_t nsz = o->quick ? sizeof sizes_quick / sizeof *sz : sizeof sizes / sizeof *sz;
  size_t maxb = 0;
  for (size_t k = 0; k < nsz; k++)
    if (sz[k] <= o->max_bytes && sz[k] > maxb) maxb = sz[k];
  bufs_t b = {malloc(maxb + 64), malloc(maxb + 64), calloc(1, maxb + 64), 0};
  double *samples = malloc(sizeof(double) * (size_t)S);
  if (!b.src || !b.dst || !b.area || !samples) simple_abort(s, "out of memory");
  if (simple_pid(s) == 0)
    printf("I backend %s\n",
           simple_rma_backend(s) == SIMPLE_RMA_ONESIDED ? "onesided" : "twosided");
  if (simple_rma_push_reg(s, b.area, maxb + 64) || simple_rma_sync(s))
    simple_abort(s, "registration failed");
  for (int op = 0; op < OP_COUNT; op++) {
    if ((op == OP_PUT_NET || op == OP_GET_NET) && P == 1) continue;
    for (size_t k = 0; k < (op == OP_SYNC ? 1 : nsz); k++) {
      b.bytes = op == OP_SYNC ? 0 : sz[k];
      if (b.bytes > o->max_bytes) continue;
      checked(s, op, &b);
      double t0 = simple_time();
      for (int i = 0; i < BENCH_WARMUP / 5; i++) step(s, op, &b);
      int batch = bench_batch((simple_time() - t0) / (BENCH_WARMUP / 5), BENCH_SAMPLE_SECONDS);
      simple_bcast(s, &batch, 1, SIMPLE_INT32, 0);
      for (int j = 0; j < S; j++) {
        double t = simple_time();
        for (int i = 0; i < batch; i++) step(s, op, &b);
        samples[j] = (simple_time() - t) / batch;
      }
      simple_allreduce(s, SIMPLE_IN_PLACE, samples, (size_t)S, SIMPLE_DOUBLE, SIMPLE_MAX);
      if (simple_pid(s) == 0)
        printf("R %s %zu %.4f\n", op_names[op], b.bytes, 1e6 * bench_median(samples, (size_t)S));
      fflush(stdout);
    }
  }
  simple_rma_pop_reg(s, b.area);
  simple_rma_sync(s);
  free(b.src);
  free(b.dst);
  free(b.area);
  free(samples);
}

int bench_rma_worker(int argc, char **argv, const bench_opts_t *o) {
  ctx_t c = {o};
  return simple_run(&argc, &argv, worker_main, &c);
}

/* ------------------------------------------------------------------------
 * Driver. */

#define MAX_ROWS   64
#define MAX_ROUNDS 32
enum { ONE, TWO, NSIDES };

static bench_row_t rows[MAX_ROWS];
static bench_table_t table = {rows, 0, MAX_ROWS};

static int rma_line(const char *line, void *arg) {
  int side = *(const int *)arg;
  char op[32];
  size_t bytes;
  double us;
  if (sscanf(line, "R %31s %zu %lf", op, &bytes, &us) == 3) {
    bench_row_add(bench_row(&table, op, bytes), side, us);
    return 1;
  }
  return strncmp(line, "I ", 2) == 0;
}

static int run_side(int side, long round, void *cmds) {
  (void)round;
  return bench_run_worker(((const bench_cmd_t *)cmds)[side], rma_line, &side);
}

static void rma_usage(FILE *f) {
  fprintf(f,
          "usage: simple-bench rma [-N NODES] [-t THREADS] [--vcluster] [--quick] [--rounds R]\n"
          "                        [--max-bytes SIZE] [--csv FILE]\n");
}

int bench_rma_suite(int argc, char **argv) {
  bench_suite_t b = {.T = 2, .rounds = 5};
  size_t max_bytes = 4u << 20;
  const bench_opt_t opts[] = {{"--max-bytes", BENCH_BYTES, &max_bytes, 8, 1l << 30, NULL}, {0}};
  int rc = bench_suite_parse(&b, argc, argv, MAX_ROUNDS, opts, rma_usage);
  if (rc) return rc < 0 ? 0 : rc;
  long N = b.N, T = b.T, rounds = b.rounds;
  int quick = b.quick, vcluster = b.vcluster;
  if (bench_suite_start(&b, N * T)) return 1;
  FILE *out = b.out;
  int pin = b.pl.pin;
  bench_cmd_t cmd[NSIDES];
  char args[64];
  snprintf(args, sizeof args, "--max-bytes %zu%s", max_bytes, quick ? " --quick" : "");
  for (int k = 0; k < NSIDES; k++)
    bench_worker_cmd(cmd[k], sizeof cmd[k], &b.pl, vcluster, BENCH_HYBRID, N, T,
                     k == ONE ? "SIMPLE_RMA=onesided " : "SIMPLE_RMA=twosided ", "rma", args);
  printf(
      "simple-bench rma: %ld node(s) x %ld thread(s), one-sided against two-sided backend"
      " (%s), %ld round(s)%s\n",
      N, T, vcluster ? "virtual cluster" : "one host", rounds, pin ? ", pinned" : "");
  fflush(stdout);
  if (bench_alternate(rounds, NSIDES, run_side, cmd) != 0) {
    bench_suite_close(&b);
    return 1;
  }
  printf("%-9s %8s %12s %12s %12s %12s %9s\n", "op", "bytes", "onesided_us", "twosided_us",
         "one_MB/s", "two_MB/s", "two/one");
  if (out) fprintf(out, "suite,op,bytes,nodes,threads,onesided_us,twosided_us,ratio\n");
  for (int i = 0; i < table.nrows; i++) {
    bench_row_t *w = &rows[i];
    double m[NSIDES];
    for (int k = 0; k < NSIDES; k++) m[k] = bench_row_median(w, k);
    double ratio = m[ONE] > 0 ? m[TWO] / m[ONE] : NAN;
    /* Throughput per processor: bytes it sends (or receives) per superstep. */
    double mb1 = w->bytes ? w->bytes / m[ONE] : NAN, mb2 = w->bytes ? w->bytes / m[TWO] : NAN;
    char size[32];
    if (w->bytes >= (1u << 20))
      snprintf(size, sizeof size, "%zuMiB", w->bytes >> 20);
    else if (w->bytes >= 1024)
      snprintf(size, sizeof size, "%zuKiB", w->bytes >> 10);
    else
      snprintf(size, sizeof size, "%zuB", w->bytes);
    printf("%-9s %8s %12.3f %12.3f %12.1f %12.1f %9.2f\n", w->op, w->bytes ? size : "-", m[ONE],
           m[TWO], mb1, mb2, ratio);
    if (out)
      fprintf(out, "rma,%s,%zu,%ld,%ld,%.4f,%.4f,%.4f\n", w->op, w->bytes, N, T, m[ONE], m[TWO],
              ratio);
  }
  if (bench_suite_finish(&b)) return 1;
  return 0;
}
