/* simple-barnes: Barnes-Hut N-body with every thread of the job
 * (simple_barnes), the tree's cells read through the node-shared object
 * cache; verified against direct O(n^2) forces on a sample of bodies and by
 * momentum conservation.
 *
 *   simple-barnes [--bodies N] [--steps S] [--theta T] [--per-thread-cache] [--json]
 *   simplerun -N 2 -t 2 build/bin/simple-barnes --json
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simple.h>

#include "../common/app_cli.h"
#include "simple_barnes.h"

/* Tolerances of the verification, stated in docs/barnes.md. */
#define SAMPLE             200
#define RMS_ERR_PER_THETA2 0.08 /* rms relative force error / theta^2 */
#define MAX_ERR_PER_THETA2 0.4  /* largest relative force error / theta^2 */
#define MOMENTUM_TOL       1e-3 /* |P_end - P_start| / sum m|v| */

typedef struct {
  simple_barnes_opts_t o;
  int json, status;
} cmd_t;

static void usage(FILE *f) {
  fprintf(f,
          "usage: simple-barnes [--bodies N] [--steps S] [--theta T] [--seed X] "
          "[--per-thread-cache] [--json]\n"
          "  --bodies N          bodies of a Plummer model, 2..%d (default 25000)\n"
          "  --steps S           time steps of 0.025, 0..100000 (default 2)\n"
          "  --theta T           opening angle, (0, 1.2] (default 0.5)\n"
          "  --seed X            the model's draw (default 1)\n"
          "  --per-thread-cache  one cache per thread instead of one per node\n"
          "  --json              print one JSON object\n",
          SIMPLE_BARNES_MAX_BODIES);
}

static void run(simple_t *s, void *arg) {
  cmd_t *c = arg;
  int n = c->o.bodies;
  double *pos = malloc(24 * (size_t)n), *acc = malloc(24 * (size_t)n);
  double *p0 = malloc(24 * (size_t)n), *v0 = malloc(24 * (size_t)n), *m = malloc(8 * (size_t)n);
  if (!pos || !acc || !p0 || !v0 || !m) simple_abort(s, "simple-barnes: out of memory");
  simple_barnes_result_t r;
  int rc = simple_barnes(s, &c->o, &r, pos, acc);
  if (rc) {
    if (simple_pid(s) == 0)
      fprintf(stderr, "simple-barnes: simple_barnes failed: %s (%s)\n", simple_strerror(rc),
              simple_errname(rc));
    if (simple_thread(s) == 0) c->status = 1;
  }
  /* The node's remote fetches, summed over nodes (thread 0 of each). */
  double f[2] = {simple_thread(s) == 0 && !rc ? (double)r.cache.fetches : 0,
                 simple_thread(s) == 0 && !rc ? (double)r.cache.bytes : 0};
  simple_allreduce(s, SIMPLE_IN_PLACE, f, 2, SIMPLE_DOUBLE, SIMPLE_SUM);
  if (!rc && simple_pid(s) == 0) {
    simple_barnes_bodies(&c->o, p0, v0, m);
    double emax = 0, esum = 0;
    int k = n < SAMPLE ? n : SAMPLE;
    for (int j = 0; j < k; j++) {
      int i = (int)((long)j * n / k);
      double a[3];
      simple_barnes_direct(n, pos, m, c->o.eps ? c->o.eps : 0.025, i, a);
      double d = 0, an = 0;
      for (int q = 0; q < 3; q++) d += pow(acc[3 * i + q] - a[q], 2), an += a[q] * a[q];
      double e = sqrt(d / an);
      emax = fmax(emax, e);
      esum += e * e;
    }
    double th = c->o.theta ? c->o.theta : 0.5;
    double dp = sqrt(pow(r.p_end[0] - r.p_start[0], 2) + pow(r.p_end[1] - r.p_start[1], 2) +
                     pow(r.p_end[2] - r.p_start[2], 2)) /
                r.p_scale;
    double rms = sqrt(esum / k);
    int ok = rms < RMS_ERR_PER_THETA2 * th * th && emax < MAX_ERR_PER_THETA2 * th * th &&
             dp < MOMENTUM_TOL;
    if (!ok) c->status = 1;
    if (c->json)
      printf(
          "{\"app\":\"barnes\",\"bodies\":%d,\"steps\":%d,\"theta\":%g,\"sample\":%d,"
          "\"max_rel_err\":%.3e,\"rms_rel_err\":%.3e,\"max_err_tol\":%.3e,\"rms_err_tol\":%.3e,"
          "\"momentum_err\":%.3e,"
          "\"momentum_tol\":%g,\"fetches\":%.0f,\"fetch_bytes\":%.0f,\"cache\":\"%s\","
          "\"verified\":%s,\"time_s\":%.6f,\"nodes\":%d,\"threads\":%d,\"processors\":%d}\n",
          n, c->o.steps, th, k, emax, rms, MAX_ERR_PER_THETA2 * th * th,
          RMS_ERR_PER_THETA2 * th * th, dp, MOMENTUM_TOL, f[0], f[1],
          c->o.per_thread_cache ? "thread" : "node", ok ? "true" : "false", r.time_s,
          simple_nodes(s), simple_threads(s), simple_nprocs(s));
    else
      printf(
          "barnes: %d bodies, %d steps in %.3f s on %d processor(s): force error rms %.2e "
          "max %.2e (tolerances %.2e, %.2e), momentum error %.2e; %.0f remote cells "
          "fetched; %s\n",
          n, c->o.steps, r.time_s, simple_nprocs(s), rms, emax, RMS_ERR_PER_THETA2 * th * th,
          MAX_ERR_PER_THETA2 * th * th, dp, f[0], ok ? "verified" : "NOT VERIFIED");
    fflush(stdout);
  }
  free(pos), free(acc), free(p0), free(v0), free(m);
}

int main(int argc, char **argv) {
  app_version(argc, argv, "simple-barnes");
  cmd_t c;
  memset(&c, 0, sizeof c);
  c.o = (simple_barnes_opts_t){25000, 2, 0.025, 0.5, 0.025, 1, 0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    long x;
    if (!strcmp(a, "--json")) {
      c.json = 1;
    } else if (!strcmp(a, "--per-thread-cache")) {
      c.o.per_thread_cache = 1;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--bodies") || !strcmp(a, "--steps") || !strcmp(a, "--seed")) {
      i++;
      long lo = !strcmp(a, "--bodies") ? 2 : 0;
      long hi = !strcmp(a, "--bodies")  ? SIMPLE_BARNES_MAX_BODIES
                : !strcmp(a, "--steps") ? 100000
                                        : 4294967295L;
      if (app_parse_long(v, &x) || x < lo || x > hi) {
        fprintf(stderr, "simple-barnes: %s needs a whole number from %ld to %ld, not '%s'\n", a, lo,
                hi, v ? v : "");
        return 2;
      }
      if (!strcmp(a, "--bodies"))
        c.o.bodies = (int)x;
      else if (!strcmp(a, "--steps"))
        c.o.steps = (int)x;
      else
        c.o.seed = (unsigned)x;
    } else if (!strcmp(a, "--theta")) {
      i++;
      char *end;
      double d = v ? strtod(v, &end) : 0;
      if (!v || !*v || *end || !(d > 0) || d > 1.2) {
        fprintf(stderr, "simple-barnes: --theta needs an angle in (0, 1.2], not '%s'\n",
                v ? v : "");
        return 2;
      }
      c.o.theta = d;
    } else {
      fprintf(stderr, "simple-barnes: unknown argument '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  int rc = simple_run(&argc, &argv, run, &c);
  if (rc) return 1;
  return c.status;
}
