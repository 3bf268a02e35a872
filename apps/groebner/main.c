/* simple-groebner: the reduced Groebner basis of cyclic-n, katsura-n or the
 * Arnborg-Lazard system over
 * GF(32003) with every thread of the job (simple_groebner), verified as a
 * reduced Groebner basis (every S-pair reduces to 0) and against a
 * sequential run.
 *
 *   simple-groebner [--system] [cyclic-N | katsura-N | lazard] [--no-seq] [--json]
 *   simplerun -N 2 -t 2 build/bin/simple-groebner katsura-6 --json
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simple.h>

#include "../common/app_cli.h"
#include "simple_groebner.h"

typedef struct {
  simple_groebner_system_t sys;
  int n, json, seq, status;
  const char *name;
} cmd_t;

static void usage(FILE *f) {
  fprintf(f,
          "usage: simple-groebner [--system] [cyclic-N | katsura-N | lazard] [--no-seq] [--json]\n"
          "  cyclic-N    the cyclic N-roots system, N = 2..%d (default katsura-6)\n"
          "  katsura-N   Katsura's system in N + 1 variables, N = 1..%d\n"
          "  lazard      the Arnborg-Lazard system (PoSSo test suite; paper 003's input)\n"
          "  --system S  the same, named after an option\n"
          "  --no-seq    skip the comparison with a sequential run\n"
          "  --json      print one JSON object\n",
          SIMPLE_GROEBNER_MAXV, SIMPLE_GROEBNER_MAXV - 1);
}

static void run(simple_t *s, void *arg) {
  cmd_t *c = arg;
  simple_groebner_result_t r;
  int rc = simple_groebner(s, c->sys, c->n, &r);
  if (rc) {
    if (simple_pid(s) == 0)
      fprintf(stderr, "simple-groebner: simple_groebner failed: %s (%s)\n", simple_strerror(rc),
              simple_errname(rc));
    if (simple_thread(s) == 0) c->status = 1;
    return;
  }
  if (simple_pid(s) == 0) {
    int reduced = simple_groebner_is_reduced_basis(r.polys, r.npolys), same = -1;
    if (c->seq) {
      simple_groebner_result_t q;
      if (simple_groebner_seq(c->sys, c->n, &q))
        simple_abort(s, "simple-groebner: sequential run failed");
      same = simple_groebner_equal(&r, &q);
      simple_groebner_free(&q);
    }
    int ok = reduced && same != 0;
    if (!ok) c->status = 1;
    if (c->json)
      printf(
          "{\"app\":\"groebner\",\"system\":\"%s\",\"basis\":%d,\"pairs\":%ld,"
          "\"zero_reductions\":%ld,\"reduced_basis\":%s,\"equals_sequential\":%s,"
          "\"verified\":%s,\"time_s\":%.6f,\"fetches\":%llu,\"nodes\":%d,\"threads\":%d,"
          "\"processors\":%d}\n",
          c->name, r.npolys, r.pairs, r.reductions_to_zero, reduced ? "true" : "false",
          same < 0 ? "null"
          : same   ? "true"
                   : "false",
          ok ? "true" : "false", r.time_s, (unsigned long long)r.cache.fetches, simple_nodes(s),
          simple_threads(s), simple_nprocs(s));
    else
      printf(
          "groebner: %s: reduced basis of %d polynomials, %ld pairs (%ld to zero) in %.3f s "
          "on %d processor(s): %s\n",
          c->name, r.npolys, r.pairs, r.reductions_to_zero, r.time_s, simple_nprocs(s),
          ok ? "verified" : "NOT VERIFIED");
    fflush(stdout);
  }
  simple_groebner_free(&r);
}

int main(int argc, char **argv) {
  app_version(argc, argv, "simple-groebner");
  cmd_t c = {SIMPLE_GROEBNER_KATSURA, 6, 0, 1, 0, "katsura-6"};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    long x;
    if (!strcmp(a, "--json")) {
      c.json = 1;
    } else if (!strcmp(a, "--no-seq")) {
      c.seq = 0;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--system")) {
      if (i + 1 >= argc || argv[i + 1][0] == '-') {
        fprintf(stderr,
                "simple-groebner: --system needs a system: cyclic-N, katsura-N or lazard\n");
        return 2;
      }
      continue; /* the next argument is read as the system */
    } else if (!strcmp(a, "lazard")) {
      c.sys = SIMPLE_GROEBNER_LAZARD;
      c.n = 3;
      c.name = a;
    } else if (!strncmp(a, "cyclic-", 7) || !strncmp(a, "katsura-", 8)) {
      int cyc = a[0] == 'c';
      long lo = cyc ? 2 : 1, hi = cyc ? SIMPLE_GROEBNER_MAXV : SIMPLE_GROEBNER_MAXV - 1;
      if (app_parse_long(a + (cyc ? 7 : 8), &x) || x < lo || x > hi) {
        fprintf(stderr, "simple-groebner: %s: N must be a whole number from %ld to %ld\n", a, lo,
                hi);
        return 2;
      }
      c.sys = cyc ? SIMPLE_GROEBNER_CYCLIC : SIMPLE_GROEBNER_KATSURA;
      c.n = (int)x;
      c.name = a;
    } else {
      fprintf(stderr, "simple-groebner: unknown argument '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  int rc = simple_run(&argc, &argv, run, &c);
  if (rc) return 1;
  return c.status;
}
