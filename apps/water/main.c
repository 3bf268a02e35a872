/* simple-water: Water-nsquared molecular dynamics with every thread of the
 * job (simple_water), verified by energy conservation over the steps and
 * against a sequential run of the same code.
 *
 *   simple-water [--molecules N] [--steps S] [--dt PS] [--seed X] [--no-seq] [--json]
 *   simplerun -N 2 -t 2 build/bin/simple-water --json
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simple.h>

#include "../common/app_cli.h"
#include "simple_water.h"

/* Tolerances of the verification, stated in docs/water.md. */
#define DRIFT_TOL  1e-3 /* |E_end - E_start| / KE_end */
#define POS_TOL    1e-6 /* angstroms, final positions against the sequential run */
#define ENERGY_TOL 1e-9 /* relative, final energy against the sequential run */

typedef struct {
  simple_water_opts_t o;
  int json, seq;
  int status;
} cmd_t;

static void usage(FILE *f) {
  fprintf(f,
          "usage: simple-water [--molecules N] [--steps S] [--dt PS] [--seed X] [--no-seq] "
          "[--json]\n"
          "  --molecules N  water molecules, %d..%d (default 1728)\n"
          "  --steps S      time steps, 0..100000 (default 5)\n"
          "  --dt PS        time step in picoseconds, (0, 0.01] (default 0.0001)\n"
          "  --seed X       initial orientations and velocities (default 1)\n"
          "  --no-seq       skip the comparison with a sequential run (energy check only)\n"
          "  --json         print one JSON object\n"
          "Run on several nodes and threads with simplerun, e.g.\n"
          "  simplerun -N 2 -t 2 simple-water --molecules 512\n",
          SIMPLE_WATER_MIN_MOLECULES, SIMPLE_WATER_MAX_MOLECULES);
}

static void run(simple_t *s, void *arg) {
  cmd_t *c = arg;
  int n = c->o.molecules;
  double *pos = malloc(sizeof(double) * 9 * (size_t)n);
  if (!pos) simple_abort(s, "simple-water: out of memory");
  simple_water_result_t r;
  int rc = simple_water(s, &c->o, &r, pos);
  if (rc) {
    if (simple_pid(s) == 0)
      fprintf(stderr, "simple-water: simple_water failed: %s (%s)\n", simple_strerror(rc),
              simple_errname(rc));
    if (simple_thread(s) == 0) c->status = 1;
    free(pos);
    return;
  }
  if (simple_pid(s) == 0) {
    double dpos = -1, de = -1;
    int ok = r.drift < DRIFT_TOL && isfinite(r.e_end);
    if (c->seq) {
      double *ref = malloc(sizeof(double) * 9 * (size_t)n);
      simple_water_result_t q;
      if (!ref || simple_water_seq(&c->o, &q, ref))
        simple_abort(s, "simple-water: sequential run failed");
      dpos = 0;
      for (size_t k = 0; k < 9 * (size_t)n; k++) dpos = fmax(dpos, fabs(pos[k] - ref[k]));
      de = fabs(r.e_end - q.e_end) / fabs(q.e_end);
      ok = ok && dpos < POS_TOL && de < ENERGY_TOL;
      free(ref);
    }
    if (!ok) c->status = 1;
    if (c->json)
      printf(
          "{\"app\":\"water\",\"molecules\":%d,\"steps\":%d,\"dt_ps\":%g,\"e_start\":%.10g,"
          "\"e_end\":%.10g,\"drift\":%.3e,\"drift_tol\":%g,\"seq_pos_diff\":%.3e,"
          "\"seq_energy_diff\":%.3e,\"verified\":%s,\"time_s\":%.6f,\"nodes\":%d,"
          "\"threads\":%d,\"processors\":%d}\n",
          n, c->o.steps, c->o.dt, r.e_start, r.e_end, r.drift, DRIFT_TOL, dpos, de,
          ok ? "true" : "false", r.time_s, simple_nodes(s), simple_threads(s), simple_nprocs(s));
    else
      printf(
          "water: %d molecules, %d steps in %.3f s on %d processor(s): energy %.6f -> %.6f "
          "kcal/mol (drift %.2e of KE)%s, %s\n",
          n, c->o.steps, r.time_s, simple_nprocs(s), r.e_start, r.e_end, r.drift,
          c->seq ? "" : ", no sequential check", ok ? "verified" : "NOT VERIFIED");
    fflush(stdout);
  }
  free(pos);
}

int main(int argc, char **argv) {
  app_version(argc, argv, "simple-water");
  cmd_t c;
  memset(&c, 0, sizeof c);
  c.o = (simple_water_opts_t){1728, 5, 0.0001, 1};
  c.seq = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    long x;
    if (!strcmp(a, "--json")) {
      c.json = 1;
    } else if (!strcmp(a, "--no-seq")) {
      c.seq = 0;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--molecules") || !strcmp(a, "--steps") || !strcmp(a, "--seed")) {
      i++;
      long lo = !strcmp(a, "--molecules") ? SIMPLE_WATER_MIN_MOLECULES : 0;
      long hi = !strcmp(a, "--molecules") ? SIMPLE_WATER_MAX_MOLECULES
                : !strcmp(a, "--steps")   ? 100000
                                          : 4294967295L;
      if (app_parse_long(v, &x) || x < lo || x > hi) {
        fprintf(stderr, "simple-water: %s needs a whole number from %ld to %ld, not '%s'\n", a, lo,
                hi, v ? v : "");
        return 2;
      }
      if (!strcmp(a, "--molecules"))
        c.o.molecules = (int)x;
      else if (!strcmp(a, "--steps"))
        c.o.steps = (int)x;
      else
        c.o.seed = (unsigned)x;
    } else if (!strcmp(a, "--dt")) {
      i++;
      char *end;
      double d = v ? strtod(v, &end) : 0;
      if (!v || !*v || *end || !(d > 0) || d > 0.01) {
        fprintf(stderr, "simple-water: --dt needs a time step in (0, 0.01] ps, not '%s'\n",
                v ? v : "");
        return 2;
      }
      c.o.dt = d;
    } else {
      fprintf(stderr, "simple-water: unknown argument '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  int rc = simple_run(&argc, &argv, run, &c);
  if (rc) return 1;
  return c.status;
}
