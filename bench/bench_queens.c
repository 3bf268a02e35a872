/* simple-bench queens: the parallel n-queens count (simple_nqueens, paper
 * 000) against the classic sequential bitmask solver (M. Richards' bit
 * pattern search: three masks, recursion, no symmetry), written here, in
 * one invocation.
 *
 * Per n (16 and 17; --quick: 13 and 14), per round:
 *   - a job of 1 node x 1 thread times the classic solver and
 *     simple_nqueens on that single processor (T1): the single-thread
 *     rate of the library beside the classic code;
 *   - a job of NODES x THREADS times simple_nqueens on p = NODES*THREADS
 *     processors (Tp; maximum over processors, between barriers).
 * Every count is checked: each job's counts must equal the classic
 * solver's of the same round (a wrong count fails the benchmark). The
 * driver alternates the order of the two jobs round by round and prints
 * the medians over rounds, the rate ratio classic/simple (T_classic / T1,
 * above 1: simple is faster) and the parallel efficiency T1 / (p Tp).
 * Workers print "R classic <n> <s> <count>" and
 * "R simple <n> <p> <s> <count>". */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <simple.h>

#include "bench.h"
#include "simple_nqueens.h"

#define Q_MAX_N      4
#define Q_MAX_ROUNDS 32

/* ------------------------------------------------------------------------
 * The classic solver: one recursive call per placed queen. */

static uint64_t classic_rec(uint32_t all, uint32_t ld, uint32_t cols, uint32_t rd) {
  if (cols == all) return 1;
  uint64_t count = 0;
  uint32_t poss = ~(ld | cols | rd) & all;
  while (poss) {
    uint32_t bit = poss & (0u - poss);
    poss -= bit;
    count += classic_rec(all, (ld | bit) << 1, cols | bit, (rd | bit) >> 1);
  }
  return count;
}

static uint64_t classic(int n) { return classic_rec((1u << n) - 1u, 0, 0, 0); }

/* ------------------------------------------------------------------------
 * The worker. */

/* CPU seconds the calling thread has used: on a shared machine the sum
 * over threads tells the work done apart from the time lost waiting for a
 * core. */
static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
  int ns[Q_MAX_N], nn, with_classic, symmetry, stat;
  int failed;
} qargs_t;

static void qworker(simple_t *s, void *arg) {
  qargs_t *a = arg;
  simple_nqueens_opts_t o = {a->stat, a->symmetry, 0, 0};
  for (int i = 0; i < a->nn; i++) {
    int n = a->ns[i];
    if (a->with_classic && simple_pid(s) == 0) {
      double t0 = simple_time();
      uint64_t c = classic(n);
      double t = simple_time() - t0;
      printf("R classic %d %.6f %" PRIu64 "\n", n, t, c);
      fflush(stdout);
    }
    uint64_t count = 0;
    simple_barrier(s);
    double t0 = simple_time(), c0 = thread_cpu();
    int rc = simple_nqueens(s, n, &o, &count);
    double t = simple_time() - t0, tmax = t, cpu = thread_cpu() - c0, cpusum = cpu;
    simple_allreduce(s, &t, &tmax, 1, SIMPLE_DOUBLE, SIMPLE_MAX);
    simple_allreduce(s, &cpu, &cpusum, 1, SIMPLE_DOUBLE, SIMPLE_SUM);
    if (rc) {
      if (simple_pid(s) == 0)
        fprintf(stderr, "simple-bench queens: simple_nqueens(%d) failed: %s\n", n,
                simple_strerror(rc));
      if (simple_thread(s) == 0) a->failed = 1;
      return;
    }
    if (simple_pid(s) == 0) {
      printf("R simple %d %d %.6f %" PRIu64 " %.6f\n", n, simple_nprocs(s), tmax, count, cpusum);
      fflush(stdout);
    }
  }
}

int bench_queens_worker(int argc, char **argv, const bench_opts_t *o) {
  (void)o;
  qargs_t a;
  memset(&a, 0, sizeof a);
  for (int i = 3; i < argc; i++) {
    if (strcmp(argv[i], "--classic") == 0) a.with_classic = 1;
    if (strcmp(argv[i], "--symmetry") == 0) a.symmetry = 1;
    if (strcmp(argv[i], "--static") == 0) a.stat = 1;
    if (strcmp(argv[i], "--n") == 0 && i + 1 < argc && a.nn < Q_MAX_N) {
      a.ns[a.nn] = atoi(argv[++i]);
      if (a.ns[a.nn] < 1 || a.ns[a.nn] > SIMPLE_NQUEENS_MAX_N) return 2;
      a.nn++;
    }
  }
  int rc = simple_run(&argc, &argv, qworker, &a);
  return rc ? 1 : a.failed;
}

/* ------------------------------------------------------------------------
 * The driver. */

typedef struct {
  int n;
  double classic[Q_MAX_ROUNDS], t1[Q_MAX_ROUNDS], tp[Q_MAX_ROUNDS];
  double c1[Q_MAX_ROUNDS], cp[Q_MAX_ROUNDS]; /* CPU seconds, all threads */
  int nc, n1, np;
  uint64_t want; /* the classic solver's count */
  int have_want;
} qrow_t;

static qrow_t qrows[Q_MAX_N];
static int nqrows;
static long qP;
static int qbad;

static qrow_t *qrow(int n) {
  for (int i = 0; i < nqrows; i++)
    if (qrows[i].n == n) return &qrows[i];
  if (nqrows == Q_MAX_N) return NULL;
  qrow_t *r = &qrows[nqrows++];
  memset(r, 0, sizeof *r);
  r->n = n;
  return r;
}

/* One worker job's lines; its counts are checked once the round is over. */
typedef struct {
  const char *cmd;
  uint64_t (*got)[2];
  int *ngot;
} qrun_t;

static int qline(const char *line, void *arg) {
  qrun_t *c = arg;
  int n, procs;
  double sec, cpu;
  uint64_t count;
  qrow_t *r = NULL;
  if (sscanf(line, "R classic %d %lf %" SCNu64, &n, &sec, &count) == 3 && (r = qrow(n))) {
    if (r->nc < Q_MAX_ROUNDS) r->classic[r->nc++] = sec;
    r->want = count;
    r->have_want = 1;
  } else if (sscanf(line, "R simple %d %d %lf %" SCNu64 " %lf", &n, &procs, &sec, &count, &cpu) ==
                 5 &&
             (r = qrow(n))) {
    /* T1 comes from the single processor's job (with the classic
     * solver); with p = 1 the other job is Tp. */
    if (procs == 1 && r->n1 < Q_MAX_ROUNDS && strstr(c->cmd, "--classic")) {
      r->c1[r->n1] = cpu;
      r->t1[r->n1++] = sec;
    } else if (procs == qP && r->np < Q_MAX_ROUNDS) {
      r->cp[r->np] = cpu;
      r->tp[r->np++] = sec;
    }
    if (*c->ngot < 2 * Q_MAX_N) {
      c->got[*c->ngot][0] = (uint64_t)n;
      c->got[*c->ngot][1] = count;
      (*c->ngot)++;
    }
  } else {
    return 0;
  }
  return 1;
}

/* A round's two jobs (bench_alternate's sides); once both have run, the
 * counts of the round are checked against the classic solver's (qbad). */
typedef struct {
  const bench_cmd_t *cmd;
  uint64_t got[2 * Q_MAX_N][2];
  int ngot, ran;
} qround_t;

static int qside(int side, long round, void *ctx) {
  (void)round;
  qround_t *q = ctx;
  if (q->ran++ % 2 == 0) q->ngot = 0; /* a new round */
  qrun_t c = {q->cmd[side], q->got, &q->ngot};
  if (bench_run_worker(q->cmd[side], qline, &c) != 0) return 1;
  if (q->ran % 2) return 0;
  for (int i = 0; i < q->ngot; i++) {
    qrow_t *r = qrow((int)q->got[i][0]);
    if (!r || !r->have_want || q->got[i][1] != r->want) {
      fprintf(stderr,
              "simple-bench queens: n = %d: simple_nqueens counted %" PRIu64
              ", the classic solver %" PRIu64 "\n",
              (int)q->got[i][0], q->got[i][1], r ? r->want : 0);
      qbad = 1;
    }
  }
  return 0;
}

static double qmed(double *v, int c) {
  if (!c) return NAN;
  double w[Q_MAX_ROUNDS];
  memcpy(w, v, sizeof(double) * (size_t)c);
  return bench_median(w, (size_t)c);
}

static void qusage(FILE *f) {
  fprintf(f,
          "usage: simple-bench queens [-N NODES] [-t THREADS] [--vcluster] [--quick]\n"
          "                           [--rounds R] [--symmetry] [--static] [--n N] [--csv FILE]\n"
          "  n = 16 and 17 (--quick: 13 and 14; --n N: N alone, 4..18)\n");
}

int bench_queens_suite(int argc, char **argv) {
  bench_suite_t b = {.T = 2, .rounds = 3};
  long only_n = 0;
  int symmetry = 0, stat = 0;
  const bench_opt_t opts[] = {{"--symmetry", BENCH_FLAG, &symmetry, 0, 0, NULL},
                              {"--static", BENCH_FLAG, &stat, 0, 0, NULL},
                              {"--n", BENCH_NUM, &only_n, 4, 18, NULL},
                              {0}};
  int rc = bench_suite_parse(&b, argc, argv, Q_MAX_ROUNDS, opts, qusage);
  if (rc) return rc < 0 ? 0 : rc;
  long N = b.N, T = b.T, rounds = b.rounds;
  int quick = b.quick, vcluster = b.vcluster;
  qP = N * T;
  if (bench_suite_start(&b, qP)) return 1;
  FILE *out = b.out;
  char ns[64];
  if (only_n)
    snprintf(ns, sizeof ns, "--n %ld", only_n);
  else
    snprintf(ns, sizeof ns, "--n %d --n %d", quick ? 13 : 16, quick ? 14 : 17);
  char opts_s[128];
  snprintf(opts_s, sizeof opts_s, "%s%s%s", ns, symmetry ? " --symmetry" : "",
           stat ? " --static" : "");

  int cores = b.pl.cores, multi = b.pl.multi, pin = b.pl.pin;
  bench_cmd_t cmd[2];
  char classic[160];
  /* The single processor runs where the parallel job's first one does. */
  snprintf(classic, sizeof classic, "--classic %s", opts_s);
  bench_worker_cmd(cmd[0], sizeof cmd[0], &b.pl, vcluster, BENCH_HYBRID, 1, 1, "", "queens",
                   classic);
  bench_worker_cmd(cmd[1], sizeof cmd[1], &b.pl, vcluster, BENCH_HYBRID, N, T, "", "queens",
                   opts_s);
  printf(
      "simple-bench queens: simple_nqueens (%s partition%s) on 1 and on %ld node(s) x %ld "
      "thread(s) = %ld processor(s), beside the classic bitmask solver; %s, %d core(s), %ld "
      "round(s)%s\n",
      stat ? "static" : "dynamic", symmetry ? ", mirror symmetry" : "", N, T, qP,
      bench_where(vcluster, multi), cores, rounds, pin ? ", pinned" : "");
  fflush(stdout);
  qround_t qr = {.cmd = (const bench_cmd_t *)cmd};
  if (bench_alternate(rounds, 2, qside, &qr) != 0 || qbad) {
    bench_suite_close(&b);
    return 1;
  }
  if (out)
    fprintf(out,
            "suite,n,nodes,threads,solutions,classic_s,simple1_s,simple_p_s,speedup,"
            "efficiency,cpu_eff\n");
  printf("%3s %12s %10s %10s %10s %9s %11s %8s %4s %10s %10s\n", "n", "solutions", "classic_s",
         "simple1_s", "classic/s1", "Msol/s_1", "simple_p_s", "speedup", "p", "efficiency",
         "cpu_eff");
  for (int i = 0; i < nqrows; i++) {
    qrow_t *q = &qrows[i];
    double tc = qmed(q->classic, q->nc), t1 = qmed(q->t1, q->n1), tp = qmed(q->tp, q->np);
    double c1 = qmed(q->c1, q->n1), cp = qmed(q->cp, q->np);
    printf("%3d %12" PRIu64 " %10.3f %10.3f %10.3f %9.3f %11.3f %8.3f %4ld %9.1f%% %9.1f%%\n", q->n,
           q->want, tc, t1, tc / t1, (double)q->want / t1 / 1e6, tp, t1 / tp, qP,
           100.0 * t1 / ((double)qP * tp), 100.0 * c1 / cp);
    if (out)
      fprintf(out, "queens,%d,%ld,%ld,%" PRIu64 ",%.6f,%.6f,%.6f,%.4f,%.4f,%.4f\n", q->n, N, T,
              q->want, tc, t1, tp, t1 / tp, t1 / ((double)qP * tp), c1 / cp);
  }
  if (bench_suite_finish(&b)) return 1;
  printf(
      "counts checked against the classic solver in every round; efficiency = T1 / (p Tp), "
      "target >= 90%% of the cores available (%d here); cpu_eff = CPU seconds of the "
      "1-processor run / CPU seconds of all p threads (the work overhead alone, blind to "
      "time spent waiting for a core)\n",
      cores);
  return 0;
}
