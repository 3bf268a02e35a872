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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simple.h>

#include "bench.h"
#include "simple_groebner.h"

typedef struct {
  simple_groebner_system_t sys;
  int n, failed;
} gargs_t;

static void gworker(simple_t *s, void *arg) {
  gargs_t *a = arg;
  simple_groebner_result_t r;
  int rc = simple_groebner(s, a->sys, a->n, &r);
  if (bench_speedup_failed(s, "groebner", "simple_groebner", rc, &a->failed)) return;
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
  const char *cyc = bench_speedup_arg(argc, argv, "--cyclic", NULL);
  const char *laz = bench_speedup_arg(argc, argv, "--lazard", NULL);
  gargs_t a = {cyc   ? SIMPLE_GROEBNER_CYCLIC
               : laz ? SIMPLE_GROEBNER_LAZARD
                     : SIMPLE_GROEBNER_KATSURA,
               atoi(cyc   ? cyc
                    : laz ? laz
                          : bench_speedup_arg(argc, argv, "--katsura", "6")),
               0};
  int rc = simple_run(&argc, &argv, gworker, &a);
  return rc ? 1 : a.failed;
}

/* Drops a run whose basis failed the check (and fails the benchmark). */
static int gcheck(bench_speedup_conf_t *c, const double *v) {
  if (!v[0]) {
    fprintf(stderr, "simple-bench groebner: %s: not a reduced Groebner basis\n", c->name);
    c->bad = 1;
    return 1;
  }
  return 0;
}

static void gusage(FILE *f) {
  fprintf(f,
          "usage: simple-bench groebner [-N NODES] [-t THREADS] [--vcluster] [--quick]\n"
          "                             [--rounds R] [--cyclic N | --katsura N | --lazard]\n"
          "                             [--csv FILE]\n"
          "  speedup of simple-groebner from 1 thread to NODES x THREADS processors\n"
          "  (default katsura-6; --quick: katsura-5; --lazard: the Arnborg-Lazard system,\n"
          "  paper 003's input)\n");
}

int bench_groebner_suite(int argc, char **argv) {
  static bench_speedup_t b = {.suite = "groebner", .nextra = 1, .check = gcheck};
  long cyc = 0, kat = 0;
  int laz = 0;
  const bench_opt_t opts[] = {{"--cyclic", BENCH_NUM, &cyc, 2, SIMPLE_GROEBNER_MAXV, NULL},
                              {"--katsura", BENCH_NUM, &kat, 1, SIMPLE_GROEBNER_MAXV - 1, NULL},
                              {"--lazard", BENCH_FLAG, &laz, 0, 0, NULL},
                              {0}};
  int rc = bench_speedup_parse(&b, argc, argv, opts, gusage);
  if (rc) return rc < 0 ? 0 : rc;
  if (!!cyc + !!kat + laz > 1) {
    fprintf(stderr, "simple-bench groebner: give one of --cyclic, --katsura, --lazard\n");
    return 2;
  }
  if (!cyc && !kat && !laz) kat = b.c.quick ? 5 : 6;
  if (bench_speedup_start(&b)) return 1;
  long N = b.c.N, T = b.c.T;
  char args[96], sys[32], flat[32];
  if (laz) {
    snprintf(args, sizeof args, "--lazard 3");
    snprintf(sys, sizeof sys, "lazard");
  } else {
    snprintf(args, sizeof args, cyc ? "--cyclic %ld" : "--katsura %ld", cyc ? cyc : kat);
    snprintf(sys, sizeof sys, cyc ? "cyclic-%ld" : "katsura-%ld", cyc ? cyc : kat);
  }
  bench_speedup_ladder(&b, 2, "groebner", args);
  if (N > 1) {
    snprintf(flat, sizeof flat, "flat %ld", N * T);
    bench_speedup_cluster(&b, flat, N * T, "groebner", args);
  }
  printf(
      "simple-bench groebner: simple_groebner, %s, 1 to %ld processor(s); %s, "
      "%d core(s), %ld round(s)\n",
      sys, N * T, bench_speedup_where(&b), b.c.pl.cores, b.c.rounds);
  fflush(stdout);
  if (bench_speedup_rounds(&b, NULL)) return 1;
  if (bench_speedup_table(&b, "system", sys)) return 1;
  printf(
      "speedup = T(1x1) / T (medians over rounds, Buchberger's wall time, max over "
      "processors); every run's basis checked as a reduced Groebner basis\n");
  return 0;
}
