/* simple-bench water: the speedup of simple_water (paper 003's Water,
 * Figure 4) against the processor count, in one invocation.
 *
 * Jobs (one "configuration" each): 1 node x t threads for t = 1, 2, 4, ...
 * up to THREADS (and THREADS itself), then, with NODES > 1, NODES nodes x
 * THREADS threads, and the same processors as flat MPI (one process of one
 * thread each: BENCH_FLAT). Each round runs every job once, in an order
 * that alternates round by round (forward, then backward), and the driver
 * prints the median time over rounds per configuration, the speedup
 * T(1 thread) / T(config) and the efficiency speedup / p. Every run must
 * say "verified" (energy drift under simple-water's tolerance); a run that
 * does not fails the benchmark. Workers print
 * "R water <nodes> <threads> <p> <seconds> <drift>". */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simple.h>

#include "bench.h"
#include "simple_water.h"

#define W_MAX_CONF   16
#define W_MAX_ROUNDS 32

typedef struct {
  int molecules, steps, failed;
} wargs_t;

static void wworker(simple_t *s, void *arg) {
  wargs_t *a = arg;
  simple_water_opts_t o = {a->molecules, a->steps, 0, 1};
  simple_water_result_t r;
  int rc = simple_water(s, &o, &r, NULL);
  if (rc) {
    if (simple_pid(s) == 0)
      fprintf(stderr, "simple-bench water: simple_water failed: %s\n", simple_strerror(rc));
    if (simple_thread(s) == 0) a->failed = 1;
    return;
  }
  if (simple_pid(s) == 0) {
    printf("R water %d %d %d %.6f %.3e\n", simple_nodes(s), simple_threads(s), simple_nprocs(s),
           r.time_s, r.drift);
    fflush(stdout);
  }
}

int bench_water_worker(int argc, char **argv, const bench_opts_t *o) {
  (void)o;
  wargs_t a = {1728, 3, 0};
  for (int i = 3; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--molecules") == 0)
      a.molecules = atoi(argv[++i]);
    else if (strcmp(argv[i], "--steps") == 0)
      a.steps = atoi(argv[++i]);
  }
  int rc = simple_run(&argc, &argv, wworker, &a);
  return rc ? 1 : a.failed;
}

typedef struct {
  char name[32];
  long nodes, threads, p;
  double t[W_MAX_ROUNDS];
  int n, bad;
  char cmd[2 * PATH_MAX + 512];
} wconf_t;

static int wline(const char *line, void *arg) {
  wconf_t *c = arg;
  int nodes, threads, p;
  double sec, drift;
  if (sscanf(line, "R water %d %d %d %lf %lf", &nodes, &threads, &p, &sec, &drift) != 5) return 0;
  if (drift >= 1e-3) {
    fprintf(stderr, "simple-bench water: %s: energy drift %g is over 1e-3\n", c->name, drift);
    c->bad = 1;
    return 1;
  }
  if (c->n < W_MAX_ROUNDS) c->t[c->n++] = sec;
  return 1;
}

static void wusage(FILE *f) {
  fprintf(f,
          "usage: simple-bench water [-N NODES] [-t THREADS] [--vcluster] [--quick]\n"
          "                          [--rounds R] [--molecules M] [--steps S] [--csv FILE]\n"
          "  speedup of simple-water from 1 thread to NODES x THREADS processors\n"
          "  (default 1728 molecules, 3 steps; --quick: 512 molecules, 2 steps)\n");
}

int bench_water_suite(int argc, char **argv) {
  long N = -1, T = 2, rounds = -1, mol = 0, steps = 0;
  int quick = 0, vcluster = 0;
  const char *csv = NULL;
  const bench_opt_t opts[] = {
      {"--quick", BENCH_FLAG, &quick, 0, 0},
      {"--vcluster", BENCH_FLAG, &vcluster, 0, 0},
      {"-N", BENCH_NUM, &N, 1, 256},
      {"-t", BENCH_NUM, &T, 1, 1024},
      {"--rounds", BENCH_NUM, &rounds, 1, W_MAX_ROUNDS},
      {"--molecules", BENCH_NUM, &mol, SIMPLE_WATER_MIN_MOLECULES, SIMPLE_WATER_MAX_MOLECULES},
      {"--steps", BENCH_NUM, &steps, 1, 1000},
      {"--csv", BENCH_WORD, &csv, 0, 0},
      {NULL, 0, NULL, 0, 0}};
  int rc = bench_parse(argc, argv, opts, wusage);
  if (rc) return rc == 1 ? 0 : rc;
  if (N < 0) N = vcluster ? 2 : 1;
  if (rounds < 0) rounds = quick ? 1 : 3;
  if (!mol) mol = quick ? 512 : 1728;
  if (!steps) steps = quick ? 2 : 3;
  FILE *out;
  if (bench_open_csv(csv, &out)) return 1;
  bench_place_t pl;
  bench_place(&pl, vcluster, N * T);
  char args[96];
  snprintf(args, sizeof args, "--molecules %ld --steps %ld", mol, steps);
  static wconf_t conf[W_MAX_CONF];
  int nc = 0;
  /* One node, 1 thread up to T (powers of two, and T). */
  for (long t = 1; nc < W_MAX_CONF - 2; t *= 2) {
    long tt = t < T ? t : T;
    wconf_t *c = &conf[nc++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "1x%ld", tt);
    c->nodes = 1, c->threads = tt, c->p = tt;
    bench_worker_cmd(c->cmd, sizeof c->cmd, &pl, 0, BENCH_HYBRID, 1, tt, "", "water", args);
    if (tt == T) break;
  }
  if (N > 1) {
    wconf_t *c = &conf[nc++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%ldx%ld", N, T);
    c->nodes = N, c->threads = T, c->p = N * T;
    bench_worker_cmd(c->cmd, sizeof c->cmd, &pl, vcluster, BENCH_HYBRID, N, T, "", "water", args);
    c = &conf[nc++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "flat %ld", N * T);
    c->nodes = N * T, c->threads = 1, c->p = N * T;
    bench_worker_cmd(c->cmd, sizeof c->cmd, &pl, vcluster, BENCH_FLAT, N, T, "", "water", args);
  }
  printf(
      "simple-bench water: simple_water, %ld molecules, %ld steps, 1 to %ld processor(s); %s, "
      "%d core(s), %ld round(s)\n",
      mol, steps, N * T,
      vcluster   ? "virtual cluster"
      : pl.multi ? "Slurm"
                 : "one host",
      pl.cores, rounds);
  fflush(stdout);
  for (long r = 0; r < rounds; r++) {
    fprintf(stderr, "  round %ld/%ld\n", r + 1, rounds);
    for (int k = 0; k < nc; k++) {
      wconf_t *c = &conf[(r % 2) ? nc - 1 - k : k];
      if (bench_run_worker(c->cmd, wline, c) != 0) {
        if (out) fclose(out);
        return 1;
      }
    }
  }
  double t1 = bench_median(conf[0].t, (size_t)conf[0].n);
  if (out) fprintf(out, "suite,config,nodes,threads,p,molecules,steps,time_s,speedup,efficiency\n");
  printf("%-10s %4s %10s %8s %10s\n", "config", "p", "time_s", "speedup", "efficiency");
  for (int k = 0; k < nc; k++) {
    wconf_t *c = &conf[k];
    if (c->n < rounds || c->bad) {
      fprintf(stderr, "simple-bench water: %s reported %d of %ld rounds\n", c->name, c->n, rounds);
      if (out) fclose(out);
      return 1;
    }
    double t = bench_median(c->t, (size_t)c->n);
    printf("%-10s %4ld %10.4f %8.3f %9.1f%%\n", c->name, c->p, t, t1 / t,
           100.0 * t1 / t / (double)c->p);
    if (out)
      fprintf(out, "water,%s,%ld,%ld,%ld,%ld,%ld,%.6f,%.4f,%.4f\n", c->name, c->nodes, c->threads,
              c->p, mol, steps, t, t1 / t, t1 / t / (double)c->p);
  }
  if (out && fclose(out) != 0) return 1;
  printf(
      "speedup = T(1x1) / T (medians over rounds, the steps' wall time, max over processors); "
      "every run's energy drift checked under 1e-3; target: 1x2 speedup >= 1.7\n");
  return 0;
}
