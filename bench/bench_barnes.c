/* simple-bench barnes: simple_barnes (paper 003's Barnes-Hut, Figure 6)
 * against the processor count, and its node-shared object cache against
 * one cache per process, in one invocation.
 *
 * Jobs: 1 node x t threads for t = 1, 2, 4, ... up to THREADS; the same
 * THREADS processors as flat MPI on one host (THREADS processes of one
 * thread: one cache per process); with NODES > 1, NODES x THREADS and its
 * flat placement (NODES hosts x THREADS processes). Rounds alternate the
 * order of the jobs. Per configuration the driver prints the median time,
 * the speedup T(1x1) / T, the remote cells fetched and their bytes per
 * host (a count: the same in every round), and for each hybrid job the
 * ratio of its fetches to those of the flat job on the same processors
 * (target <= 1 / THREADS). Every run checks its forces on 50 bodies
 * against the direct sum (rms < 0.08 theta^2) and fails the benchmark
 * otherwise. Workers print
 * "R barnes <nodes> <threads> <p> <seconds> <fetches> <bytes> <rms_err>". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simple.h>

#include "bench.h"
#include "simple_barnes.h"

#define B_SAMPLE 50

typedef struct {
  int bodies, steps, failed;
} bargs_t;

static void bworker(simple_t *s, void *arg) {
  bargs_t *a = arg;
  simple_barnes_opts_t o = {a->bodies, a->steps, 0, 0, 0, 1, 0};
  simple_barnes_result_t r;
  size_t n = (size_t)a->bodies;
  double *pos = malloc(24 * n), *acc = malloc(24 * n), *p0 = malloc(24 * n), *v0 = malloc(24 * n),
         *m = malloc(8 * n);
  if (!pos || !acc || !p0 || !v0 || !m) simple_abort(s, "simple-bench barnes: out of memory");
  int rc = simple_barnes(s, &o, &r, pos, acc);
  double f[2] = {0, 0};
  if (!rc && simple_thread(s) == 0) f[0] = (double)r.cache.fetches, f[1] = (double)r.cache.bytes;
  simple_allreduce(s, SIMPLE_IN_PLACE, f, 2, SIMPLE_DOUBLE, SIMPLE_SUM);
  if (!bench_speedup_failed(s, "barnes", "simple_barnes", rc, &a->failed) && simple_pid(s) == 0) {
    simple_barnes_bodies(&o, p0, v0, m);
    double es = 0;
    for (int j = 0; j < B_SAMPLE; j++) {
      int i = (int)((long)j * a->bodies / B_SAMPLE);
      double d[3], e = 0, an = 0;
      simple_barnes_direct(a->bodies, pos, m, 0.025, i, d);
      for (int k = 0; k < 3; k++) e += pow(acc[3 * i + k] - d[k], 2), an += d[k] * d[k];
      es += e / an;
    }
    printf("R barnes %d %d %d %.6f %.0f %.0f %.3e\n", simple_nodes(s), simple_threads(s),
           simple_nprocs(s), r.time_s, f[0], f[1], sqrt(es / B_SAMPLE));
    fflush(stdout);
  }
  free(pos), free(acc), free(p0), free(v0), free(m);
}

int bench_barnes_worker(int argc, char **argv, const bench_opts_t *o) {
  (void)o;
  bargs_t a = {atoi(bench_speedup_arg(argc, argv, "--bodies", "25000")),
               atoi(bench_speedup_arg(argc, argv, "--steps", "2")), 0};
  int rc = simple_run(&argc, &argv, bworker, &a);
  return rc ? 1 : a.failed;
}

/* Keeps a run's fetches and bytes; a force error over 0.02 fails the
 * benchmark (the run's time still counts). */
static int bcheck(bench_speedup_conf_t *c, const double *v) {
  if (!(v[2] < 0.02)) {
    fprintf(stderr, "simple-bench barnes: %s: rms force error %g is over 0.02\n", c->name, v[2]);
    c->bad = 1;
  }
  c->value[0] = v[0], c->value[1] = v[1];
  return 0;
}

static void busage(FILE *f) {
  fprintf(f,
          "usage: simple-bench barnes [-N NODES] [-t THREADS] [--vcluster] [--quick]\n"
          "                           [--rounds R] [--bodies N] [--steps S] [--csv FILE]\n"
          "  speedup of simple-barnes from 1 thread to NODES x THREADS processors, and its\n"
          "  node-shared cache against one cache per process (flat placement)\n"
          "  (default 25000 bodies, 2 steps; --quick: 5000 bodies, 1 step)\n");
}

int bench_barnes_suite(int argc, char **argv) {
  static bench_speedup_t b = {.suite = "barnes", .nextra = 3, .check = bcheck};
  long bodies = 0, steps = 0;
  const bench_opt_t opts[] = {{"--bodies", BENCH_NUM, &bodies, 2, SIMPLE_BARNES_MAX_BODIES, NULL},
                              {"--steps", BENCH_NUM, &steps, 0, 1000, NULL},
                              {0}};
  int rc = bench_speedup_parse(&b, argc, argv, opts, busage);
  if (rc) return rc < 0 ? 0 : rc;
  if (!bodies) bodies = b.c.quick ? 5000 : 25000;
  if (!steps) steps = b.c.quick ? 1 : 2;
  if (bench_speedup_start(&b)) return 1;
  long N = b.c.N, T = b.c.T;
  char args[96], name[32];
  snprintf(args, sizeof args, "--bodies %ld --steps %ld", bodies, steps);
  int one_t = bench_speedup_ladder(&b, 4, "barnes", args);
  if (T > 1) {
    snprintf(name, sizeof name, "flat 1x%ld", T);
    bench_speedup_conf_t *c = bench_speedup_add(&b, name, T, 1, 1, T);
    c->flat = 1;
    /* One host, T single-thread processes: a cache per process. */
    bench_place_t one = b.c.pl;
    one.multi = 0;
    bench_worker_cmd(c->cmd, sizeof c->cmd, &one, 0, BENCH_FLAT, 1, T, "", "barnes", args);
    b.conf[one_t].ref = b.nc - 1;
  }
  if (N > 1) {
    snprintf(name, sizeof name, "flat %ldx%ld", N, T);
    bench_speedup_cluster(&b, name, N * T, "barnes", args);
  }
  printf(
      "simple-bench barnes: simple_barnes, %ld bodies (Plummer), %ld step(s), 1 to %ld "
      "processor(s); %s, %d core(s), %ld round(s)\n",
      bodies, steps, N * T, bench_speedup_where(&b), b.c.pl.cores, b.c.rounds);
  fflush(stdout);
  if (bench_speedup_rounds(&b, NULL)) return 1;
  for (int k = 0; k < b.nc; k++)
    if (bench_speedup_short(&b, &b.conf[k], "failed or reported")) return 1;
  bench_speedup_conf_t *conf = b.conf;
  double t1 = bench_median(conf[0].t, (size_t)conf[0].n);
  if (b.c.out)
    fprintf(b.c.out,
            "suite,config,hosts,p,bodies,steps,time_s,speedup,fetches_per_host,"
            "bytes_per_host,fetch_ratio_vs_flat\n");
  printf("%-12s %4s %10s %8s %16s %16s %12s\n", "config", "p", "time_s", "speedup", "fetches/host",
         "bytes/host", "vs flat");
  for (int k = 0; k < b.nc; k++) {
    bench_speedup_conf_t *c = &conf[k];
    double t = bench_median(c->t, (size_t)c->n);
    double fetches = c->value[0], bytes = c->value[1];
    double ratio = c->ref >= 0 && conf[c->ref].value[0] > 0 ? fetches / conf[c->ref].value[0] : NAN;
    printf("%-12s %4ld %10.4f %8.3f %16.0f %16.0f %12.3f\n", c->name, c->p, t, t1 / t,
           fetches / (double)c->hosts, bytes / (double)c->hosts, ratio);
    if (b.c.out)
      fprintf(b.c.out, "barnes,%s,%ld,%ld,%ld,%ld,%.6f,%.4f,%.0f,%.0f,%.4f\n", c->name, c->hosts,
              c->p, bodies, steps, t, t1 / t, fetches / (double)c->hosts, bytes / (double)c->hosts,
              ratio);
  }
  if (bench_suite_finish(&b.c)) return 1;
  printf(
      "speedup = T(1x1) / T (medians, the steps' wall time); fetches and bytes: remote tree "
      "cells brought into caches per host over the run (counts, the same every round); vs "
      "flat = fetches of the hybrid job / those of the flat job on the same processors "
      "(target <= 1/%ld); targets: 1x2 speedup >= 1.7\n",
      T);
  return 0;
}
