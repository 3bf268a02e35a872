/* Workers of `simple-bench coll`: every hybrid collective of simple over
 * NODES x THREADS processors, against the same MPI collective over as many
 * single-threaded MPI ranks (what a user would otherwise write).
 *
 * Both sides run the same sweep (sweep() below) through a small interface
 * (side_t): one call of a collective on the current buffers, a barrier, and
 * a MAX over every processor. The measuring scaffolding of the hybrid side
 * uses only the node library and raw MPI among node masters, never the
 * collectives under test, so a slow or broken collective cannot distort
 * the timing of another.
 *
 * Method (OSU): per collective and size, one checked call (the result is
 * compared with a closed form; a wrong result aborts the job, so it never
 * reports a time), warm-up, then samples of a batch of calls sized to last
 * ~50 us, each call between two untimed barriers as in OSU's loops (the
 * barrier itself back to back); a sample's time is the processor's mean
 * call time, maximised over all processors; the median sample is printed
 * as "R <op> <bytes> <us>" by processor 0. On one node of several
 * threads each alltoall row also gets its copy floor, "F alltoall <bytes>
 * <us>": the same blocks copied once each into their destination threads'
 * buffers, with nothing else (hybrid_copy_floor), timed the same way. */
#include <limits.h>
#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <simple.h>

#include "bench.h"

enum {
  C_BARRIER,
  C_BCAST,
  C_REDUCE,
  C_ALLREDUCE,
  C_SCAN,
  C_EXSCAN,
  C_GATHER,
  C_SCATTER,
  C_ALLGATHER,
  C_ALLTOALL,
  C_GATHERV,
  C_SCATTERV,
  C_ALLGATHERV,
  C_ALLTOALLV,
  C_COUNT
};

static const bench_coll_info_t colls[C_COUNT] = {
    {"barrier", 1, 0},    {"bcast", 1, 1},     {"reduce", 1, 1},  {"allreduce", 1, 1},
    {"scan", 1, 1},       {"exscan", 1, 1},    {"gather", 1, 1},  {"scatter", 1, 1},
    {"allgather", 1, 1},  {"alltoall", 1, 1},  {"gatherv", 0, 1}, {"scatterv", 0, 1},
    {"allgatherv", 0, 1}, {"alltoallv", 0, 1},
};

int bench_coll_list(const bench_coll_info_t **list) {
  *list = colls;
  return C_COUNT;
}

int bench_coll_selected(const char *only, const char *name) {
  size_t len = strlen(name);
  if (!only) {
    for (int c = 0; c < C_COUNT; c++)
      if (strcmp(colls[c].name, name) == 0) return colls[c].in_default;
    return 0;
  }
  for (const char *p = only; *p;) {
    const char *comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    if ((n == len && strncmp(p, name, n) == 0) || (n == 3 && strncmp(p, "all", 3) == 0)) return 1;
    if (!comma) break;
    p = comma + 1;
  }
  return 0;
}

/* Bytes per processor (per pair for alltoall). Reductions and scans work on
 * doubles (bytes / 8 of them, summed), the others move bytes. */
static const size_t sizes_full[] = {8, 64, 512, 4096, 32768, 262144, 1048576, 4194304};
static const size_t sizes_quick[] = {8, 4096, 65536};

/* ------------------------------------------------------------------------
 * One side of the comparison. */
typedef struct side side_t;
struct side {
  int rank, nprocs;
  simple_t *s; /* hybrid side only */
  int (*op)(side_t *d, int c);
  /* Hybrid side with one thread per node: MPI's own collective on the
   * job's processes, timed beside simple's (NULL: none). */
  int (*same)(side_t *d, int c);
  /* Hybrid side on one node of several threads: the alltoall's copy floor
   * (hybrid_copy_floor; NULL: none), and the threads' recv buffers it
   * writes into. */
  int (*floor)(side_t *d, int c);
  unsigned char **peer_b;
  void (*sync)(side_t *d);
  void (*max)(side_t *d, double *v, int n);
  double (*now)(void);
  void (*fail)(side_t *d, const char *msg); /* never returns */
  const char *(*errstr)(int rc);            /* the name of an error code */
  /* Buffers of the current collective and size. */
  size_t bytes;            /* per processor (per pair for alltoall) */
  unsigned char *a;        /* send (bcast: the buffer) */
  unsigned char *b;        /* recv */
  size_t *counts, *displs; /* v-variants, hybrid, p entries */
  int *icounts, *idispls;  /* v-variants, MPI, p entries */
};

static unsigned char elt(int p, size_t i) {
  return (unsigned char)((unsigned)p * 37u + (unsigned)i * 11u + 5u);
}
static unsigned char elt2(int from, int to, size_t i) {
  return (unsigned char)((unsigned)from * 31u + (unsigned)to * 17u + (unsigned)i * 3u + 1u);
}

static int is_reduction(int c) {
  return c == C_REDUCE || c == C_ALLREDUCE || c == C_SCAN || c == C_EXSCAN;
}

/* Sizes of the send and receive buffers of processor `rank`. */
static void buffer_sizes(int c, int rank, int p, size_t n, size_t *sa, size_t *sb) {
  size_t pn = (size_t)p * n;
  *sa = *sb = 0;
  switch (c) {
    case C_BARRIER: break;
    case C_BCAST: *sa = n; break;
    case C_REDUCE:
    case C_ALLREDUCE:
    case C_SCAN:
    case C_EXSCAN: *sa = *sb = n; break;
    case C_GATHER:
    case C_GATHERV:
      *sa = n;
      *sb = rank == 0 ? pn : 0;
      break;
    case C_SCATTER:
    case C_SCATTERV:
      *sa = rank == 0 ? pn : 0;
      *sb = n;
      break;
    case C_ALLGATHER:
    case C_ALLGATHERV:
      *sa = n;
      *sb = pn;
      break;
    case C_ALLTOALL:
    case C_ALLTOALLV: *sa = *sb = pn; break;
  }
}

/* Buffers never touched on this processor still get a valid address. */
#define BENCH_SPARE 64

static void setup(side_t *d, int c, size_t n) {
  int p = d->nprocs, r = d->rank;
  size_t sa, sb;
  buffer_sizes(c, r, p, n, &sa, &sb);
  d->bytes = n;
  d->a = malloc(sa + BENCH_SPARE);
  d->b = malloc(sb + BENCH_SPARE);
  d->counts = malloc(sizeof(size_t) * (size_t)p);
  d->displs = malloc(sizeof(size_t) * (size_t)p);
  d->icounts = malloc(sizeof(int) * (size_t)p);
  d->idispls = malloc(sizeof(int) * (size_t)p);
  if (!d->a || !d->b || !d->counts || !d->displs || !d->icounts || !d->idispls)
    d->fail(d, "out of memory for the buffers");
  for (int q = 0; q < p; q++) {
    d->counts[q] = n;
    d->displs[q] = (size_t)q * n;
    d->icounts[q] = (int)n;
    d->idispls[q] = (int)((size_t)q * n);
  }
  memset(d->b, 0xEE, sb + BENCH_SPARE);
  if (is_reduction(c)) {
    double *v = (double *)d->a, *w = (double *)d->b;
    for (size_t i = 0; i < n / sizeof(double); i++) {
      v[i] = (double)(r + (int)(i % 7));
      w[i] = -1.0;
    }
  } else if (c == C_BCAST) {
    for (size_t i = 0; i < n; i++) d->a[i] = r == 0 ? elt(0, i) : 0xEE;
  } else if (c == C_SCATTER || c == C_SCATTERV) {
    for (int q = 0; q < p && r == 0; q++)
      for (size_t i = 0; i < n; i++) d->a[(size_t)q * n + i] = elt(q, i);
  } else if (c == C_ALLTOALL || c == C_ALLTOALLV) {
    for (int q = 0; q < p; q++)
      for (size_t i = 0; i < n; i++) d->a[(size_t)q * n + i] = elt2(r, q, i);
  } else {
    for (size_t i = 0; i < sa; i++) d->a[i] = elt(r, i);
  }
}

static void teardown(side_t *d) {
  free(d->a);
  free(d->b);
  free(d->counts);
  free(d->displs);
  free(d->icounts);
  free(d->idispls);
  d->a = d->b = NULL;
}

/* Compares this processor's result of the first call with the closed form;
 * on a mismatch fails the job with the first wrong element. */
static void check(side_t *d, int c) {
  int p = d->nprocs, r = d->rank;
  size_t n = d->bytes;
  char msg[256];
  if (is_reduction(c)) {
    const double *w = (const double *)d->b;
    if ((c == C_REDUCE && r != 0) || (c == C_EXSCAN && r == 0)) return;
    for (size_t i = 0; i < n / sizeof(double); i++) {
      double k = (double)(i % 7), want;
      if (c == C_SCAN)
        want = (double)r * (r + 1) / 2 + (r + 1) * k;
      else if (c == C_EXSCAN)
        want = (double)r * (r - 1) / 2 + r * k;
      else
        want = (double)p * (p - 1) / 2 + p * k;
      if (w[i] != want) {
        snprintf(msg, sizeof msg,
                 "%s of %zu B: wrong result on processor %d, element %zu: %g, expected %g",
                 colls[c].name, n, r, i, w[i], want);
        d->fail(d, msg);
      }
    }
    return;
  }
  const unsigned char *got = c == C_BCAST ? d->a : d->b;
  size_t total = 0;
  switch (c) {
    case C_BARRIER: return;
    case C_BCAST: total = n; break;
    case C_GATHER:
    case C_GATHERV: total = r == 0 ? (size_t)p * n : 0; break;
    case C_SCATTER:
    case C_SCATTERV: total = n; break;
    default: total = (size_t)p * n; break; /* allgather(v), alltoall(v) */
  }
  for (size_t j = 0; j < total; j++) {
    size_t q = n ? j / n : 0, i = n ? j % n : 0;
    unsigned char want;
    if (c == C_BCAST)
      want = elt(0, i);
    else if (c == C_SCATTER || c == C_SCATTERV)
      want = elt(r, i);
    else if (c == C_ALLTOALL || c == C_ALLTOALLV)
      want = elt2((int)q, r, i);
    else
      want = elt((int)q, i);
    if (got[j] != want) {
      snprintf(msg, sizeof msg,
               "%s of %zu B: wrong result on processor %d, block %zu byte %zu: %u, expected %u",
               colls[c].name, n, r, q, i, got[j], want);
      d->fail(d, msg);
    }
  }
}

static int nsamples(const bench_opts_t *o) {
  return o->quick ? BENCH_SAMPLES_QUICK : BENCH_SAMPLES;
}

/* Average seconds per call of collective c over `iters` calls on this
 * processor, or -1 if a call failed. With `sep`, the calls are separated by
 * an untimed barrier (OSU's latency loop): a collective whose root or
 * leaves need not wait (bcast, reduce, scan, gather, scatter) is then
 * timed per call, not at the rate of a pipeline of back-to-back calls. */
static double timed(side_t *d, int (*op)(side_t *, int), int c, int iters, int sep) {
  double acc = 0;
  if (!sep) {
    double t0 = d->now();
    for (int i = 0; i < iters; i++)
      if (op(d, c) != 0) return -1;
    acc = d->now() - t0;
  } else {
    for (int i = 0; i < iters; i++) {
      d->sync(d);
      double t0 = d->now();
      if (op(d, c) != 0) return -1;
      acc += d->now() - t0;
    }
  }
  return acc / iters;
}

/* Times collective c on the buffers set up, returns the median sample in
 * seconds (the same value on every processor), or -1 on an error. With
 * d->same, MPI's own collective is timed too, its samples alternating
 * with simple's, so that both meet the machine in the same state (on the
 * virtual cluster a job's small messages take ~7 us or ~10 us, a mode
 * that holds for the whole job): *same gets its median, *ratio the median
 * of the samples' ratios (MPI's time over simple's). samples has room for
 * 3 S values. */
static double measure(side_t *d, int c, int S, double *samples, double *same, double *ratio) {
  /* The barrier is timed back to back: separating barriers by barriers
   * would measure nothing else. */
  int sep = c != C_BARRIER;
  /* Warm-up: enough calls to reach a steady state, but at most ~50 ms. */
  double t[1];
  d->sync(d);
  if ((t[0] = timed(d, d->op, c, 2, sep)) < 0) return -1;
  d->max(d, t, 1);
  int warm = t[0] > 0 ? (int)(0.05 / t[0]) : BENCH_WARMUP;
  if (warm > BENCH_WARMUP) warm = BENCH_WARMUP;
  if (warm < 2) warm = 2;
  if ((t[0] = timed(d, d->op, c, warm, sep)) < 0) return -1;
  d->max(d, t, 1);
  int batch = bench_batch(t[0], BENCH_SAMPLE_SECONDS);
  if (d->same && timed(d, d->same, c, warm, sep) < 0) return -1;

  double *mine = samples, *theirs = samples + S, *ratios = samples + 2 * S;
  d->sync(d);
  for (int j = 0; j < S; j++) {
    if ((mine[j] = timed(d, d->op, c, batch, sep)) < 0) return -1;
    if (d->same && (theirs[j] = timed(d, d->same, c, batch, sep)) < 0) return -1;
  }
  /* OSU: a sample is as slow as its slowest processor. */
  d->max(d, mine, S);
  if (d->same) {
    d->max(d, theirs, S);
    for (int j = 0; j < S; j++) ratios[j] = mine[j] > 0 ? theirs[j] / mine[j] : 0;
    *same = bench_median(theirs, (size_t)S);
    *ratio = bench_median(ratios, (size_t)S);
  }
  return bench_median(mine, (size_t)S);
}

/* The copy floor of collective c (alltoall) on the buffers set up: d->floor
 * timed as measure times a collective, the threads' recv buffers shared
 * for it through a node table, cleared first and checked after (the
 * floor copies what the collective delivers). */
static double copy_floor(side_t *d, int c, int S, double *samples) {
  simple_t *s = d->s;
  unsigned char **table = NULL;
  if (simple_thread(s) == 0 && !(table = malloc(sizeof *table * (size_t)simple_threads(s))))
    d->fail(d, "out of memory for the copy floor's table");
  if (simple_node_share(s, (void **)&table, 0) != 0) d->fail(d, "simple_node_share failed");
  table[simple_thread(s)] = d->b;
  memset(d->b, 0xEE, (size_t)d->nprocs * d->bytes);
  simple_node_barrier(s);
  int (*op)(side_t *, int) = d->op, (*same)(side_t *, int) = d->same;
  d->op = d->floor;
  d->same = NULL;
  d->peer_b = table;
  double unused = 0, f = measure(d, c, S, samples, &unused, &unused);
  d->op = op;
  d->same = same;
  d->peer_b = NULL;
  simple_node_barrier(s); /* nobody copies through the table any more */
  if (simple_thread(s) == 0) free(table);
  if (f < 0) d->fail(d, "the copy floor failed");
  check(d, c);
  return f;
}

static void sweep(side_t *d, const bench_opts_t *o) {
  int S = nsamples(o);
  double *samples = malloc(sizeof(double) * 3 * (size_t)S);
  const size_t *sizes = o->quick ? sizes_quick : sizes_full;
  size_t nsizes =
      o->quick ? sizeof sizes_quick / sizeof *sizes_quick : sizeof sizes_full / sizeof *sizes_full;
  for (int c = 0; c < C_COUNT; c++) {
    if (!bench_coll_selected(o->only, colls[c].name)) continue;
    for (size_t k = 0; k < (colls[c].sized ? nsizes : 1); k++) {
      size_t n = colls[c].sized ? sizes[k] : 0;
      if (n > o->max_bytes) break;
      /* MPI counts and displacements are ints. */
      if ((size_t)d->nprocs * n > (size_t)INT_MAX) {
        if (d->rank == 0)
          printf("N %s %zu B skipped: %d x %zu B overflows an MPI count\n", colls[c].name, n,
                 d->nprocs, n);
        break;
      }
      setup(d, c, n);
      d->sync(d);
      int rc = d->op(d, c);
      if (rc != 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s of %zu B returned error %d (%s)", colls[c].name, n, rc,
                 d->errstr(rc));
        d->fail(d, msg);
      }
      check(d, c);
      double same = 0, ratio = 0, med = measure(d, c, S, samples, &same, &ratio);
      if (med < 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s of %zu B returned an error while timed", colls[c].name, n);
        d->fail(d, msg);
      }
      if (d->rank == 0) printf("R %s %zu %.4f\n", colls[c].name, n, 1e6 * med);
      if (d->rank == 0 && d->same)
        printf("S %s %zu %.4f %.4f\n", colls[c].name, n, 1e6 * same, ratio);
      if (c == C_ALLTOALL && d->floor) {
        double f = copy_floor(d, c, S, samples);
        if (d->rank == 0) printf("F %s %zu %.4f\n", colls[c].name, n, 1e6 * f);
      }
      fflush(stdout);
      teardown(d);
    }
  }
  free(samples);
}

/* ------------------------------------------------------------------------
 * Hybrid side: NODES processes x THREADS threads, simple's collectives. */

static int hybrid_op(side_t *d, int c) {
  simple_t *s = d->s;
  size_t n = d->bytes, nd = n / sizeof(double);
  switch (c) {
    case C_BARRIER: return simple_barrier(s);
    case C_BCAST: return simple_bcast(s, d->a, n, SIMPLE_BYTE, 0);
    case C_REDUCE: return simple_reduce(s, d->a, d->b, nd, SIMPLE_DOUBLE, SIMPLE_SUM, 0);
    case C_ALLREDUCE: return simple_allreduce(s, d->a, d->b, nd, SIMPLE_DOUBLE, SIMPLE_SUM);
    case C_SCAN: return simple_scan(s, d->a, d->b, nd, SIMPLE_DOUBLE, SIMPLE_SUM);
    case C_EXSCAN: return simple_exscan(s, d->a, d->b, nd, SIMPLE_DOUBLE, SIMPLE_SUM);
    case C_GATHER: return simple_gather(s, d->a, d->b, n, SIMPLE_BYTE, 0);
    case C_SCATTER: return simple_scatter(s, d->a, d->b, n, SIMPLE_BYTE, 0);
    case C_ALLGATHER: return simple_allgather(s, d->a, d->b, n, SIMPLE_BYTE);
    case C_ALLTOALL: return simple_alltoall(s, d->a, d->b, n, SIMPLE_BYTE);
    case C_GATHERV: return simple_gatherv(s, d->a, n, d->b, d->counts, d->displs, SIMPLE_BYTE, 0);
    case C_SCATTERV: return simple_scatterv(s, d->a, d->counts, d->displs, d->b, n, SIMPLE_BYTE, 0);
    case C_ALLGATHERV:
      return simple_allgatherv(s, d->a, n, d->b, d->counts, d->displs, SIMPLE_BYTE);
    case C_ALLTOALLV:
      return simple_alltoallv(s, d->a, d->counts, d->displs, d->b, d->counts, d->displs,
                              SIMPLE_BYTE);
  }
  return SIMPLE_ERR_ARG;
}

/* Node barrier, node masters in MPI_Barrier, then two node barriers:
 * every thread of the job leaves after every thread has arrived. Threads
 * that went to sleep while their master was in MPI_Barrier wake up in the
 * first of the two (a futex wake-up, microseconds); the second releases
 * them all while they run, so that the wake-up does not enter the time of
 * the collective that follows. */
static void hybrid_sync(side_t *d) {
  simple_t *s = d->s;
  if (simple_nodes(s) > 1) {
    simple_node_barrier(s);
    if (simple_thread(s) == 0) MPI_Barrier(MPI_COMM_WORLD);
  }
  simple_node_barrier(s);
  simple_node_barrier(s);
}

/* MAX over every thread of the job: among the node's threads in shared
 * memory, among nodes by their masters, back to every thread. */
static void hybrid_max(side_t *d, double *v, int n) {
  simple_t *s = d->s;
  int rc = simple_node_allreduce(s, SIMPLE_IN_PLACE, v, (size_t)n, SIMPLE_DOUBLE, SIMPLE_MAX);
  if (rc != 0)
    simple_abort(s, "simple-bench: simple_node_allreduce failed: %s", simple_errname(rc));
  if (simple_nodes(s) > 1) {
    if (simple_thread(s) == 0)
      MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    simple_node_bcast(s, v, (size_t)n, SIMPLE_DOUBLE, 0);
  }
}

static void hybrid_fail(side_t *d, const char *msg) {
  /* One thread per process reports and aborts; the others wait for the
   * abort to end the process (the report of the first is enough). */
  static atomic_flag failing = ATOMIC_FLAG_INIT;
  if (atomic_flag_test_and_set(&failing))
    for (;;) pause();
  simple_abort(d->s, "simple-bench coll: %s", msg);
}

/* The alltoall's floor on one node: what any implementation must do at
 * least, each of the r blocks of every thread copied once into its
 * destination thread's buffer (at the sender's place in it), in shared
 * memory, with no synchronization, no checks and no library call; each
 * thread starts with its right-hand neighbour, so that the threads do not
 * all write into one buffer at once. With the suite's method (the
 * slowest thread's time), simple's alltoall over this floor is what the
 * library adds to the copies, and MPI's over this floor bounds the ratio
 * anchor/simple that any implementation could reach here. */
static int hybrid_copy_floor(side_t *d, int c) {
  (void)c;
  int me = simple_thread(d->s), r = simple_threads(d->s);
  size_t n = d->bytes;
  for (int k = 1; k <= r; k++) {
    int j = (me + k) % r;
    memcpy(d->peer_b[j] + (size_t)me * n, d->a + (size_t)j * n, n);
  }
  return 0;
}

static int mpi_op(side_t *d, int c);

/* Whether MPI's own collectives on MPI_COMM_WORLD run on exactly this
 * job's processors (several nodes of one thread each, the world ranks in
 * the job's order), so that they can be timed beside simple's. */
static int paired(simple_t *s) {
  int P = simple_nodes(s);
  if (P < 2 || simple_nprocs(s) != P) return 0;
  int rank, size, off;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  off = rank != simple_pid(s) || size != P;
  MPI_Allreduce(MPI_IN_PLACE, &off, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return !off;
}

static void hybrid_main(simple_t *s, void *arg) {
  const bench_opts_t *o = arg;
  side_t d = {.rank = simple_pid(s),
              .nprocs = simple_nprocs(s),
              .s = s,
              .op = hybrid_op,
              .same = paired(s) ? mpi_op : NULL,
              .floor = simple_nodes(s) == 1 && simple_threads(s) > 1 ? hybrid_copy_floor : NULL,
              .sync = hybrid_sync,
              .max = hybrid_max,
              .now = simple_time,
              .fail = hybrid_fail,
              .errstr = simple_errname};
  if (d.rank == 0) {
    printf("I layout %d nodes x %d threads\n", simple_nodes(s), simple_threads(s));
    fflush(stdout);
  }
  sweep(&d, o);
}

int bench_coll_hybrid(int argc, char **argv, const bench_opts_t *o) {
  return simple_run(&argc, &argv, hybrid_main, (void *)o);
}

/* ------------------------------------------------------------------------
 * Flat side: NODES x THREADS single-threaded MPI ranks, MPI's collectives. */

static int mpi_op(side_t *d, int c) {
  size_t n = d->bytes;
  int in = (int)n, id = (int)(n / sizeof(double));
  MPI_Comm w = MPI_COMM_WORLD;
  switch (c) {
    case C_BARRIER: return MPI_Barrier(w);
    case C_BCAST: return MPI_Bcast(d->a, in, MPI_BYTE, 0, w);
    case C_REDUCE: return MPI_Reduce(d->a, d->b, id, MPI_DOUBLE, MPI_SUM, 0, w);
    case C_ALLREDUCE: return MPI_Allreduce(d->a, d->b, id, MPI_DOUBLE, MPI_SUM, w);
    case C_SCAN: return MPI_Scan(d->a, d->b, id, MPI_DOUBLE, MPI_SUM, w);
    case C_EXSCAN: return MPI_Exscan(d->a, d->b, id, MPI_DOUBLE, MPI_SUM, w);
    case C_GATHER: return MPI_Gather(d->a, in, MPI_BYTE, d->b, in, MPI_BYTE, 0, w);
    case C_SCATTER: return MPI_Scatter(d->a, in, MPI_BYTE, d->b, in, MPI_BYTE, 0, w);
    case C_ALLGATHER: return MPI_Allgather(d->a, in, MPI_BYTE, d->b, in, MPI_BYTE, w);
    case C_ALLTOALL: return MPI_Alltoall(d->a, in, MPI_BYTE, d->b, in, MPI_BYTE, w);
    case C_GATHERV:
      return MPI_Gatherv(d->a, in, MPI_BYTE, d->b, d->icounts, d->idispls, MPI_BYTE, 0, w);
    case C_SCATTERV:
      return MPI_Scatterv(d->a, d->icounts, d->idispls, MPI_BYTE, d->b, in, MPI_BYTE, 0, w);
    case C_ALLGATHERV:
      return MPI_Allgatherv(d->a, in, MPI_BYTE, d->b, d->icounts, d->idispls, MPI_BYTE, w);
    case C_ALLTOALLV:
      return MPI_Alltoallv(d->a, d->icounts, d->idispls, MPI_BYTE, d->b, d->icounts, d->idispls,
                           MPI_BYTE, w);
  }
  return MPI_ERR_ARG;
}

static void mpi_sync(side_t *d) {
  (void)d;
  MPI_Barrier(MPI_COMM_WORLD);
}

static void mpi_max(side_t *d, double *v, int n) {
  (void)d;
  MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

static const char *mpi_errstr(int rc) {
  static char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) return "unknown MPI error";
  return text;
}

static void mpi_fail(side_t *d, const char *msg) {
  fprintf(stderr, "simple-bench coll: MPI rank %d: %s\n", d->rank, msg);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  exit(3);
}

/* The value of an integer MCA parameter as the MPI library sees it, through
 * the MPI tool interface (Open MPI exposes MCA parameters as control
 * variables); -1 when it cannot be read. */
static int mpi_cvar_int(const char *name) {
  int provided, idx, count, value = -1;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return -1;
#if MPI_VERSION > 3 || (MPI_VERSION == 3 && MPI_SUBVERSION >= 1)
  MPI_T_cvar_handle h;
  if (MPI_T_cvar_get_index(name, &idx) == MPI_SUCCESS &&
      MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) == MPI_SUCCESS) {
    if (count != 1 || MPI_T_cvar_read(h, &value) != MPI_SUCCESS) value = -1;
    MPI_T_cvar_handle_free(&h);
  }
#else
  (void)idx;
  (void)count;
#endif
  MPI_T_finalize();
  return value;
}

/* Prints "I han_covers OP..." with the collectives Open MPI's HAN has an
 * algorithm of its own for: those with the control variable
 * coll_han_OP_dynamic_global_communicator_module (HAN's choice among its
 * algorithms on a whole communicator; Open MPI 4.1 has none for scan,
 * exscan, alltoall, gatherv, scatterv and alltoallv, which HAN leaves to
 * the default component). Nothing when the tool interface cannot say. */
static void print_han_covers(void) {
#if MPI_VERSION > 3 || (MPI_VERSION == 3 && MPI_SUBVERSION >= 1)
  int provided, idx;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return;
  printf("I han_covers");
  for (int c = 0; c < C_COUNT; c++) {
    char name[96];
    snprintf(name, sizeof name, "coll_han_%s_dynamic_global_communicator_module", colls[c].name);
    if (MPI_T_cvar_get_index(name, &idx) == MPI_SUCCESS) printf(" %s", colls[c].name);
  }
  printf("\n");
  MPI_T_finalize();
#endif
}

int bench_coll_mpi(int argc, char **argv, const bench_opts_t *o) {
  /* Open MPI reads MCA parameters from the environment at MPI_Init; setting
   * it here as well as in the launch environment makes sure it reaches
   * every rank whatever the launcher forwards. MPICH ignores it. */
  if (o->han) setenv("OMPI_MCA_coll_han_priority", "100", 0);
  MPI_Init(&argc, &argv);
  side_t d = {.op = mpi_op,
              .sync = mpi_sync,
              .max = mpi_max,
              .now = MPI_Wtime,
              .fail = mpi_fail,
              .errstr = mpi_errstr};
  MPI_Comm_rank(MPI_COMM_WORLD, &d.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &d.nprocs);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  /* Hosts the ranks are on: Open MPI's HAN disqualifies itself on a
   * communicator whose processes all share one host. */
  MPI_Comm local;
  int lrank = 0, hosts = 1;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) ==
      MPI_SUCCESS) {
    MPI_Comm_rank(local, &lrank);
    MPI_Comm_free(&local);
    int leader = lrank == 0;
    MPI_Allreduce(&leader, &hosts, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  }
  if (d.rank == 0) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    bench_mpi_library(lib, sizeof lib);
    printf("I library %s\n", lib);
    printf("I layout %d ranks\n", d.nprocs);
    printf("I hosts %d\n", hosts);
    if (o->han) printf("I coll_han_priority %d\n", mpi_cvar_int("coll_han_priority"));
    if (o->han) print_han_covers();
    fflush(stdout);
  }
  sweep(&d, o);
  MPI_Finalize();
  return 0;
}
