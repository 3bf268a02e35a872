/* simple-nqueens: counts the solutions of the n-queens problem with every
 * thread of the job (simple_nqueens), and checks the count against the
 * known values (OEIS A000170).
 *
 *   simple-nqueens N [--json] [--static] [--symmetry] [--depth K]
 *   simplerun -N 2 -t 4 build/bin/simple-nqueens 14 --json
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simple.h>

#include "../common/app_cli.h"
#include "simple_nqueens.h"

/* OEIS A000170, the number of solutions for n = 1..20: for verification of
 * the result only, never used to compute it. */
static const uint64_t known[SIMPLE_NQUEENS_MAX_N + 1] = {
    0,      1,       0,        0,        2,         10,          4,
    40,     92,      352,      724,      2680,      14200,       73712,
    365596, 2279184, 14772512, 95815104, 666090624, 4968057848u, 39029188884u};

typedef struct {
  int n, json;
  simple_nqueens_opts_t opts;
  int status; /* the process's exit status */
} cmd_t;

static void usage(FILE *f) {
  fprintf(f,
          "usage: simple-nqueens N [--json] [--static] [--symmetry] [--depth K]\n"
          "  N           board size, 1..%d\n"
          "  --json      print one JSON object\n"
          "  --static    the paper's static random partition of the seeds (default: dynamic)\n"
          "  --symmetry  search one of each mirror pair of solutions only\n"
          "  --depth K   rows placed in the seeds, 1..N (default: chosen from N and the\n"
          "              processor count)\n"
          "Run on several nodes and threads with simplerun, e.g.\n"
          "  simplerun -N 2 -t 4 simple-nqueens 14\n",
          SIMPLE_NQUEENS_MAX_N);
}

/* A whole decimal integer in [lo, hi], or -1 (with *ok = 0). */
static long parse_int(const char *v, long lo, long hi, int *ok) {
  char *end;
  errno = 0;
  long x = (v && *v) ? strtol(v, &end, 10) : 0;
  *ok = v && *v && !errno && !*end && x >= lo && x <= hi;
  return *ok ? x : -1;
}

static void run(simple_t *s, void *arg) {
  cmd_t *c = arg;
  simple_nqueens_info_t info;
  uint64_t count = 0;
  simple_barrier(s);
  double t0 = simple_time();
  int rc = simple_nqueens_ex(s, c->n, &c->opts, &count, &info);
  simple_barrier(s);
  double t = simple_time() - t0;
  if (rc) {
    if (simple_pid(s) == 0)
      fprintf(stderr, "simple-nqueens: simple_nqueens failed: %s (%s)\n", simple_strerror(rc),
              simple_errname(rc));
    if (simple_thread(s) == 0) c->status = 1;
    return;
  }
  int ok = count == known[c->n];
  if (simple_thread(s) == 0 && !ok) c->status = 1;
  if (simple_pid(s) != 0) return;
  const char *part = c->opts.static_partition ? "static" : "dynamic";
  if (c->json) {
    printf("{\"app\":\"nqueens\",\"n\":%d,\"solutions\":%" PRIu64 ",\"expected\":%" PRIu64
           ",\"verified\":%s,\"time_s\":%.6f,\"nodes\":%d,\"threads\":%d,\"processors\":%d,"
           "\"partition\":\"%s\",\"symmetry\":%s,\"depth\":%d,\"seeds\":%" PRIu64 "}\n",
           c->n, count, known[c->n], ok ? "true" : "false", t, simple_nodes(s), simple_threads(s),
           simple_nprocs(s), part, c->opts.symmetry ? "true" : "false", info.depth, info.seeds);
  } else {
    printf("%d-queens: %" PRIu64
           " solutions (%s) in %.3f s on %d processor(s) (%d node(s)); "
           "%s partition%s, %" PRIu64 " seeds of %d row(s)\n",
           c->n, count, ok ? "verified" : "WRONG: expected different", t, simple_nprocs(s),
           simple_nodes(s), part, c->opts.symmetry ? ", mirror symmetry" : "", info.seeds,
           info.depth);
    if (!ok) fprintf(stderr, "simple-nqueens: expected %" PRIu64 "\n", known[c->n]);
  }
  fflush(stdout);
}

int main(int argc, char **argv) {
  app_version(argc, argv, "simple-nqueens");
  cmd_t c;
  memset(&c, 0, sizeof c);
  int have_n = 0, ok;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--json") == 0) {
      c.json = 1;
    } else if (strcmp(a, "--static") == 0) {
      c.opts.static_partition = 1;
    } else if (strcmp(a, "--symmetry") == 0) {
      c.opts.symmetry = 1;
    } else if (strcmp(a, "--depth") == 0) {
      const char *v = i + 1 < argc ? argv[++i] : NULL;
      c.opts.depth = (int)parse_int(v, 1, SIMPLE_NQUEENS_MAX_N, &ok);
      if (!ok) {
        fprintf(stderr, "simple-nqueens: --depth needs a row count from 1 to N, not '%s'\n",
                v ? v : "");
        return 2;
      }
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return 0;
    } else if (a[0] == '-' && !(a[1] >= '0' && a[1] <= '9')) {
      fprintf(stderr, "simple-nqueens: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    } else if (have_n) {
      fprintf(stderr, "simple-nqueens: one board size only ('%s' after %d)\n", a, c.n);
      return 2;
    } else {
      c.n = (int)parse_int(a, 1, SIMPLE_NQUEENS_MAX_N, &ok);
      if (!ok) {
        fprintf(stderr, "simple-nqueens: N must be an integer from 1 to %d, not '%s'\n",
                SIMPLE_NQUEENS_MAX_N, a);
        return 2;
      }
      have_n = 1;
    }
  }
  if (!have_n) {
    fprintf(stderr, "simple-nqueens: missing the board size N\n");
    usage(stderr);
    return 2;
  }
  if (c.opts.depth > c.n) {
    fprintf(stderr, "simple-nqueens: --depth %d is more than N = %d\n", c.opts.depth, c.n);
    return 2;
  }
  int rc = simple_run(&argc, &argv, run, &c);
  if (rc) return 1;
  return c.status;
}
