/* simple-bench pingpong: half round-trip latency and bandwidth of
 * point-to-point messages (include/simple/msg.h), thread to thread inside a
 * node and node to node, each beside raw MPI between two processes placed
 * the same way, in one invocation (OSU latency method).
 *
 * Rows:
 *   intra      simple: 2 threads of one process (simple_send/simple_recv);
 *              MPI: 2 processes of one host (MPI_Send/MPI_Recv)
 *   intra-buf  simple: the same with buffer ids handed back and forth (no
 *              copy at any size); MPI as for intra
 *   inter      simple: 1 thread on each of 2 nodes; MPI: 2 processes on 2
 *              nodes (the virtual cluster with --vcluster, else 2 local
 *              processes, exactly like the simple side's 2 nodes)
 *   floor      the hardware's floor for one message between the intra row's
 *              two threads: a bare ping-pong on one shared cache line, no
 *              library and no MPI (each one-way costs the writer's
 *              ownership request and the reader's miss, the least any
 *              intra-node message can cost); simple side only
 *   probe      cost of a non-blocking probe that finds nothing:
 *              simple_iprobe(ANY_SOURCE, ANY_TAG) on 1 node (probe1) and on
 *              2 nodes (probe2, which polls MPI every 64th call), against
 *              MPI_Iprobe(ANY_SOURCE, ANY_TAG)
 *
 * Workers print "R <row> <bytes> <us>"; the driver runs the jobs in
 * alternating order round by round and prints medians over rounds. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <simple.h>

#include "bench.h"

#define PP_SAMPLE_SECONDS 200e-6
#define PP_MAX_ROWS       160
#define PP_MAX_ROUNDS     32

/* Sizes: 0, then powers of two from 1 B to max_bytes; --quick: a few. */
static int pp_sizes(const bench_opts_t *o, size_t *out) {
  int n = 0;
  if (o->quick) {
    static const size_t q[] = {0, 8, 4096, 65536, 1u << 20};
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
      if (q[i] <= o->max_bytes) out[n++] = q[i];
    return n;
  }
  out[n++] = 0;
  for (size_t b = 1; b <= o->max_bytes && n < 40; b *= 2) out[n++] = b;
  return n;
}

static int pp_samples(const bench_opts_t *o) {
  return o->quick ? BENCH_SAMPLES_QUICK : BENCH_SAMPLES;
}

static unsigned char pat(size_t i, int who) {
  return (unsigned char)(i * 131 + (size_t)who * 17 + 1);
}

static void pp_fill(unsigned char *b, size_t n, int who) {
  for (size_t i = 0; i < n; i++) b[i] = pat(i, who);
}

static long pp_bad(const unsigned char *b, size_t n, int who) {
  for (size_t i = 0; i < n; i++)
    if (b[i] != pat(i, who)) return (long)i;
  return -1;
}

static int pp_warmup(size_t bytes) { return bytes >= (1u << 20) ? 5 : bytes >= 65536 ? 20 : 200; }

/* Microseconds per probe that finds nothing: the median of 5 runs of
 * `reps` probes. */
static double pp_probe_us(void (*probe)(simple_t *s), simple_t *s, double (*now)(void), int reps) {
  double v[5];
  for (int j = 0; j < 5; j++) {
    double t = now();
    for (int i = 0; i < reps; i++) probe(s);
    v[j] = (now() - t) / reps;
  }
  return 1e6 * bench_median(v, 5);
}

/* ------------------------------------------------------------------------
 * simple side. */
typedef struct {
  const bench_opts_t *o;
} pp_ctx_t;

#define PP_CHECK(call, what)                                                         \
  do {                                                                               \
    int rc_ = (call);                                                                \
    if (rc_) simple_abort(s, "pingpong: %s failed: %s", what, simple_strerror(rc_)); \
  } while (0)

/* One round trip of typed messages between pids 0 and 1. */
static void rt_typed(simple_t *s, int me, unsigned char *sb, unsigned char *rb, size_t n) {
  if (me == 0) {
    PP_CHECK(simple_send(s, sb, n, SIMPLE_BYTE, 1, 1), "send");
    PP_CHECK(simple_recv(s, rb, n, SIMPLE_BYTE, 1, 1, NULL), "recv");
  } else {
    PP_CHECK(simple_recv(s, rb, n, SIMPLE_BYTE, 0, 1, NULL), "recv");
    PP_CHECK(simple_send(s, sb, n, SIMPLE_BYTE, 0, 1), "send");
  }
}

/* One round trip of a buffer id: pid 0 sends *id, pid 1 sends back what it
 * got; *id is pid 0's buffer again afterwards. */
static void rt_buf(simple_t *s, int me, simple_buf_t *id) {
  if (me == 0) {
    PP_CHECK(simple_buf_send(s, *id, 1, 2), "buf_send");
    PP_CHECK(simple_buf_recv(s, 1, 2, id, NULL), "buf_recv");
  } else {
    simple_buf_t got;
    PP_CHECK(simple_buf_recv(s, 0, 2, &got, NULL), "buf_recv");
    PP_CHECK(simple_buf_send(s, got, 0, 2), "buf_send");
  }
}

/* The floor row's cache line, shared by the intra job's two threads. */
static _Alignas(64) atomic_uint pp_floor_word;

/* Waits until the floor line holds v. Polls; every 4096 polls it yields,
 * so that two threads sharing one core (an unpinned, oversubscribed host)
 * still take turns instead of spinning through scheduler ticks. */
static void pp_line_wait(unsigned v) {
  for (unsigned i = 1; atomic_load_explicit(&pp_floor_word, memory_order_acquire) != v; i++)
    if (i % 4096 == 0) sched_yield();
}

/* One sample of the floor: seconds per one-way over `iters` round trips. */
static double pp_floor_sample(simple_t *s, int me, int iters) {
  if (me == 0) atomic_store_explicit(&pp_floor_word, 0, memory_order_relaxed);
  PP_CHECK(simple_barrier(s), "barrier");
  double t = simple_time();
  for (unsigned i = 1; i <= (unsigned)iters; i++) {
    if (me == 0) {
      atomic_store_explicit(&pp_floor_word, 2 * i - 1, memory_order_release);
      pp_line_wait(2 * i);
    } else {
      pp_line_wait(2 * i - 1);
      atomic_store_explicit(&pp_floor_word, 2 * i, memory_order_release);
    }
  }
  return (simple_time() - t) / iters / 2;
}

static void hybrid_probe(simple_t *s) {
  int flag = 0;
  PP_CHECK(simple_iprobe(s, SIMPLE_ANY_SOURCE, SIMPLE_ANY_TAG, &flag, NULL), "iprobe");
  if (flag) simple_abort(s, "pingpong: a probe found a message where none was sent");
}

static void pp_hybrid_main(simple_t *s, void *arg) {
  const bench_opts_t *o = ((pp_ctx_t *)arg)->o;
  const char *row = o->only ? o->only : "intra";
  int me = simple_pid(s);
  if (simple_nprocs(s) != 2) simple_abort(s, "pingpong: needs exactly 2 threads in the job");
  int S = pp_samples(o);
  double *samples = malloc(sizeof(double) * (size_t)S);
  size_t sizes[40];
  int ns = pp_sizes(o, sizes);
  int with_buf = simple_nodes(s) == 1;
  for (int variant = 0; variant < 1 + with_buf; variant++) {
    for (int k = 0; k < ns; k++) {
      size_t n = sizes[k];
      unsigned char *sb = malloc(n + 1), *rb = malloc(n + 1);
      pp_fill(sb, n, me);
      simple_buf_t id = SIMPLE_BUF_NULL;
      if (variant == 1 && me == 0) {
        void *w;
        PP_CHECK(simple_buf_create(s, n, &id), "buf_create");
        PP_CHECK(simple_buf_extend(s, id, n, &w), "buf_extend");
        pp_fill(w, n, 0);
      }
      /* One checked round trip, then warm-up. */
      memset(rb, 0, n);
      if (variant == 0) {
        rt_typed(s, me, sb, rb, n);
        long bad = pp_bad(rb, n, 1 - me);
        if (bad >= 0) simple_abort(s, "pingpong %s %zu B: byte %ld wrong", row, n, bad);
      } else {
        rt_buf(s, me, &id);
      }
      double t0 = simple_time();
      int w = pp_warmup(n);
      for (int i = 0; i < w; i++)
        if (variant == 0)
          rt_typed(s, me, sb, rb, n);
        else
          rt_buf(s, me, &id);
      int batch = bench_batch((simple_time() - t0) / w, PP_SAMPLE_SECONDS);
      PP_CHECK(simple_bcast(s, &batch, 1, SIMPLE_INT32, 0), "bcast");
      memset(rb, 0, n);
      for (int j = 0; j < S; j++) {
        double t = simple_time();
        for (int i = 0; i < batch; i++)
          if (variant == 0)
            rt_typed(s, me, sb, rb, n);
          else
            rt_buf(s, me, &id);
        samples[j] = (simple_time() - t) / batch / 2;
      }
      /* The timed messages carried the data. */
      if (variant == 0 && pp_bad(rb, n, 1 - me) >= 0)
        simple_abort(s, "pingpong %s %zu B: wrong data after the timed loop", row, n);
      if (variant == 1 && me == 0) {
        void *d;
        size_t bytes;
        PP_CHECK(simple_buf_data(s, id, &d, &bytes), "buf_data");
        if (bytes != n || pp_bad(d, n, 0) >= 0)
          simple_abort(s, "pingpong %s-buf %zu B: wrong buffer after the round trips", row, n);
        PP_CHECK(simple_buf_free(s, id), "buf_free");
      }
      if (me == 0)
        printf("R %s%s %zu %.4f\n", row, variant ? "-buf" : "", n,
               1e6 * bench_median(samples, (size_t)S));
      fflush(stdout);
      free(sb);
      free(rb);
      PP_CHECK(simple_barrier(s), "barrier");
    }
  }
  if (simple_nodes(s) == 1) {
    pp_floor_sample(s, me, 2000); /* warm-up */
    for (int j = 0; j < S; j++) samples[j] = pp_floor_sample(s, me, o->quick ? 2000 : 5000);
    if (me == 0) printf("R floor 8 %.4f\n", 1e6 * bench_median(samples, (size_t)S));
    fflush(stdout);
  }
  /* Empty probes: nothing is in flight (every message was received). */
  double us = pp_probe_us(hybrid_probe, s, simple_time, o->quick ? 200000 : 1000000);
  if (me == 0) printf("R probe%d 0 %.5f\n", simple_nodes(s), us);
  fflush(stdout);
  PP_CHECK(simple_barrier(s), "barrier");
  free(samples);
}

int bench_pingpong_hybrid(int argc, char **argv, const bench_opts_t *o) {
  pp_ctx_t ctx = {o};
  return simple_run(&argc, &argv, pp_hybrid_main, &ctx);
}

/* ------------------------------------------------------------------------
 * MPI side: two single-threaded processes. */
static void rt_mpi(int me, unsigned char *sb, unsigned char *rb, size_t n) {
  if (me == 0) {
    MPI_Send(sb, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
    MPI_Recv(rb, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(rb, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(sb, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
  }
}

static void mpi_probe(simple_t *s) {
  int flag = 0;
  (void)s;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  if (flag) MPI_Abort(MPI_COMM_WORLD, 1);
}

int bench_pingpong_mpi(int argc, char **argv, const bench_opts_t *o) {
  MPI_Init(&argc, &argv);
  const char *row = o->only ? o->only : "intra";
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (np != 2) {
    fprintf(stderr, "pingpong: the MPI side needs exactly 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int S = pp_samples(o);
  double *samples = malloc(sizeof(double) * (size_t)S);
  size_t sizes[40];
  int ns = pp_sizes(o, sizes);
  for (int k = 0; k < ns; k++) {
    size_t n = sizes[k];
    unsigned char *sb = malloc(n + 1), *rb = malloc(n + 1);
    pp_fill(sb, n, me);
    memset(rb, 0, n);
    rt_mpi(me, sb, rb, n);
    if (pp_bad(rb, n, 1 - me) >= 0) {
      fprintf(stderr, "pingpong mpi %zu B: wrong data\n", n);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double t0 = MPI_Wtime();
    int w = pp_warmup(n);
    for (int i = 0; i < w; i++) rt_mpi(me, sb, rb, n);
    int batch = bench_batch((MPI_Wtime() - t0) / w, PP_SAMPLE_SECONDS);
    MPI_Bcast(&batch, 1, MPI_INT, 0, MPI_COMM_WORLD);
    memset(rb, 0, n);
    for (int j = 0; j < S; j++) {
      double t = MPI_Wtime();
      for (int i = 0; i < batch; i++) rt_mpi(me, sb, rb, n);
      samples[j] = (MPI_Wtime() - t) / batch / 2;
    }
    if (pp_bad(rb, n, 1 - me) >= 0) {
      fprintf(stderr, "pingpong mpi %zu B: wrong data after the timed loop\n", n);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (me == 0) printf("R %s %zu %.4f\n", row, n, 1e6 * bench_median(samples, (size_t)S));
    if (me == 0 && strcmp(row, "intra") == 0)
      printf("R intra-buf %zu %.4f\n", n, 1e6 * bench_median(samples, (size_t)S));
    fflush(stdout);
    free(sb);
    free(rb);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  double us = pp_probe_us(mpi_probe, NULL, MPI_Wtime, o->quick ? 20000 : 100000);
  /* The same MPI probe is the anchor of both simple probe rows. */
  if (me == 0) printf("R probe1 0 %.5f\nR probe2 0 %.5f\n", us, us);
  fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  free(samples);
  MPI_Finalize();
  return 0;
}

/* ------------------------------------------------------------------------
 * The driver. */
static bench_row_t pp_rows[PP_MAX_ROWS];
static bench_table_t pp_table = {pp_rows, 0, PP_MAX_ROWS};

/* Runs a worker job; files its R lines under side (0 simple, 1 MPI),
 * leaving out rows whose name starts with `skip` (the MPI probe anchor is
 * taken from the intra job only). */
typedef struct {
  int side;
  const char *skip;
} pp_run_ctx_t;

static int pp_line(const char *line, void *arg) {
  const pp_run_ctx_t *c = arg;
  char row[32];
  size_t bytes;
  double us;
  if (sscanf(line, "R %31s %zu %lf", row, &bytes, &us) != 3) return 0;
  if (!c->skip || strncmp(row, c->skip, strlen(c->skip)) != 0)
    bench_row_add(bench_row(&pp_table, row, bytes), c->side, us);
  return 1;
}

/* Job j of a round: side j % 2; the MPI probe anchor comes from the intra
 * job (same host), so job 3 skips its probe rows. */
static int pp_job(int job, long round, void *cmds) {
  (void)round;
  pp_run_ctx_t c = {job % 2, job == 3 ? "probe" : NULL};
  return bench_run_worker(((const bench_cmd_t *)cmds)[job], pp_line, &c);
}

static void pp_usage(FILE *f) {
  fprintf(f,
          "usage: simple-bench pingpong [--vcluster] [--quick] [--rounds R] [--max-bytes N]"
          " [--csv FILE]\n");
}

static int pp_cmp(const void *a, const void *b) {
  const bench_row_t *x = a, *y = b;
  int c = strcmp(x->op, y->op);
  if (c) return c;
  return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

int bench_pingpong_suite(int argc, char **argv) {
  bench_suite_t b = {.rounds = 5};
  size_t max_bytes = 4u << 20;
  const bench_opt_t opts[] = {{"--max-bytes", BENCH_BYTES, &max_bytes, 0, 1l << 30, NULL},
                              {"-N", BENCH_NUM, NULL, 0, 0, NULL},
                              {"-t", BENCH_NUM, NULL, 0, 0, NULL},
                              {0}};
  int rc = bench_suite_parse(&b, argc, argv, PP_MAX_ROUNDS, opts, pp_usage);
  if (rc) return rc < 0 ? 0 : rc;
  int quick = b.quick, vcluster = b.vcluster;
  if (bench_suite_start(&b, 2)) return 1;
  FILE *out = b.out;
  char args[128];
  /* Jobs: [0] simple intra, [1] MPI intra, [2] simple inter, [3] MPI inter.
   * Inside a node (always on this host) both sides are pinned one processor
   * per core when two fit; between nodes on the virtual cluster each
   * node's cgroup places them. */
  bench_cmd_t cmd[4];
  bench_place_t here, *nodes = &b.pl;
  bench_place(&here, 0, 2);
  snprintf(args, sizeof args, "--only intra --max-bytes %zu%s", max_bytes, quick ? " --quick" : "");
  bench_worker_cmd(cmd[0], sizeof cmd[0], &here, 0, BENCH_HYBRID, 1, 2, "", "pingpong-hybrid",
                   args);
  bench_worker_cmd(cmd[1], sizeof cmd[1], &here, 0, BENCH_FLAT, 1, 2, "", "pingpong-mpi", args);
  snprintf(args, sizeof args, "--only inter --max-bytes %zu%s", max_bytes, quick ? " --quick" : "");
  bench_worker_cmd(cmd[2], sizeof cmd[2], nodes, vcluster, BENCH_HYBRID, 2, 1, "",
                   "pingpong-hybrid", args);
  bench_worker_cmd(cmd[3], sizeof cmd[3], nodes, vcluster, BENCH_FLAT, 2, 1, "", "pingpong-mpi",
                   args);
  printf(
      "simple-bench pingpong: half round trip (OSU latency), simple vs raw MPI, 2 processors;"
      " inter-node: %s; %ld round(s)\n",
      vcluster ? "virtual cluster (TCP)" : "2 local processes", b.rounds);
  fflush(stdout);
  if (bench_alternate(b.rounds, 4, pp_job, cmd) != 0) {
    bench_suite_close(&b);
    return 1;
  }
  qsort(pp_rows, (size_t)pp_table.nrows, sizeof pp_rows[0], pp_cmp);
  printf("%-10s %8s %11s %11s %9s %12s %12s\n", "row", "bytes", "simple_us", "mpi_us", "mpi/simp",
         "simple_MB/s", "mpi_MB/s");
  if (out) fprintf(out, "suite,row,bytes,simple_us,mpi_us,ratio,simple_MBps,mpi_MBps\n");
  for (int i = 0; i < pp_table.nrows; i++) {
    bench_row_t *r = &pp_rows[i];
    double h = bench_row_median(r, 0), m = bench_row_median(r, 1);
    double ratio = h > 0 ? m / h : NAN;
    int probe = strncmp(r->op, "probe", 5) == 0;
    if (strcmp(r->op, "floor") == 0) {
      /* No MPI side: the least any intra-node message can cost here. */
      printf("%-10s %8zu %11.3f %11s %9s %12s %12s\n", r->op, r->bytes, h, "-", "-", "-", "-");
      if (out) fprintf(out, "pingpong,floor,%zu,%.5f,,,,\n", r->bytes, h);
      continue;
    }
    double bh = r->bytes && h > 0 ? r->bytes / h : NAN, bm = r->bytes && m > 0 ? r->bytes / m : NAN;
    if (probe)
      printf("%-10s %8s %9.1fns %9.1fns %9.2f %12s %12s\n", r->op, "-", 1e3 * h, 1e3 * m, ratio,
             "-", "-");
    else
      printf("%-10s %8zu %11.3f %11.3f %9.2f %12.1f %12.1f\n", r->op, r->bytes, h, m, ratio, bh,
             bm);
    if (out)
      fprintf(out, "pingpong,%s,%zu,%.5f,%.5f,%.4f,%.2f,%.2f\n", r->op, r->bytes, h, m, ratio, bh,
              bm);
  }
  printf(
      "mpi/simp above 1: simple is faster. MB/s = bytes / half round trip. probe: one"
      " simple_iprobe that finds nothing (probe1: 1 node, probe2: 2 nodes) vs one MPI_Iprobe."
      " floor: a bare ping-pong on one cache line between the intra row's two threads (no"
      " library, no MPI), the least one intra-node message can cost on this machine.\n");
  bench_row_t *fl = bench_row(&pp_table, "floor", 8), *i8 = bench_row(&pp_table, "intra", 8);
  double f = fl ? bench_row_median(fl, 0) : NAN;
  if (i8 && f > 0)
    printf(
        "intra 8 B in floors: simple %.2f, MPI %.2f (simple at half of MPI's latency needs MPI"
        " at 2 floors or more)\n",
        bench_row_median(i8, 0) / f, bench_row_median(i8, 1) / f);
  return bench_suite_finish(&b);
}
