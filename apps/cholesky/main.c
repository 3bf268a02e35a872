/* simple-cholesky: block fan-out Cholesky of a generated dense SPD matrix
 * (the paper's D1000) with every thread of the job (simple_cholesky),
 * verified by the residual of a solve with the factor.
 *
 *   simple-cholesky [--n N | --matrix FILE.mtx] [--nb NB] [--shift S] [--json]
 *   simplerun -N 2 -t 2 build/bin/simple-cholesky --json
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simple.h>

#include "../common/app_cli.h"
#include "simple_cholesky.h"

#define RESIDUAL_TOL 1e-12 /* ||A x - b|| / (||A|| ||x||) */

typedef struct {
  simple_cholesky_opts_t o;
  int json, status;
} cmd_t;

static void usage(FILE *f) {
  fprintf(f,
          "usage: simple-cholesky [--n N | --matrix FILE.mtx] [--nb NB] [--shift S] [--json]\n"
          "  --n N      order of the generated SPD matrix, 1..%d (default 1000: D1000)\n"
          "  --matrix F a sparse SPD matrix in Matrix Market format (real symmetric\n"
          "             coordinate), e.g. BCSSTK15, ordered by METIS, instead of the\n"
          "             generated dense one\n"
          "  --nb NB    block size, 1..1024 (default 64); a sparse matrix's blocks follow\n"
          "             its elimination tree (supernodes), at most NB wide (default 128)\n"
          "  --shift S  added to the diagonal (default 0; below about -n/2 + 2 the matrix\n"
          "             is not positive definite and the factorization names the pivot)\n"
          "  --json     print one JSON object\n",
          SIMPLE_CHOLESKY_MAX_N);
}

static void run(simple_t *s, void *arg) {
  cmd_t *c = arg;
  simple_cholesky_result_t r;
  int rc = simple_cholesky(s, &c->o, &r);
  if (simple_pid(s) != 0) return;
  int n = r.n;
  if (rc && r.error[0]) {
    fprintf(stderr, "simple-cholesky: %s\n", r.error);
    c->status = 1;
    return;
  }
  if (rc && r.pivot >= 0) {
    fprintf(stderr,
            "simple-cholesky: the matrix is not positive definite: pivot %ld (row %ld of %d) is "
            "not positive\n",
            r.pivot, r.pivot + 1, n);
    c->status = 1;
    return;
  }
  if (rc) {
    fprintf(stderr, "simple-cholesky: simple_cholesky failed: %s (%s)\n", simple_strerror(rc),
            simple_errname(rc));
    c->status = 1;
    return;
  }
  int ok = r.residual < RESIDUAL_TOL;
  if (!ok) c->status = 1;
  int nb = c->o.nb ? c->o.nb : c->o.matrix ? 128 : 64;
  /* Dense: n^3/3 flops; sparse: no flop count here (the blocks are dense
   * inside, so their flops would overstate the work). */
  double gf = c->o.matrix ? 0 : (double)n * n * n / 3 / r.time_s / 1e9;
  const char *what = c->o.matrix ? c->o.matrix : "dense";
  if (c->json)
    printf(
        "{\"app\":\"cholesky\",\"matrix\":\"%s\",\"n\":%d,\"nnz\":%ld,\"factor_blocks\":%ld,"
        "\"remote_blocks\":%ld,\"pushed_blocks\":%ld,\"nb\":%d,\"residual\":%.3e,"
        "\"residual_tol\":%g,\"verified\":%s,\"time_s\":%.6f,"
        "\"gflops\":%.3f,\"fetches\":%llu,\"fetch_bytes\":%llu,\"nodes\":%d,\"threads\":%d,"
        "\"processors\":%d}\n",
        what, n, r.nnz, r.factor_blocks, r.remote_blocks, r.pushed_blocks, nb, r.residual,
        RESIDUAL_TOL, ok ? "true" : "false", r.time_s, gf, (unsigned long long)r.cache.fetches,
        (unsigned long long)r.cache.bytes, simple_nodes(s), simple_threads(s), simple_nprocs(s));
  else
    printf(
        "cholesky: %s %d x %d (%ld non-zero blocks of up to %d in L) in %.3f s on %d processor(s): "
        "residual %.2e, %s\n",
        c->o.matrix ? "sparse" : "dense", n, n, r.factor_blocks, nb, r.time_s, simple_nprocs(s),
        r.residual, ok ? "verified" : "NOT VERIFIED");
  fflush(stdout);
}

int main(int argc, char **argv) {
  app_version(argc, argv, "simple-cholesky");
  cmd_t c;
  memset(&c, 0, sizeof c);
  c.o = (simple_cholesky_opts_t){1000, 0, 0, NULL};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    long x;
    if (!strcmp(a, "--json")) {
      c.json = 1;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--n") || !strcmp(a, "--nb")) {
      i++;
      long hi = !strcmp(a, "--n") ? SIMPLE_CHOLESKY_MAX_N : 1024;
      if (app_parse_long(v, &x) || x < 1 || x > hi) {
        fprintf(stderr, "simple-cholesky: %s needs a whole number from 1 to %ld, not '%s'\n", a, hi,
                v ? v : "");
        return 2;
      }
      if (!strcmp(a, "--n"))
        c.o.n = (int)x;
      else
        c.o.nb = (int)x;
    } else if (!strcmp(a, "--matrix")) {
      i++;
      if (!v || !*v) {
        fprintf(stderr, "simple-cholesky: --matrix needs a file name\n");
        return 2;
      }
      c.o.matrix = v;
    } else if (!strcmp(a, "--shift")) {
      i++;
      char *end;
      double d = v ? strtod(v, &end) : 0;
      if (!v || !*v || *end || !isfinite(d)) {
        fprintf(stderr, "simple-cholesky: --shift needs a number, not '%s'\n", v ? v : "");
        return 2;
      }
      c.o.shift = d;
    } else {
      fprintf(stderr, "simple-cholesky: unknown argument '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  int rc = simple_run(&argc, &argv, run, &c);
  if (rc) return 1;
  return c.status;
}
