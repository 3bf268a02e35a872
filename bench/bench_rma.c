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

typedef struct {
  char op[32];
  size_t bytes;
  double v[NSIDES][MAX_ROUNDS];
  int n[NSIDES];
} row_t;

static row_t rows[MAX_ROWS];
static int nrows;

static row_t *row_for(const char *op, size_t bytes) {
  for (int i = 0; i < nrows; i++)
    if (rows[i].bytes == bytes && strcmp(rows[i].op, op) == 0) return &rows[i];
  if (nrows == MAX_ROWS) return NULL;
  row_t *r = &rows[nrows++];
  memset(r, 0, sizeof *r);
  snprintf(r->op, sizeof r->op, "%s", op);
  r->bytes = bytes;
  return r;
}

static int run_side(const char *cmd, int side) {
  FILE *p = popen(cmd, "r");
  if (!p) {
    fprintf(stderr, "simple-bench: cannot run %s: %s\n", cmd, strerror(errno));
    return -1;
  }
  char line[512], op[32];
  size_t bytes;
  double us;
  while (fgets(line, sizeof line, p)) {
    if (sscanf(line, "R %31s %zu %lf", op, &bytes, &us) == 3) {
      row_t *r = row_for(op, bytes);
      if (r && r->n[side] < MAX_ROUNDS) r->v[side][r->n[side]++] = us;
    } else if (strncmp(line, "I ", 2) != 0) {
      fputs(line, stderr);
    }
  }
  int st = pclose(p);
  if (st != 0) {
    fprintf(stderr, "simple-bench: worker failed (status %d): %s\n", st, cmd);
    return -1;
  }
  return 0;
}

static int num(const char *v, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  if (!v || !*v) return -1;
  long x = strtol(v, &end, 10);
  if (errno || *end || x < lo || x > hi) return -1;
  *out = x;
  return 0;
}

static int bytes_arg(const char *v, size_t *out) {
  char *end;
  errno = 0;
  if (!v || !*v || *v == '-') return -1;
  unsigned long long x = strtoull(v, &end, 10), m = 1;
  if (*end == 'K' || *end == 'k')
    m = 1ull << 10, end++;
  else if (*end == 'M' || *end == 'm')
    m = 1ull << 20, end++;
  if (m > 1 && (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0)) end += strlen(end);
  if (errno || *end || x == 0 || x > (1ull << 30) / m) return -1;
  *out = (size_t)(x * m);
  return 0;
}

static int bad(const char *msg, const char *v) {
  fprintf(stderr, "simple-bench rma: %s%s%s\n", msg, v ? ": " : "", v ? v : "");
  return 2;
}

int bench_rma_suite(int argc, char **argv) {
  long N = -1, T = 2, rounds = -1;
  int quick = 0, vcluster = 0;
  size_t max_bytes = 4u << 20;
  const char *csv = NULL;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--quick") == 0)
      quick = 1;
    else if (strcmp(a, "--vcluster") == 0)
      vcluster = 1;
    else if (strcmp(a, "-N") == 0) {
      if (num(v, 1, 256, &N)) return bad("-N needs a node count from 1 to 256", v);
      i++;
    } else if (strcmp(a, "-t") == 0) {
      if (num(v, 1, 1024, &T)) return bad("-t needs a thread count from 1 to 1024", v);
      i++;
    } else if (strcmp(a, "--rounds") == 0) {
      if (num(v, 1, MAX_ROUNDS, &rounds)) return bad("--rounds needs a count from 1 to 32", v);
      i++;
    } else if (strcmp(a, "--max-bytes") == 0) {
      if (bytes_arg(v, &max_bytes) || max_bytes < 8)
        return bad("--max-bytes needs a size from 8 B to 1 GiB (e.g. 64K, 4MiB)", v);
      i++;
    } else if (strcmp(a, "--csv") == 0) {
      if (!v || !*v || *v == '-') return bad("--csv needs a file name", NULL);
      csv = v;
      i++;
    } else {
      return bad("unknown option (see simple-bench --help)", a);
    }
  }
  if (N < 0) N = vcluster ? 2 : 1;
  if (rounds < 0) rounds = quick ? 1 : 5;
  FILE *out = NULL;
  if (csv && !(out = fopen(csv, "w"))) {
    fprintf(stderr, "simple-bench: cannot write %s: %s\n", csv, strerror(errno));
    return 1;
  }
  char dir[PATH_MAX];
  bench_self_dir(dir, sizeof dir);
  int cores = bench_usable_cores();
  int pin = !vcluster && N * T <= cores;
  char cmd[NSIDES][2 * PATH_MAX + 512];
  for (int k = 0; k < NSIDES; k++)
    snprintf(cmd[k], sizeof cmd[k],
             "SIMPLE_RMA=%s %s'%s/simplerun'%s -N %ld -t %ld '%s/simple-bench' --worker rma"
             " --max-bytes %zu%s",
             k == ONE ? "onesided" : "twosided", pin ? "SIMPLE_PIN=1 " : "", dir,
             vcluster ? " --vcluster" : "", N, T, dir, max_bytes, quick ? " --quick" : "");
  printf(
      "simple-bench rma: %ld node(s) x %ld thread(s), one-sided against two-sided backend"
      " (%s), %ld round(s)%s\n",
      N, T, vcluster ? "virtual cluster" : "one host", rounds, pin ? ", pinned" : "");
  fflush(stdout);
  for (long r = 0; r < rounds; r++) {
    fprintf(stderr, "  round %ld/%ld\n", r + 1, rounds);
    for (int k = 0; k < NSIDES; k++) {
      int side = r % 2 ? NSIDES - 1 - k : k;
      if (run_side(cmd[side], side) != 0) {
        if (out) fclose(out);
        return 1;
      }
    }
  }
  printf("%-9s %8s %12s %12s %12s %12s %9s\n", "op", "bytes", "onesided_us", "twosided_us",
         "one_MB/s", "two_MB/s", "two/one");
  if (out) fprintf(out, "suite,op,bytes,nodes,threads,onesided_us,twosided_us,ratio\n");
  for (int i = 0; i < nrows; i++) {
    row_t *w = &rows[i];
    double m[NSIDES];
    for (int k = 0; k < NSIDES; k++) m[k] = w->n[k] ? bench_median(w->v[k], (size_t)w->n[k]) : NAN;
    double ratio = m[ONE] > 0 ? m[TWO] / m[ONE] : NAN;
    /* Throughput per processor: bytes it sends (or receives) per superstep. */
    double mb1 = w->bytes ? w->bytes / m[ONE] : NAN, mb2 = w->bytes ? w->bytes / m[TWO] : NAN;
    char b[32];
    if (w->bytes >= (1u << 20))
      snprintf(b, sizeof b, "%zuMiB", w->bytes >> 20);
    else if (w->bytes >= 1024)
      snprintf(b, sizeof b, "%zuKiB", w->bytes >> 10);
    else
      snprintf(b, sizeof b, "%zuB", w->bytes);
    printf("%-9s %8s %12.3f %12.3f %12.1f %12.1f %9.2f\n", w->op, w->bytes ? b : "-", m[ONE],
           m[TWO], mb1, mb2, ratio);
    if (out)
      fprintf(out, "rma,%s,%zu,%ld,%ld,%.4f,%.4f,%.4f\n", w->op, w->bytes, N, T, m[ONE], m[TWO],
              ratio);
  }
  if (out && fclose(out) != 0) {
    fprintf(stderr, "simple-bench: writing %s failed\n", csv);
    return 1;
  }
  return 0;
}
