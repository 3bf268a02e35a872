/* simple-bench as (alias: bsp): paper 004's As suite and the BSP parameters
 * g and L, hybrid and flat MPI side by side, in one invocation.
 *
 * Sides (one h-relation done seven ways):
 *   hybrid-put-twosided  simple_rma_put + simple_rma_sync, SIMPLE_RMA=twosided
 *   hybrid-put-onesided  the same with SIMPLE_RMA=onesided (MPI windows)
 *   hybrid-get-twosided  simple_rma_get (the receiver fetches), both backends
 *   hybrid-get-onesided
 *   hybrid-send          simple_irecv/simple_isend/simple_waitall + simple_barrier
 *   mpi-put              flat MPI, one rank per thread: MPI_Put + MPI_Win_fence
 *   mpi-send             flat MPI: MPI_Irecv/MPI_Isend/MPI_Waitall + MPI_Barrier
 *
 * Tests, each a superstep (communication, then the side's synchronization):
 *   empty    (Test 1) the synchronization alone
 *   comp     (Test 2) one floating-point operation, then the synchronization
 *   full     (Test 3) total exchange of p words: one to every processor
 *   simple   (Test 4) processor 0 sends one word to processor p-1
 *   scatter  (Test 5) processor 0 sends one word to each of the others
 *   sweep    the As suite's total exchange: h words per processor, h/p to
 *            every processor (itself included), h = p, 2p, 4p, ... up to
 *            --max-h (default 2^20, --quick 2^14); fit t = L + g h
 *   intra, inter, whole  the classic BSP probe: h single words per
 *            processor (h = 0..256 in steps of --probe-step, default 2, --quick
 *            8), word j to the (1 + j mod (m-1))-th next
 *            of the m processors of the level (own node; the same thread of
 *            the other nodes; the whole job), so every processor also
 *            receives h words; fit over h >= p
 * Words are 8 bytes (doubles). Every (side, test, h) runs one checked
 * superstep first (a wrong word aborts the job with the word, its source
 * and h), then samples of a batch of supersteps (about 1 ms, at most 50);
 * a sample is the slowest processor's mean superstep time; the median is
 * printed as "R <side> <test> <h> <us>".
 *
 * Driver: three jobs per round (hybrid twosided with the send side, hybrid
 * onesided, flat MPI), in bench_alternate's order; the median over rounds per
 * row; weighted least squares (relative error) for g and L; the DAXPY rate
 * r turns them into flops. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <simple.h>

#include "bench.h"

#define AS_MAX_H      (1L << 24)
#define AS_PROBE_H    256
#define AS_MAX_ROUNDS BENCH_ROUNDS

enum { K_PUT, K_GET, K_SEND, K_MPUT, K_MSEND };
enum { T_EMPTY, T_COMP, T_FULL, T_SIMPLE, T_SCATTER, T_SWEEP, T_INTRA, T_INTER, T_WHOLE, T_N };
static const char *as_test_name[T_N] = {"empty", "comp",  "full",  "simple", "scatter",
                                        "sweep", "intra", "inter", "whole"};

/* Word i of processor pid's source buffer: positive, exact in a double. */
static double as_val(int pid, long i) { return (double)pid * 4294967296.0 + (double)i + 1.0; }

static int as_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static long as_opt(int argc, char **argv, const char *name, long def, long lo, long hi) {
  long v = def;
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], name) == 0) v = atol(argv[i + 1]);
  return v < lo ? lo : v > hi ? hi : v;
}

static int as_flag(int argc, char **argv, const char *name) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], name) == 0) return 1;
  return 0;
}

/* ------------------------------------------------------------------------
 * Worker: one side's supersteps, hybrid or flat MPI. */

/* One transfer of w words: for a send entry, `mine` is the offset in my
 * source buffer and `theirs` the offset in the peer's area; for a receive
 * entry, `mine` is the offset in my area, `theirs` in the peer's source. */
typedef struct {
  int peer;
  long mine, theirs;
} as_ent_t;

typedef struct {
  int kind, p, me, T, N; /* T: threads (ranks) per node, 0 if not uniform */
  int quick, step;       /* probe h step */
  long hmax;
  double *src, *area;
  size_t words;
  as_ent_t *snd, *rcv;
  int ns, nr, comp;
  long w;
  simple_t *s;
  MPI_Win win;
  MPI_Request *mreq;
  MPI_Status *mst; /* MPI_Waitall's statuses (MPICH's headers warn on MPI_STATUSES_IGNORE) */
  simple_request_t *sreq;
  char side[48];
} as_w_t;

static void as_die(as_w_t *x, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (x->s) simple_abort(x->s, "simple-bench as: %s: %s", x->side, msg);
  fprintf(stderr, "simple-bench as: %s: MPI rank %d: %s\n", x->side, x->me, msg);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  exit(3);
}

static void as_check(as_w_t *x, int rc, const char *what) {
  if (!rc) return;
  if (x->s) as_die(x, "%s: %s (%s)", what, simple_errname(rc), simple_rma_error(x->s));
  as_die(x, "%s failed (MPI error %d)", what, rc);
}

static double as_now(as_w_t *x) { return x->s ? simple_time() : MPI_Wtime(); }

static double as_allmax(as_w_t *x, double v) {
  double m = v;
  if (x->s)
    as_check(x, simple_allreduce(x->s, &v, &m, 1, SIMPLE_DOUBLE, SIMPLE_MAX), "allreduce");
  else
    as_check(x, MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return m;
}

static void as_barrier(as_w_t *x) {
  if (x->s)
    as_check(x, simple_barrier(x->s), "barrier");
  else
    as_check(x, MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

/* Test 2's elementary computational operation. */
static volatile double as_cell = 1.0;
static void as_comp_op(void) { as_cell = as_cell * 1.0000001 + 1e-9; }

/* The level's destination and source of probe word j. */
static void as_probe_peer(const as_w_t *x, int test, long j, int *dst, int *src) {
  int p = x->p, me = x->me, T = x->T;
  if (test == T_WHOLE) {
    int k = 1 + (int)(j % (p - 1));
    *dst = (me + k) % p, *src = (me - k + p) % p;
  } else if (test == T_INTRA) {
    int node = me / T, t = me % T, k = 1 + (int)(j % (T - 1));
    *dst = node * T + (t + k) % T, *src = node * T + (t - k + T) % T;
  } else {
    int N = x->N, node = me / T, t = me % T, k = 1 + (int)(j % (N - 1));
    *dst = ((node + k) % N) * T + t, *src = ((node - k + N) % N) * T + t;
  }
}

static int as_applies(const as_w_t *x, int test) {
  if (test == T_WHOLE) return x->p > 1;
  if (test == T_INTRA) return x->T > 1;
  if (test == T_INTER) return x->T > 0 && x->N > 1;
  return 1;
}

static void as_pattern(as_w_t *x, int test, long h) {
  int p = x->p, me = x->me;
  x->ns = x->nr = 0, x->w = 1, x->comp = test == T_COMP;
#define SND(q, a, b) (x->snd[x->ns++] = (as_ent_t){(q), (a), (b)})
#define RCV(q, a, b) (x->rcv[x->nr++] = (as_ent_t){(q), (a), (b)})
  switch (test) {
    case T_FULL:
    case T_SWEEP: {
      long w = test == T_FULL ? 1 : h / p;
      x->w = w;
      for (int k = 0; k < p && w > 0; k++) {
        int q = (me + k) % p; /* everyone starts with another target */
        SND(q, q * w, me * w);
        RCV(q, q * w, me * w);
      }
      break;
    }
    case T_SIMPLE:
      if (me == 0) SND(p - 1, 0, 0);
      if (me == p - 1) RCV(0, 0, 0);
      break;
    case T_SCATTER:
      for (int q = 1; me == 0 && q < p; q++) SND(q, q, 0);
      if (me > 0) RCV(0, 0, me);
      break;
    case T_INTRA:
    case T_INTER:
    case T_WHOLE:
      for (long j = 0; j < h; j++) {
        int d, sc;
        as_probe_peer(x, test, j, &d, &sc);
        SND(d, j, j);
        RCV(sc, j, j);
      }
      break;
    default: break;
  }
#undef SND
#undef RCV
}

static void as_step(as_w_t *x) {
  size_t wb = (size_t)x->w * sizeof(double);
  int w = (int)x->w, n = 0;
  simple_t *s = x->s;
  switch (x->kind) {
    case K_PUT:
      for (int i = 0; i < x->ns; i++) {
        const as_ent_t *e = &x->snd[i];
        as_check(x,
                 simple_rma_put(s, e->peer, x->src + e->mine, x->area, (size_t)e->theirs * 8, wb),
                 "simple_rma_put");
      }
      if (x->comp) as_comp_op();
      as_check(x, simple_rma_sync(s), "simple_rma_sync");
      break;
    case K_GET:
      for (int i = 0; i < x->nr; i++) {
        const as_ent_t *e = &x->rcv[i];
        as_check(x,
                 simple_rma_get(s, e->peer, x->src, (size_t)e->theirs * 8, x->area + e->mine, wb),
                 "simple_rma_get");
      }
      if (x->comp) as_comp_op();
      as_check(x, simple_rma_sync(s), "simple_rma_sync");
      break;
    case K_SEND:
      for (int i = 0; i < x->nr; i++)
        as_check(x,
                 simple_irecv(s, x->area + x->rcv[i].mine, (size_t)w, SIMPLE_DOUBLE, x->rcv[i].peer,
                              0, &x->sreq[n++]),
                 "simple_irecv");
      for (int i = 0; i < x->ns; i++)
        as_check(x,
                 simple_isend(s, x->src + x->snd[i].mine, (size_t)w, SIMPLE_DOUBLE, x->snd[i].peer,
                              0, &x->sreq[n++]),
                 "simple_isend");
      as_check(x, simple_waitall(s, n, x->sreq, NULL), "simple_waitall");
      if (x->comp) as_comp_op();
      as_check(x, simple_barrier(s), "simple_barrier");
      break;
    case K_MPUT:
      for (int i = 0; i < x->ns; i++) {
        const as_ent_t *e = &x->snd[i];
        as_check(x,
                 MPI_Put(x->src + e->mine, w, MPI_DOUBLE, e->peer, (MPI_Aint)e->theirs, w,
                         MPI_DOUBLE, x->win),
                 "MPI_Put");
      }
      if (x->comp) as_comp_op();
      as_check(x, MPI_Win_fence(0, x->win), "MPI_Win_fence");
      break;
    default:
      for (int i = 0; i < x->nr; i++)
        as_check(x,
                 MPI_Irecv(x->area + x->rcv[i].mine, w, MPI_DOUBLE, x->rcv[i].peer, 0,
                           MPI_COMM_WORLD, &x->mreq[n++]),
                 "MPI_Irecv");
      for (int i = 0; i < x->ns; i++)
        as_check(x,
                 MPI_Isend(x->src + x->snd[i].mine, w, MPI_DOUBLE, x->snd[i].peer, 0,
                           MPI_COMM_WORLD, &x->mreq[n++]),
                 "MPI_Isend");
      as_check(x, MPI_Waitall(n, x->mreq, x->mst), "MPI_Waitall");
      if (x->comp) as_comp_op();
      as_check(x, MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
      break;
  }
}

/* One checked superstep, then the median over samples of the slowest
 * processor's mean superstep time, in us. */
static double as_measure(as_w_t *x, int test, long h) {
  for (int i = 0; i < x->nr; i++)
    for (long k = 0; k < x->w; k++) x->area[x->rcv[i].mine + k] = -1.0;
  as_barrier(x); /* nobody writes into an area that is being cleared */
  as_step(x);
  for (int i = 0; i < x->nr; i++) {
    const as_ent_t *e = &x->rcv[i];
    for (long k = 0; k < x->w; k++) {
      double got = x->area[e->mine + k], want = as_val(e->peer, e->theirs + k);
      if (got != want)
        as_die(x,
               "test %s, h = %ld: wrong word %ld of the block from processor %d (got %.17g,"
               " expected %.17g)",
               as_test_name[test], h, k, e->peer, got, want);
    }
  }
  double t0 = as_now(x);
  as_step(x);
  double t1 = as_allmax(x, as_now(x) - t0);
  double target = 1e-3;
  int B = t1 > 0 ? (int)(target / t1) : 50;
  B = B < 1 ? 1 : B > 50 ? 50 : B;
  int S = x->quick ? 5 : 11;
  double v[11];
  for (int j = 0; j < S; j++) {
    t0 = as_now(x);
    for (int b = 0; b < B; b++) as_step(x);
    v[j] = (as_now(x) - t0) / B;
  }
  for (int j = 0; j < S; j++) v[j] = as_allmax(x, v[j]);
  qsort(v, (size_t)S, sizeof *v, as_cmp);
  return 1e6 * v[S / 2];
}

static void as_report(as_w_t *x, int test, long h, double us) {
  if (x->me != 0) return;
  printf("R %s %s %ld %.4f\n", x->side, as_test_name[test], h, us);
  fflush(stdout);
}

/* Every test of one side. */
static void as_side(as_w_t *x) {
  int p = x->p;
  for (int test = T_EMPTY; test <= T_SCATTER; test++) {
    long h = test == T_FULL ? p : test == T_SIMPLE ? 1 : test == T_SCATTER ? p - 1 : 0;
    as_pattern(x, test, h);
    as_report(x, test, h, as_measure(x, test, h));
  }
  for (long h = p; h <= x->hmax; h *= 2) {
    as_pattern(x, T_SWEEP, h);
    as_report(x, T_SWEEP, h, as_measure(x, T_SWEEP, h));
  }
  for (int test = T_INTRA; test <= T_WHOLE; test++) {
    if (!as_applies(x, test)) continue;
    for (long h = 0; h <= AS_PROBE_H; h += x->step) {
      as_pattern(x, test, h);
      as_report(x, test, h, as_measure(x, test, h));
    }
  }
}

/* Buffers for every pattern: the sweep's p * (hmax / p) words, the probe's
 * 256, the scatter's p. */
static int as_alloc(as_w_t *x, int argc, char **argv, const bench_opts_t *o) {
  int p = x->p;
  x->quick = o->quick;
  x->hmax = as_opt(argc, argv, "--max-h", o->quick ? (1L << 14) : (1L << 20), 1, AS_MAX_H);
  if (x->hmax < p) x->hmax = p;
  x->step = (int)as_opt(argc, argv, "--probe-step", o->quick ? 8 : 2, 1, AS_PROBE_H);
  size_t words = (size_t)(x->hmax / p) * (size_t)p;
  if (words < AS_PROBE_H) words = AS_PROBE_H;
  if (words < (size_t)p) words = (size_t)p;
  x->words = words;
  size_t ents = (size_t)(p > AS_PROBE_H ? p : AS_PROBE_H);
  x->src = malloc(words * sizeof(double));
  x->area = malloc(words * sizeof(double));
  x->snd = malloc(ents * sizeof(as_ent_t));
  x->rcv = malloc(ents * sizeof(as_ent_t));
  x->sreq = malloc(2 * ents * sizeof(simple_request_t));
  x->mreq = malloc(2 * ents * sizeof(MPI_Request));
  x->mst = malloc(2 * ents * sizeof(MPI_Status));
  if (!x->src || !x->area || !x->snd || !x->rcv || !x->sreq || !x->mreq || !x->mst) return -1;
  for (size_t k = 0; k < words; k++) x->src[k] = as_val(x->me, (long)k), x->area[k] = 0;
  return 0;
}

static void as_free(as_w_t *x) {
  free(x->src), free(x->area), free(x->snd), free(x->rcv), free(x->sreq), free(x->mreq),
      free(x->mst);
}

typedef struct {
  int argc;
  char **argv;
  const bench_opts_t *o;
} as_args_t;

static void as_daxpy_rate(as_w_t *x) {
  enum { LEN = 2048 };
  static _Thread_local double vx[LEN], vy[LEN];
  for (int i = 0; i < LEN; i++) vx[i] = 1.0 + i * 1e-6, vy[i] = 0;
  double best = INFINITY, alpha = 1.0000001;
  for (int rep = 0; rep < 7; rep++) {
    double t0 = simple_time();
    for (int it = 0; it < 2000; it++) {
      for (int i = 0; i < LEN; i++) vy[i] += alpha * vx[i];
      __asm__ __volatile__("" : : "r"(vy) : "memory");
    }
    double t = simple_time() - t0;
    if (t < best) best = t;
  }
  double rate = 2.0 * LEN * 2000 / best / 1e6;
  double *all = x->me == 0 ? malloc(sizeof(double) * (size_t)x->p) : NULL;
  if (x->me == 0 && !all) as_die(x, "out of memory");
  as_check(x, simple_gather(x->s, &rate, all, 1, SIMPLE_DOUBLE, 0), "gather");
  if (x->me == 0) {
    qsort(all, (size_t)x->p, sizeof *all, as_cmp);
    printf("I rate %.3f\n", all[x->p / 2]);
    fflush(stdout);
    free(all);
  }
}

static void as_main(simple_t *s, void *arg) {
  const as_args_t *a = arg;
  as_w_t x;
  memset(&x, 0, sizeof x);
  x.s = s, x.p = simple_nprocs(s), x.me = simple_pid(s), x.N = simple_nodes(s);
  x.T = simple_threads_on(s, 0);
  for (int n = 1; n < x.N; n++)
    if (simple_threads_on(s, n) != x.T) x.T = 0; /* the levels need equal nodes */
  const char *back = simple_rma_backend(s) == SIMPLE_RMA_ONESIDED ? "onesided" : "twosided";
  snprintf(x.side, sizeof x.side, "hybrid-%s", back);
  if (as_alloc(&x, a->argc, a->argv, a->o)) as_die(&x, "out of memory (h = %ld)", x.hmax);
  as_check(&x, simple_rma_push_reg(s, x.src, x.words * sizeof(double)), "push_reg");
  as_check(&x, simple_rma_push_reg(s, x.area, x.words * sizeof(double)), "push_reg");
  as_check(&x, simple_rma_sync(s), "simple_rma_sync");
  as_daxpy_rate(&x);
  if (x.me == 0) {
    printf("I layout %d nodes x %d threads, backend %s\n", x.N, simple_threads(s), back);
    fflush(stdout);
  }
  static const int kinds[3] = {K_PUT, K_GET, K_SEND};
  int nk = as_flag(a->argc, a->argv, "--send") ? 3 : 2;
  for (int k = 0; k < nk; k++) {
    x.kind = kinds[k];
    if (x.kind == K_SEND)
      snprintf(x.side, sizeof x.side, "hybrid-send");
    else
      snprintf(x.side, sizeof x.side, "hybrid-%s-%s", x.kind == K_PUT ? "put" : "get", back);
    as_side(&x);
  }
  snprintf(x.side, sizeof x.side, "hybrid-%s", back);
  as_check(&x, simple_rma_pop_reg(s, x.area), "pop_reg");
  as_check(&x, simple_rma_pop_reg(s, x.src), "pop_reg");
  as_check(&x, simple_rma_sync(s), "simple_rma_sync");
  as_free(&x);
}

/* Flat MPI: one rank per thread; --tpn T groups ranks node-major into nodes
 * of T ranks (as simplerun places them) for the probe's levels. */
static int as_mpi_worker(int argc, char **argv, const bench_opts_t *o) {
  MPI_Init(&argc, &argv);
  as_w_t x;
  memset(&x, 0, sizeof x);
  MPI_Comm_rank(MPI_COMM_WORLD, &x.me);
  MPI_Comm_size(MPI_COMM_WORLD, &x.p);
  snprintf(x.side, sizeof x.side, "mpi");
  x.T = (int)as_opt(argc, argv, "--tpn", 1, 1, 1 << 20);
  if (x.p % x.T) x.T = 0;
  x.N = x.T ? x.p / x.T : 1;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (as_alloc(&x, argc, argv, o)) as_die(&x, "out of memory (h = %ld)", x.hmax);
  if (x.me == 0) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    bench_mpi_library(lib, sizeof lib);
    printf("I library %s\nI layout %d ranks\n", lib, x.p);
    fflush(stdout);
  }
  as_check(&x,
           MPI_Win_create(x.area, (MPI_Aint)(x.words * sizeof(double)), sizeof(double),
                          MPI_INFO_NULL, MPI_COMM_WORLD, &x.win),
           "MPI_Win_create");
  MPI_Win_set_errhandler(x.win, MPI_ERRORS_RETURN);
  as_check(&x, MPI_Win_fence(0, x.win), "MPI_Win_fence");
  x.kind = K_MPUT;
  snprintf(x.side, sizeof x.side, "mpi-put");
  as_side(&x);
  x.kind = K_MSEND;
  snprintf(x.side, sizeof x.side, "mpi-send");
  as_side(&x);
  as_check(&x, MPI_Win_fence(0, x.win), "MPI_Win_fence");
  MPI_Win_free(&x.win);
  as_free(&x);
  MPI_Finalize();
  return 0;
}

int bench_as_worker(int argc, char **argv, const bench_opts_t *o) {
  if (as_flag(argc, argv, "--mpi")) return as_mpi_worker(argc, argv, o);
  as_args_t a = {argc, argv, o};
  return simple_run(&argc, &argv, as_main, &a);
}

/* ------------------------------------------------------------------------
 * Driver. */

enum { S_PUT2, S_PUT1, S_GET2, S_GET1, S_SEND, S_MPUT, S_MSEND, S_N };
static const char *as_side_name[S_N] = {"hybrid-put-twosided",
                                        "hybrid-put-onesided",
                                        "hybrid-get-twosided",
                                        "hybrid-get-onesided",
                                        "hybrid-send",
                                        "mpi-put",
                                        "mpi-send"};
static const char *as_side_what[S_N] = {
    "simple_rma_put + sync, two-sided backend",   "simple_rma_put + sync, one-sided backend",
    "simple_rma_get + sync, two-sided backend",   "simple_rma_get + sync, one-sided backend",
    "simple_isend/irecv/waitall + barrier",       "flat MPI: MPI_Put + MPI_Win_fence",
    "flat MPI: MPI_Isend/Irecv/Waitall + Barrier"};

#define AS_ROWS 4096
static bench_table_t as_tab;
static double as_rate[AS_MAX_ROUNDS * 2];
static int as_nrate;
static char as_lib[256];

static int as_line(const char *line, void *ctx) {
  (void)ctx;
  char side[48], test[16];
  long h;
  double us;
  if (sscanf(line, "R %47s %15s %ld %lf", side, test, &h, &us) == 4) {
    char op[64];
    snprintf(op, sizeof op, "%s/%s", test, side);
    bench_row_add(bench_row(&as_tab, op, (size_t)h), 0, us);
    return 1;
  }
  if (strncmp(line, "I rate ", 7) == 0) {
    if (as_nrate < AS_MAX_ROUNDS * 2) as_rate[as_nrate++] = atof(line + 7);
    return 1;
  }
  if (strncmp(line, "I library ", 10) == 0) {
    snprintf(as_lib, sizeof as_lib, "%.*s", (int)strcspn(line + 10, "\n"), line + 10);
    return 1;
  }
  return line[0] == 'I' && line[1] == ' ';
}

/* Job j of a round (bench_alternate's side): ctx holds the J_N commands. */
static int as_job(int j, long round, void *ctx) {
  (void)round;
  const bench_cmd_t *cmd = ctx;
  return bench_run_worker(cmd[j], as_line, NULL);
}

/* The median of (test, side) at h; NAN if not measured. */
static double as_get(int test, int side, long h) {
  char op[64];
  snprintf(op, sizeof op, "%s/%s", as_test_name[test], as_side_name[side]);
  for (int i = 0; i < as_tab.nrows; i++) {
    bench_row_t *r = &as_tab.rows[i];
    if (r->bytes == (size_t)h && strcmp(r->op, op) == 0) return bench_row_median(r, 0);
  }
  return NAN;
}

/* The h values measured for (test, side), ascending; returns how many. */
static int as_hs(int test, int side, long *hs, int max) {
  char op[64];
  snprintf(op, sizeof op, "%s/%s", as_test_name[test], as_side_name[side]);
  int n = 0;
  for (int i = 0; i < as_tab.nrows && n < max; i++)
    if (strcmp(as_tab.rows[i].op, op) == 0) hs[n++] = (long)as_tab.rows[i].bytes;
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && hs[j - 1] > hs[j]; j--) {
      long t = hs[j];
      hs[j] = hs[j - 1], hs[j - 1] = t;
    }
  return n;
}

/* Least squares t = L + g h over the rows with h >= p. The sweep's is
 * weighted by 1/t^2 (the relative error): its h spans several decades, and
 * an unweighted fit is set by the largest h alone. The probe's h are evenly
 * spaced: plain least squares, as the classic BSP probe. */
static int as_fit(int test, int side, long p, double *g, double *L) {
  long hs[AS_ROWS];
  int n = as_hs(test, side, hs, AS_ROWS), used = 0;
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < n; i++) {
    if (hs[i] < p) continue;
    double t = as_get(test, side, hs[i]);
    if (isnan(t) || t <= 0) continue;
    double xh = (double)hs[i], w = test == T_SWEEP ? 1 / (t * t) : 1;
    sw += w, sx += w * xh, sy += w * t, sxx += w * xh * xh, sxy += w * xh * t, used++;
  }
  double den = sw * sxx - sx * sx;
  if (used < 2 || den == 0) {
    *g = *L = NAN;
    return used;
  }
  *g = (sw * sxy - sx * sy) / den;
  *L = (sy - *g * sx) / sw;
  return used;
}

static void as_jnum(FILE *f, double v) {
  if (isnan(v) || isinf(v))
    fprintf(f, "null");
  else
    fprintf(f, "%.6g", v);
}

static void as_usage(FILE *f, const char *name) {
  fprintf(f,
          "usage: simple-bench %s [-N NODES] [-t THREADS] [--vcluster] [--quick] [--rounds R]\n"
          "       [--max-h WORDS] [--probe-step K] [--csv FILE] [--plot FILE.png] [--json]\n",
          name);
}

/* t/h against h, log-log, one line per side: the total exchange (left) and
 * the whole-job probe of single words (right). */
static int as_plot(const char *png, long N, long T, long P) {
  char data[] = "/tmp/simple-bench-as-XXXXXX";
  int fd = mkstemp(data);
  if (fd < 0) {
    fprintf(stderr, "simple-bench: --plot: cannot create a temporary file: %s\n", strerror(errno));
    return 1;
  }
  FILE *d = fdopen(fd, "w");
  static const int panels[2] = {T_SWEEP, T_WHOLE};
  int idx[2][S_N], nb = 0;
  long hs[AS_ROWS];
  for (int k = 0; k < 2; k++)
    for (int sd = 0; sd < S_N; sd++) {
      idx[k][sd] = -1;
      int n = as_hs(panels[k], sd, hs, AS_ROWS), any = 0;
      for (int i = 0; i < n; i++) {
        double t = as_get(panels[k], sd, hs[i]);
        if (hs[i] <= 0 || isnan(t)) continue;
        if (!any)
          fprintf(d, "%s# %s %s\n", nb ? "\n\n" : "", as_test_name[panels[k]], as_side_name[sd]);
        fprintf(d, "%ld %.6g\n", hs[i], t / (double)hs[i]);
        any = 1;
      }
      if (any) idx[k][sd] = nb++;
    }
  fclose(d);
  if (nb == 0) {
    unlink(data);
    fprintf(stderr, "simple-bench: --plot: no results to plot\n");
    return 1;
  }
  FILE *g = bench_plot_open(png, 1200, 480);
  if (!g) {
    unlink(data);
    return 1;
  }
  fprintf(g,
          "set multiplot layout 1,2 title \"simple-bench as: %ld node(s) x %ld thread(s),"
          " p = %ld\" noenhanced\n"
          "set grid\nset logscale xy\nset key top right noenhanced\n"
          "set ylabel 't/h (us per 8-byte word)'\n",
          N, T, P);
  static const char *ptitle[2] = {"total exchange (As suite): h words per processor",
                                  "BSP probe, whole job: h single words per processor"};
  for (int k = 0; k < 2; k++) {
    fprintf(g, "set title '%s'\nset xlabel 'h (words)'\n", ptitle[k]);
    int any = 0;
    for (int sd = 0; sd < S_N; sd++) {
      if (idx[k][sd] < 0) continue;
      fprintf(g, "%s'%s' index %d using 1:2 with linespoints lw 2 dt %d title '%s'",
              any ? ", " : "plot ", data, idx[k][sd], sd >= S_MPUT ? 2 : 1, as_side_name[sd]);
      any = 1;
    }
    fprintf(g, any ? "\n" : "set multiplot next\n");
  }
  return bench_plot_close(g, data);
}

static const char *as_name = "as";
static void as_usage_named(FILE *f) { as_usage(f, as_name); }

int bench_as_suite(int argc, char **argv) {
  const char *name = as_name = argv[1];
  bench_suite_t b = {.T = 2, .rounds = 3};
  long max_h = -1, step = -1;
  int json = 0;
  const char *plot = NULL;
  const bench_opt_t opts[] = {{"--json", BENCH_FLAG, &json, 0, 0, NULL},
                              {"--max-h", BENCH_NUM, &max_h, 1, AS_MAX_H, NULL},
                              {"--probe-step", BENCH_NUM, &step, 1, AS_PROBE_H, NULL},
                              {"--plot", BENCH_WORD, &plot, 0, 0, NULL},
                              {0}};
  int rc = bench_suite_parse(&b, argc, argv, AS_MAX_ROUNDS, opts, as_usage_named);
  if (rc) return rc < 0 ? 0 : rc;
  long N = b.N, T = b.T, rounds = b.rounds, P = N * T;
  int quick = b.quick, vcluster = b.vcluster;
  if (plot && bench_plot_check(plot)) return 1;
  if (bench_suite_start(&b, P)) return 1;
  FILE *out = b.out;
  as_tab.cap = AS_ROWS;
  as_tab.nrows = 0;
  as_tab.rows = calloc(AS_ROWS, sizeof(bench_row_t));
  if (!as_tab.rows) {
    fprintf(stderr, "simple-bench: out of memory\n");
    bench_suite_close(&b);
    return 1;
  }
  int multi = b.pl.multi, pin = b.pl.pin;
  char args[160];
  snprintf(args, sizeof args, "%s", quick ? " --quick" : "");
  if (max_h > 0) snprintf(args + strlen(args), sizeof args - strlen(args), " --max-h %ld", max_h);
  if (step > 0)
    snprintf(args + strlen(args), sizeof args - strlen(args), " --probe-step %ld", step);
  enum { J_TWO, J_ONE, J_MPI, J_N };
  bench_cmd_t cmd[J_N];
  char args2[200];
  snprintf(args2, sizeof args2, "--send%s", args);
  bench_worker_cmd(cmd[J_TWO], sizeof cmd[J_TWO], &b.pl, vcluster, BENCH_HYBRID, N, T,
                   "SIMPLE_RMA=twosided ", "as", args2);
  bench_worker_cmd(cmd[J_ONE], sizeof cmd[J_ONE], &b.pl, vcluster, BENCH_HYBRID, N, T,
                   "SIMPLE_RMA=onesided ", "as", args);
  snprintf(args2, sizeof args2, "--mpi --tpn %ld%s", T, args);
  bench_worker_cmd(cmd[J_MPI], sizeof cmd[J_MPI], &b.pl, vcluster, BENCH_FLAT, N, T, "", "as",
                   args2);
  FILE *o = json ? stderr : stdout;
  fprintf(o,
          "simple-bench %s: paper 004's As suite (tests 1-5, total exchange) and BSP probe on"
          " %ld node(s) x %ld thread(s) (hybrid) and %ld MPI rank(s) x 1 thread (flat), %s,"
          " %ld round(s)%s; words of 8 bytes\n",
          name, N, T, P, bench_where(vcluster, multi), rounds, pin ? ", pinned" : "");
  fflush(o);
  if (bench_alternate(rounds, J_N, as_job, cmd) != 0) {
    bench_suite_close(&b);
    free(as_tab.rows);
    return 1;
  }
  double rate = bench_median(as_rate, (size_t)as_nrate); /* Mflop/s = flops per us */
  if (as_nrate == 0) rate = NAN;

  /* Fits: sweep and the three probe levels, per side. */
  double fg[4][S_N], fL[4][S_N];
  int fn[4][S_N];
  for (int l = 0; l < 4; l++)
    for (int sd = 0; sd < S_N; sd++)
      fn[l][sd] = as_fit(l == 0 ? T_SWEEP : T_INTRA + l - 1, sd, P, &fg[l][sd], &fL[l][sd]);

  fprintf(o, "MPI: %s\n", as_lib[0] ? as_lib : "unknown library");
  fprintf(o, "DAXPY rate r = %.1f Mflop/s per processor (median), so 1 us = %.0f flops\n", rate,
          rate);
  fprintf(o, "\nTests 1-5 (us per superstep, median) and the total-exchange fit t(h) = L + g h:\n");
  fprintf(o, "%-20s %8s %8s %8s %8s %8s %10s %9s %9s %10s\n", "side", "1:empty", "2:comp", "3:full",
          "4:simple", "5:scattr", "g_us/word", "L_us", "g_flops", "L_flops");
  for (int sd = 0; sd < S_N; sd++) {
    fprintf(o, "%-20s", as_side_name[sd]);
    long th[5] = {0, 0, P, 1, P - 1};
    for (int t = 0; t < 5; t++) fprintf(o, " %8.2f", as_get(t, sd, th[t]));
    fprintf(o, " %10.5f %9.2f %9.2f %10.0f\n", fg[0][sd], fL[0][sd], fg[0][sd] * rate,
            fL[0][sd] * rate);
  }
  fprintf(o,
          "\nBSP probe (h = 0..%d single words per processor, every processor also receiving h;"
          " fit over h >= p = %ld):\n",
          AS_PROBE_H, P);
  fprintf(o, "%-20s %-6s %10s %9s %9s %10s %9s\n", "side", "level", "g_us/word", "L_us", "g_flops",
          "L_flops", "h0_us");
  static const char *lvl[3] = {"intra", "inter", "whole"};
  for (int sd = 0; sd < S_N; sd++)
    for (int l = 1; l < 4; l++) {
      fprintf(o, "%-20s %-6s", as_side_name[sd], lvl[l - 1]);
      if (fn[l][sd] == 0)
        fprintf(o, " %10s  (%s)\n", "n/a",
                l == 1   ? "one thread per node"
                : l == 2 ? "one node"
                         : "one processor");
      else
        fprintf(o, " %10.5f %9.2f %9.2f %10.0f %9.2f\n", fg[l][sd], fL[l][sd], fg[l][sd] * rate,
                fL[l][sd] * rate, as_get(T_INTRA + l - 1, sd, 0));
    }
  fprintf(o, "\nTotal exchange: t/h (us per word, median) against h (words per processor):\n");
  fprintf(o, "%9s", "h_words");
  for (int sd = 0; sd < S_N; sd++) fprintf(o, " %*s", sd < S_SEND ? 19 : 11, as_side_name[sd]);
  fprintf(o, "\n");
  long hs[AS_ROWS];
  int nh = as_hs(T_SWEEP, S_PUT2, hs, AS_ROWS);
  for (int i = 0; i < nh; i++) {
    fprintf(o, "%9ld", hs[i]);
    for (int sd = 0; sd < S_N; sd++)
      fprintf(o, " %*.5f", sd < S_SEND ? 19 : 11, as_get(T_SWEEP, sd, hs[i]) / (double)hs[i]);
    fprintf(o, "\n");
  }
  fprintf(o, "\nsides:\n");
  for (int sd = 0; sd < S_N; sd++) fprintf(o, "  %-20s %s\n", as_side_name[sd], as_side_what[sd]);
  fprintf(o,
          "fits: t(h) = L + g h over h >= p, least squares (the total exchange's of the"
          " relative error); g_flops = g r, L_flops = L r; h0_us: the probe's empty superstep;"
          " n/a: the level does not exist in this layout\n");

  if (json) {
    printf(
        "{\"suite\": \"as\", \"nodes\": %ld, \"threads\": %ld, \"processors\": %ld,"
        " \"word_bytes\": 8, \"r_mflops\": ",
        N, T, P);
    as_jnum(stdout, rate);
    printf(", \"L\": ");
    as_jnum(stdout, fL[0][S_PUT2]);
    printf(", \"g\": ");
    as_jnum(stdout, fg[0][S_PUT2]);
    printf(", \"L_flops\": ");
    as_jnum(stdout, fL[0][S_PUT2] * rate);
    printf(", \"g_flops\": ");
    as_jnum(stdout, fg[0][S_PUT2] * rate);
    printf(
        ", \"of\": \"hybrid-put-twosided, total exchange over the whole job\","
        " \"units\": {\"g\": \"us per 8-byte word\", \"L\": \"us\", \"tests\": \"us per"
        " superstep\"}, \"sides\": {");
    for (int sd = 0; sd < S_N; sd++) {
      printf("%s\"%s\": {\"tests\": {", sd ? ", " : "", as_side_name[sd]);
      long th[5] = {0, 0, P, 1, P - 1};
      for (int t = 0; t < 5; t++) {
        printf("%s\"%s\": ", t ? ", " : "", as_test_name[t]);
        as_jnum(stdout, as_get(t, sd, th[t]));
      }
      printf("}");
      static const char *key[4] = {"sweep", "intra", "inter", "whole"};
      for (int l = 0; l < 4; l++) {
        printf(", \"%s\": ", key[l]);
        if (fn[l][sd] == 0) {
          printf("null");
          continue;
        }
        printf("{\"g\": ");
        as_jnum(stdout, fg[l][sd]);
        printf(", \"L\": ");
        as_jnum(stdout, fL[l][sd]);
        printf(", \"g_flops\": ");
        as_jnum(stdout, fg[l][sd] * rate);
        printf(", \"L_flops\": ");
        as_jnum(stdout, fL[l][sd] * rate);
        printf(", \"points\": %d}", fn[l][sd]);
      }
      printf("}");
    }
    printf("}}\n");
    fflush(stdout);
  }

  if (out) {
    fprintf(out, "suite,nodes,threads,test,side,h_words,us,us_per_word,sweep_fit_us\n");
    for (int t = 0; t < T_N; t++)
      for (int sd = 0; sd < S_N; sd++) {
        nh = as_hs(t, sd, hs, AS_ROWS);
        for (int i = 0; i < nh; i++) {
          double us = as_get(t, sd, hs[i]);
          fprintf(out, "as,%ld,%ld,%s,%s,%ld,%.4f,", N, T, as_test_name[t], as_side_name[sd], hs[i],
                  us);
          if (hs[i] > 0) fprintf(out, "%.6g", us / (double)hs[i]);
          fprintf(out, ",");
          if (t == T_SWEEP && !isnan(fg[0][sd]))
            fprintf(out, "%.4f", fL[0][sd] + fg[0][sd] * (double)hs[i]);
          fprintf(out, "\n");
        }
      }
  }
  if (bench_suite_finish(&b)) {
    free(as_tab.rows);
    return 1;
  }
  rc = plot ? as_plot(plot, N, T, P) : 0;
  free(as_tab.rows);
  return rc;
}
