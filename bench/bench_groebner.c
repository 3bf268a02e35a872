/* simple-bench groebner: the speedup of simple_groebner (paper 003's
 * Groebner basis, Figure 5) against the processor count, in one
 * invocation.
 *
 * Jobs (one "configuration" each): 1 node x t threads for t = 1, 2, 4, ...
 * up to THREADS (and THREADS itself), then, with NODES > 1, NODES nodes x
 * THREADS threads, and the same processors as flat MPI (one process of one
 * thread each: BENCH_FLAT). Each round runs every job once, in an order
 * that alternates round by round (forward, then backward), and the driver
 * prints the median time over rounds per configuration, the speedup
 * T(1 thread) / T(config) and the efficiency speedup / p. Every run's
 * basis is checked (reduced, every S-pair reducing to zero) on its first
 * processor; a run that fails it fails the benchmark. Workers print
 * "R groebner <nodes> <threads> <p> <seconds> <ok>". */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simple.h>

#include "bench.h"
#include "simple_groebner.h"

#define G_MAX_CONF   16
#define G_MAX_ROUNDS 32

typedef struct {
  int cyclic, n, failed;
} gargs_t;

static void gworker(simple_t *s, void *arg) {
  gargs_t *a = arg;
  simple_groebner_result_t r;
  int rc =
      simple_groebner(s, a->cyclic ? SIMPLE_GROEBNER_CYCLIC : SIMPLE_GROEBNER_KATSURA, a->n, &r);
  if (rc) {
    if (simple_pid(s) == 0)
      fprintf(stderr, "simple-bench groebner: simple_groebner failed: %s\n", simple_strerror(rc));
    if (simple_thread(s) == 0) a->failed = 1;
    return;
  }
  if (simple_pid(s) == 0) {
    int ok = simple_groebner_is_reduced_basis(r.polys, r.npolys);
    printf("R groebner %d %d %d %.6f %d\n", simple_nodes(s), simple_threads(s), simple_nprocs(s),
           r.time_s, ok);
    fflush(stdout);
  }
  simple_groebner_free(&r);
}

int bench_groebner_worker(int argc, char **argv, const bench_opts_t *o) {
  (void)o;
  gargs_t a = {0, 6, 0};
  for (int i = 3; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--cyclic") == 0)
      a.cyclic = 1, a.n = atoi(argv[++i]);
    else if (strcmp(argv[i], "--katsura") == 0)
      a.cyclic = 0, a.n = atoi(argv[++i]);
  }
  int rc = simple_run(&argc, &argv, gworker, &a);
  return rc ? 1 : a.failed;
}

typedef struct {
  char name[32];
  long nodes, threads, p;
  double t[G_MAX_ROUNDS];
  int n, bad;
  char cmd[2 * PATH_MAX + 512];
} gconf_t;

static int gline(const char *line, void *arg) {
  gconf_t *c = arg;
  int nodes, threads, p, ok;
  double sec;
  if (sscanf(line, "R groebner %d %d %d %lf %d", &nodes, &threads, &p, &sec, &ok) != 5) return 0;
  if (!ok) {
    fprintf(stderr, "simple-bench groebner: %s: not a reduced Groebner basis\n", c->name);
    c->bad = 1;
    return 1;
  }
  if (c->n < G_MAX_ROUNDS) c->t[c->n++] = sec;
  return 1;
}

static void gusage(FILE *f) {
  fprintf(f,
          "usage: simple-bench groebner [-N NODES] [-t THREADS] [--vcluster] [--quick]\n"
          "                             [--rounds R] [--cyclic N | --katsura N] [--csv FILE]\n"
          "  speedup of simple-groebner from 1 thread to NODES x THREADS processors\n"
          "  (default katsura-6; --quick: katsura-5)\n");
}

int bench_groebner_suite(int argc, char **argv) {
  long N = -1, T = 2, rounds = -1, cyc = 0, kat = 0;
  int quick = 0, vcluster = 0;
  const char *csv = NULL;
  const bench_opt_t opts[] = {{"--quick", BENCH_FLAG, &quick, 0, 0},
                              {"--vcluster", BENCH_FLAG, &vcluster, 0, 0},
                              {"-N", BENCH_NUM, &N, 1, 256},
                              {"-t", BENCH_NUM, &T, 1, 1024},
                              {"--rounds", BENCH_NUM, &rounds, 1, G_MAX_ROUNDS},
                              {"--cyclic", BENCH_NUM, &cyc, 2, SIMPLE_GROEBNER_MAXV},
                              {"--katsura", BENCH_NUM, &kat, 1, SIMPLE_GROEBNER_MAXV - 1},
                              {"--csv", BENCH_WORD, &csv, 0, 0},
                              {NULL, 0, NULL, 0, 0}};
  int rc = bench_parse(argc, argv, opts, gusage);
  if (rc) return rc == 1 ? 0 : rc;
  if (N < 0) N = vcluster ? 2 : 1;
  if (rounds < 0) rounds = quick ? 1 : 3;
  if (!cyc && !kat) kat = quick ? 5 : 6;
  FILE *out;
  if (bench_open_csv(csv, &out)) return 1;
  bench_place_t pl;
  bench_place(&pl, vcluster, N * T);
  char args[96], sys[32];
  snprintf(args, sizeof args, cyc ? "--cyclic %ld" : "--katsura %ld", cyc ? cyc : kat);
  snprintf(sys, sizeof sys, cyc ? "cyclic-%ld" : "katsura-%ld", cyc ? cyc : kat);
  static gconf_t conf[G_MAX_CONF];
  int nc = 0;
  /* One node, 1 thread up to T (powers of two, and T). */
  for (long t = 1; nc < G_MAX_CONF - 2; t *= 2) {
    long tt = t < T ? t : T;
    gconf_t *c = &conf[nc++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "1x%ld", tt);
    c->nodes = 1, c->threads = tt, c->p = tt;
    bench_worker_cmd(c->cmd, sizeof c->cmd, &pl, 0, BENCH_HYBRID, 1, tt, "", "groebner", args);
    if (tt == T) break;
  }
  if (N > 1) {
    gconf_t *c = &conf[nc++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%ldx%ld", N, T);
    c->nodes = N, c->threads = T, c->p = N * T;
    bench_worker_cmd(c->cmd, sizeof c->cmd, &pl, vcluster, BENCH_HYBRID, N, T, "", "groebner",
                     args);
    c = &conf[nc++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "flat %ld", N * T);
    c->nodes = N * T, c->threads = 1, c->p = N * T;
    bench_worker_cmd(c->cmd, sizeof c->cmd, &pl, vcluster, BENCH_FLAT, N, T, "", "groebner", args);
  }
  printf(
      "simple-bench groebner: simple_groebner, %s, 1 to %ld processor(s); %s, "
      "%d core(s), %ld round(s)\n",
      sys, N * T,
      vcluster   ? "virtual cluster"
      : pl.multi ? "Slurm"
                 : "one host",
      pl.cores, rounds);
  fflush(stdout);
  for (long r = 0; r < rounds; r++) {
    fprintf(stderr, "  round %ld/%ld\n", r + 1, rounds);
    for (int k = 0; k < nc; k++) {
      gconf_t *c = &conf[(r % 2) ? nc - 1 - k : k];
      if (bench_run_worker(c->cmd, gline, c) != 0) {
        if (out) fclose(out);
        return 1;
      }
    }
  }
  double t1 = bench_median(conf[0].t, (size_t)conf[0].n);
  if (out) fprintf(out, "suite,config,nodes,threads,p,system,time_s,speedup,efficiency\n");
  printf("%-10s %4s %10s %8s %10s\n", "config", "p", "time_s", "speedup", "efficiency");
  for (int k = 0; k < nc; k++) {
    gconf_t *c = &conf[k];
    if (c->n < rounds || c->bad) {
      fprintf(stderr, "simple-bench groebner: %s reported %d of %ld rounds\n", c->name, c->n,
              rounds);
      if (out) fclose(out);
      return 1;
    }
    double t = bench_median(c->t, (size_t)c->n);
    printf("%-10s %4ld %10.4f %8.3f %9.1f%%\n", c->name, c->p, t, t1 / t,
           100.0 * t1 / t / (double)c->p);
    if (out)
      fprintf(out, "groebner,%s,%ld,%ld,%ld,%s,%.6f,%.4f,%.4f\n", c->name, c->nodes, c->threads,
              c->p, sys, t, t1 / t, t1 / t / (double)c->p);
  }
  if (out && fclose(out) != 0) return 1;
  printf(
      "speedup = T(1x1) / T (medians over rounds, Buchberger's wall time, max over "
      "processors); every run's basis checked as a reduced Groebner basis\n");
  return 0;
}
