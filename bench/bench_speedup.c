/* The shape the speedup suites of the applications share (bench_water.c,
 * bench_barnes.c, bench_groebner.c, and the options and rounds of
 * bench_cholesky.c): the common options, the table of configurations,
 * the alternating rounds, the "R <suite> <nodes> <threads> <p> <seconds>
 * ..." lines of the workers and the speedup / efficiency table. Each suite
 * keeps only what differs: its application call, its own options and
 * checks, and its extra columns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simple.h>

#include "bench.h"

int bench_speedup_parse(bench_speedup_t *b, int argc, char **argv, const bench_opt_t *extra,
                        void (*usage)(FILE *)) {
  b->c.T = 2, b->c.rounds = 3, b->nc = 0;
  return bench_suite_parse(&b->c, argc, argv, BENCH_ROUNDS, extra, usage);
}

int bench_speedup_start(bench_speedup_t *b) { return bench_suite_start(&b->c, b->c.N * b->c.T); }

const char *bench_speedup_where(const bench_speedup_t *b) {
  return bench_where(b->c.vcluster, b->c.pl.multi);
}

bench_speedup_conf_t *bench_speedup_add(bench_speedup_t *b, const char *name, long nodes,
                                        long threads, long hosts, long p) {
  if (b->nc >= BENCH_SPEEDUP_MAX_CONF) return NULL;
  bench_speedup_conf_t *c = &b->conf[b->nc++];
  memset(c, 0, sizeof *c);
  snprintf(c->name, sizeof c->name, "%s", name);
  c->nodes = nodes, c->threads = threads, c->hosts = hosts, c->p = p, c->ref = -1;
  return c;
}

int bench_speedup_ladder(bench_speedup_t *b, int room, const char *worker, const char *args) {
  char name[32];
  for (long t = 1; b->nc < BENCH_SPEEDUP_MAX_CONF - room; t *= 2) {
    long tt = t < b->c.T ? t : b->c.T;
    snprintf(name, sizeof name, "1x%ld", tt);
    bench_speedup_conf_t *c = bench_speedup_add(b, name, 1, tt, 1, tt);
    bench_worker_cmd(c->cmd, sizeof c->cmd, &b->c.pl, 0, BENCH_HYBRID, 1, tt, "", worker, args);
    if (tt == b->c.T) return b->nc - 1;
  }
  return -1;
}

void bench_speedup_cluster(bench_speedup_t *b, const char *flat_name, long flat_nodes,
                           const char *worker, const char *args) {
  char name[32];
  long N = b->c.N, T = b->c.T;
  snprintf(name, sizeof name, "%ldx%ld", N, T);
  bench_speedup_conf_t *c = bench_speedup_add(b, name, N, T, N, N * T);
  bench_worker_cmd(c->cmd, sizeof c->cmd, &b->c.pl, b->c.vcluster, BENCH_HYBRID, N, T, "", worker,
                   args);
  c = bench_speedup_add(b, flat_name, flat_nodes, 1, N, N * T);
  c->flat = 1;
  bench_worker_cmd(c->cmd, sizeof c->cmd, &b->c.pl, b->c.vcluster, BENCH_FLAT, N, T, "", worker,
                   args);
  b->conf[b->nc - 2].ref = b->nc - 1;
}

typedef struct {
  bench_speedup_t *b;
  bench_speedup_conf_t *c;
} speedup_ctx_t;

/* "R <suite> <nodes> <threads> <p> <seconds>" and then b->nextra numbers,
 * which b->check sees (and may keep); it returns nonzero to drop the
 * round's time (a run that failed its check). */
static int speedup_line(const char *line, void *arg) {
  speedup_ctx_t *x = arg;
  char suite[32];
  int nodes, threads, p;
  double sec, v[BENCH_SPEEDUP_MAX_VALUES];
  int got = sscanf(line, "R %31s %d %d %d %lf %lf %lf %lf", suite, &nodes, &threads, &p, &sec,
                   &v[0], &v[1], &v[2]);
  if (got != 5 + x->b->nextra || strcmp(suite, x->b->suite) != 0) return 0;
  if (x->b->check && x->b->check(x->c, v) != 0) return 1;
  if (x->c->n < BENCH_ROUNDS) x->c->t[x->c->n++] = sec;
  return 1;
}

typedef struct {
  bench_speedup_t *b;
  bench_line_fn *fn;
} speedup_round_t;

static int speedup_conf(int k, long round, void *ctx) {
  speedup_round_t *s = ctx;
  bench_speedup_conf_t *c = &s->b->conf[k];
  speedup_ctx_t x = {s->b, c};
  (void)round;
  return bench_run_worker(c->cmd, s->fn ? s->fn : speedup_line, s->fn ? (void *)c : (void *)&x);
}

int bench_speedup_rounds(bench_speedup_t *b, bench_line_fn *fn) {
  speedup_round_t s = {b, fn};
  if (bench_alternate(b->c.rounds, b->nc, speedup_conf, &s) == 0) return 0;
  bench_suite_close(&b->c);
  return 1;
}

int bench_speedup_short(bench_speedup_t *b, const bench_speedup_conf_t *c, const char *what) {
  if (c->n >= b->c.rounds && !c->bad) return 0;
  fprintf(stderr, "simple-bench %s: %s %s %d of %ld rounds\n", b->suite, c->name, what, c->n,
          b->c.rounds);
  bench_suite_close(&b->c);
  return 1;
}

int bench_speedup_table(bench_speedup_t *b, const char *csv_head, const char *csv_mid) {
  double t1 = bench_median(b->conf[0].t, (size_t)b->conf[0].n);
  if (b->c.out)
    fprintf(b->c.out, "suite,config,nodes,threads,p,%s,time_s,speedup,efficiency\n", csv_head);
  printf("%-10s %4s %10s %8s %10s\n", "config", "p", "time_s", "speedup", "efficiency");
  for (int k = 0; k < b->nc; k++) {
    bench_speedup_conf_t *c = &b->conf[k];
    if (bench_speedup_short(b, c, "reported")) return 1;
    double t = bench_median(c->t, (size_t)c->n);
    printf("%-10s %4ld %10.4f %8.3f %9.1f%%\n", c->name, c->p, t, t1 / t,
           100.0 * t1 / t / (double)c->p);
    if (b->c.out)
      fprintf(b->c.out, "%s,%s,%ld,%ld,%ld,%s,%.6f,%.4f,%.4f\n", b->suite, c->name, c->nodes,
              c->threads, c->p, csv_mid, t, t1 / t, t1 / t / (double)c->p);
  }
  return bench_suite_finish(&b->c);
}

const char *bench_speedup_arg(int argc, char **argv, const char *key, const char *dflt) {
  for (int i = 3; i + 1 < argc; i++)
    if (strcmp(argv[i], key) == 0) return argv[i + 1];
  return dflt;
}

int bench_speedup_failed(simple_t *s, const char *suite, const char *app, int rc, int *failed) {
  if (!rc) return 0;
  if (simple_pid(s) == 0)
    fprintf(stderr, "simple-bench %s: %s failed: %s\n", suite, app, simple_strerror(rc));
  if (simple_thread(s) == 0) *failed = 1;
  return 1;
}
