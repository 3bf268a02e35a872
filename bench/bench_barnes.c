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
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simple.h>

#include "bench.h"
#include "simple_barnes.h"

#define B_MAX_CONF   16
#define B_MAX_ROUNDS 32
#define B_SAMPLE     50

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
  if (rc) {
    if (simple_pid(s) == 0)
      fprintf(stderr, "simple-bench barnes: simple_barnes failed: %s\n", simple_strerror(rc));
    if (simple_thread(s) == 0) a->failed = 1;
  } else if (simple_pid(s) == 0) {
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
  bargs_t a = {25000, 2, 0};
  for (int i = 3; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--bodies") == 0)
      a.bodies = atoi(argv[++i]);
    else if (strcmp(argv[i], "--steps") == 0)
      a.steps = atoi(argv[++i]);
  }
  int rc = simple_run(&argc, &argv, bworker, &a);
  return rc ? 1 : a.failed;
}

typedef struct {
  char name[32];
  long hosts, p;
  int flat, ref; /* ref: the flat configuration on the same processors, -1 none */
  double t[B_MAX_ROUNDS], fetches, bytes;
  int n, bad;
  char cmd[2 * PATH_MAX + 512];
} bconf_t;

static int bline(const char *line, void *arg) {
  bconf_t *c = arg;
  int nodes, threads, p;
  double sec, fe, by, err;
  if (sscanf(line, "R barnes %d %d %d %lf %lf %lf %lf", &nodes, &threads, &p, &sec, &fe, &by,
             &err) != 7)
    return 0;
  if (!(err < 0.02)) {
    fprintf(stderr, "simple-bench barnes: %s: rms force error %g is over 0.02\n", c->name, err);
    c->bad = 1;
  }
  if (c->n < B_MAX_ROUNDS) c->t[c->n++] = sec;
  c->fetches = fe, c->bytes = by;
  return 1;
}

static void busage(FILE *f) {
  fprintf(f,
          "usage: simple-bench barnes [-N NODES] [-t THREADS] [--vcluster] [--quick]\n"
          "                           [--rounds R] [--bodies N] [--steps S] [--csv FILE]\n"
          "  speedup of simple-barnes from 1 thread to NODES x THREADS processors, and its\n"
          "  node-shared cache against one cache per process (flat placement)\n"
          "  (default 25000 bodies, 2 steps; --quick: 5000 bodies, 1 step)\n");
}

static bconf_t *bconf(bconf_t *conf, int *nc, const char *name, long hosts, long p, int flat) {
  bconf_t *c = &conf[(*nc)++];
  memset(c, 0, sizeof *c);
  snprintf(c->name, sizeof c->name, "%s", name);
  c->hosts = hosts, c->p = p, c->flat = flat, c->ref = -1;
  return c;
}

int bench_barnes_suite(int argc, char **argv) {
  long N = -1, T = 2, rounds = -1, bodies = 0, steps = 0;
  int quick = 0, vcluster = 0;
  const char *csv = NULL;
  const bench_opt_t opts[] = {{"--quick", BENCH_FLAG, &quick, 0, 0},
                              {"--vcluster", BENCH_FLAG, &vcluster, 0, 0},
                              {"-N", BENCH_NUM, &N, 1, 256},
                              {"-t", BENCH_NUM, &T, 1, 1024},
                              {"--rounds", BENCH_NUM, &rounds, 1, B_MAX_ROUNDS},
                              {"--bodies", BENCH_NUM, &bodies, 2, SIMPLE_BARNES_MAX_BODIES},
                              {"--steps", BENCH_NUM, &steps, 0, 1000},
                              {"--csv", BENCH_WORD, &csv, 0, 0},
                              {NULL, 0, NULL, 0, 0}};
  int rc = bench_parse(argc, argv, opts, busage);
  if (rc) return rc == 1 ? 0 : rc;
  if (N < 0) N = vcluster ? 2 : 1;
  if (rounds < 0) rounds = quick ? 1 : 3;
  if (!bodies) bodies = quick ? 5000 : 25000;
  if (!steps) steps = quick ? 1 : 2;
  FILE *out;
  if (bench_open_csv(csv, &out)) return 1;
  bench_place_t pl;
  bench_place(&pl, vcluster, N * T);
  char args[96], name[32];
  snprintf(args, sizeof args, "--bodies %ld --steps %ld", bodies, steps);
  static bconf_t conf[B_MAX_CONF];
  int nc = 0;
  int one_t = -1;
  for (long t = 1; nc < B_MAX_CONF - 4; t *= 2) {
    long tt = t < T ? t : T;
    snprintf(name, sizeof name, "1x%ld", tt);
    bconf_t *c = bconf(conf, &nc, name, 1, tt, 0);
    bench_worker_cmd(c->cmd, sizeof c->cmd, &pl, 0, BENCH_HYBRID, 1, tt, "", "barnes", args);
    if (tt == T) {
      one_t = nc - 1;
      break;
    }
  }
  if (T > 1) {
    snprintf(name, sizeof name, "flat 1x%ld", T);
    bconf_t *c = bconf(conf, &nc, name, 1, T, 1);
    /* One host, T single-thread processes: a cache per process. */
    bench_place_t one = pl;
    one.multi = 0;
    bench_worker_cmd(c->cmd, sizeof c->cmd, &one, 0, BENCH_FLAT, 1, T, "", "barnes", args);
    conf[one_t].ref = nc - 1;
  }
  if (N > 1) {
    snprintf(name, sizeof name, "%ldx%ld", N, T);
    bconf_t *c = bconf(conf, &nc, name, N, N * T, 0);
    bench_worker_cmd(c->cmd, sizeof c->cmd, &pl, vcluster, BENCH_HYBRID, N, T, "", "barnes", args);
    snprintf(name, sizeof name, "flat %ldx%ld", N, T);
    c = bconf(conf, &nc, name, N, N * T, 1);
    bench_worker_cmd(c->cmd, sizeof c->cmd, &pl, vcluster, BENCH_FLAT, N, T, "", "barnes", args);
    conf[nc - 2].ref = nc - 1;
  }
  printf(
      "simple-bench barnes: simple_barnes, %ld bodies (Plummer), %ld step(s), 1 to %ld "
      "processor(s); %s, %d core(s), %ld round(s)\n",
      bodies, steps, N * T,
      vcluster   ? "virtual cluster"
      : pl.multi ? "Slurm"
                 : "one host",
      pl.cores, rounds);
  fflush(stdout);
  for (long r = 0; r < rounds; r++) {
    fprintf(stderr, "  round %ld/%ld\n", r + 1, rounds);
    for (int k = 0; k < nc; k++) {
      bconf_t *c = &conf[(r % 2) ? nc - 1 - k : k];
      if (bench_run_worker(c->cmd, bline, c) != 0) {
        if (out) fclose(out);
        return 1;
      }
    }
  }
  for (int k = 0; k < nc; k++)
    if (conf[k].n < rounds || conf[k].bad) {
      fprintf(stderr, "simple-bench barnes: %s failed or reported %d of %ld rounds\n", conf[k].name,
              conf[k].n, rounds);
      if (out) fclose(out);
      return 1;
    }
  double t1 = bench_median(conf[0].t, (size_t)conf[0].n);
  if (out)
    fprintf(out,
            "suite,config,hosts,p,bodies,steps,time_s,speedup,fetches_per_host,"
            "bytes_per_host,fetch_ratio_vs_flat\n");
  printf("%-12s %4s %10s %8s %16s %16s %12s\n", "config", "p", "time_s", "speedup", "fetches/host",
         "bytes/host", "vs flat");
  for (int k = 0; k < nc; k++) {
    bconf_t *c = &conf[k];
    double t = bench_median(c->t, (size_t)c->n);
    double ratio =
        c->ref >= 0 && conf[c->ref].fetches > 0 ? c->fetches / conf[c->ref].fetches : NAN;
    printf("%-12s %4ld %10.4f %8.3f %16.0f %16.0f %12.3f\n", c->name, c->p, t, t1 / t,
           c->fetches / (double)c->hosts, c->bytes / (double)c->hosts, ratio);
    if (out)
      fprintf(out, "barnes,%s,%ld,%ld,%ld,%ld,%.6f,%.4f,%.0f,%.0f,%.4f\n", c->name, c->hosts, c->p,
              bodies, steps, t, t1 / t, c->fetches / (double)c->hosts, c->bytes / (double)c->hosts,
              ratio);
  }
  if (out && fclose(out) != 0) return 1;
  printf(
      "speedup = T(1x1) / T (medians, the steps' wall time); fetches and bytes: remote tree "
      "cells brought into caches per host over the run (counts, the same every round); vs "
      "flat = fetches of the hybrid job / those of the flat job on the same processors "
      "(target <= 1/%ld); targets: 1x2 speedup >= 1.7\n",
      T);
  return 0;
}
