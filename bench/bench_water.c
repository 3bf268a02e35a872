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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simple.h>

#include "bench.h"
#include "simple_water.h"

typedef struct {
  int molecules, steps, failed;
} wargs_t;

static void wworker(simple_t *s, void *arg) {
  wargs_t *a = arg;
  simple_water_opts_t o = {a->molecules, a->steps, 0, 1};
  simple_water_result_t r;
  int rc = simple_water(s, &o, &r, NULL);
  if (bench_speedup_failed(s, "water", "simple_water", rc, &a->failed)) return;
  if (simple_pid(s) == 0) {
    printf("R water %d %d %d %.6f %.3e\n", simple_nodes(s), simple_threads(s), simple_nprocs(s),
           r.time_s, r.drift);
    fflush(stdout);
  }
}

int bench_water_worker(int argc, char **argv, const bench_opts_t *o) {
  (void)o;
  wargs_t a = {atoi(bench_speedup_arg(argc, argv, "--molecules", "1728")),
               atoi(bench_speedup_arg(argc, argv, "--steps", "3")), 0};
  int rc = simple_run(&argc, &argv, wworker, &a);
  return rc ? 1 : a.failed;
}

/* Drops a run whose energy drifted (and fails the benchmark). */
static int wcheck(bench_speedup_conf_t *c, const double *v) {
  if (v[0] >= 1e-3) {
    fprintf(stderr, "simple-bench water: %s: energy drift %g is over 1e-3\n", c->name, v[0]);
    c->bad = 1;
    return 1;
  }
  return 0;
}

static void wusage(FILE *f) {
  fprintf(f,
          "usage: simple-bench water [-N NODES] [-t THREADS] [--vcluster] [--quick]\n"
          "                          [--rounds R] [--molecules M] [--steps S] [--csv FILE]\n"
          "  speedup of simple-water from 1 thread to NODES x THREADS processors\n"
          "  (default 1728 molecules, 3 steps; --quick: 512 molecules, 2 steps)\n");
}

int bench_water_suite(int argc, char **argv) {
  static bench_speedup_t b = {.suite = "water", .nextra = 1, .check = wcheck};
  long mol = 0, steps = 0;
  const bench_opt_t opts[] = {{"--molecules", BENCH_NUM, &mol, SIMPLE_WATER_MIN_MOLECULES,
                               SIMPLE_WATER_MAX_MOLECULES, NULL},
                              {"--steps", BENCH_NUM, &steps, 1, 1000, NULL},
                              {0}};
  int rc = bench_speedup_parse(&b, argc, argv, opts, wusage);
  if (rc) return rc < 0 ? 0 : rc;
  if (!mol) mol = b.c.quick ? 512 : 1728;
  if (!steps) steps = b.c.quick ? 2 : 3;
  if (bench_speedup_start(&b)) return 1;
  long N = b.c.N, T = b.c.T;
  char args[96], flat[32], mid[48];
  snprintf(args, sizeof args, "--molecules %ld --steps %ld", mol, steps);
  bench_speedup_ladder(&b, 2, "water", args);
  if (N > 1) {
    snprintf(flat, sizeof flat, "flat %ld", N * T);
    bench_speedup_cluster(&b, flat, N * T, "water", args);
  }
  printf(
      "simple-bench water: simple_water, %ld molecules, %ld steps, 1 to %ld processor(s); %s, "
      "%d core(s), %ld round(s)\n",
      mol, steps, N * T, bench_speedup_where(&b), b.c.pl.cores, b.c.rounds);
  fflush(stdout);
  if (bench_speedup_rounds(&b, NULL)) return 1;
  snprintf(mid, sizeof mid, "%ld,%ld", mol, steps);
  if (bench_speedup_table(&b, "molecules,steps", mid)) return 1;
  printf(
      "speedup = T(1x1) / T (medians over rounds, the steps' wall time, max over processors); "
      "every run's energy drift checked under 1e-3; target: 1x2 speedup >= 1.7\n");
  return 0;
}
