/* simple-matmul: C = A x B for n x n doubles by Cannon's algorithm on a
 * q x q grid of processors (simple_matmul_cannon), checked by the checksum
 * test (C x against A (B x) for a random vector x).
 *
 *   simplerun -N 2 -t 2 simple-matmul --n 512 [--variant put|get] [--json]
 *
 * n need not be a multiple of q: A and B are padded with zero rows and
 * columns up to the next multiple (reported as "n_padded"). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_cli.h"
#include "simple_matmul.h"

/* Largest n accepted: 2^17 (128 GiB per matrix); memory is checked too. */
#define MAX_N (1L << 17)
/* Relative error (simple_matmul_checksum) accepted as correct. */
#define TOLERANCE 1e-12

typedef struct {
  long n, reps;
  uint64_t seed;
  simple_matmul_variant_t variant;
  int json;
  int status; /* exit status of this process, set by its threads */
} opts_t;

static void usage(FILE *f) {
  fprintf(f,
          "usage: simplerun [-N NODES] [-t THREADS] simple-matmul --n N [--variant put|get]\n"
          "                 [--reps R] [--seed S] [--json]\n"
          "  C = A x B for N x N doubles (random A, B) by Cannon's algorithm on a q x q grid:\n"
          "  the job's processor count (NODES x THREADS) must be a square q^2.\n"
          "  --variant put   blocks moved with put (paper 004 Fig. 7; default)\n"
          "  --variant get   blocks moved with get (Fig. 8)\n"
          "  --reps R        multiplies timed (the fastest is reported); default 1\n"
          "  --seed S        seed of the random matrices; default 1\n"
          "  --json          one JSON object on standard output\n"
          "  The one-sided backend between nodes: SIMPLE_RMA=twosided|onesided.\n");
}

/* An argument error: reported by the first process; the process's exit
 * status (app_arg_status). */
static int arg_error(const char *fmt, const char *v) {
  if (app_first_process()) {
    fprintf(stderr, "simple-matmul: ");
    fprintf(stderr, fmt, v);
    fprintf(stderr, "\n");
    usage(stderr);
  }
  return app_arg_status();
}

static void run(simple_t *s, void *arg) {
  opts_t *o = arg;
  int me = simple_pid(s), q = 0;
  if (simple_matmul_grid(s, &q) != 0) {
    if (me == 0)
      fprintf(stderr,
              "simple-matmul: %s: Cannon's algorithm needs a q x q grid of processors, and"
              " this job has %d (%d node(s)); run it with a square count, e.g."
              " simplerun -N 1 -t 4 or -N 2 -t 2\n",
              simple_errname(SIMPLE_ERR_ARG), simple_nprocs(s), simple_nodes(s));
    if (simple_thread(s) == 0) o->status = 1;
    return;
  }
  long n = o->n, np = (n + q - 1) / q * q, nb = np / q;
  /* Memory: 7 blocks per processor (A, B, C, 4 buffers), 3 vectors of n. */
  unsigned long long need =
      (unsigned long long)simple_threads(s) * (7ull * (unsigned long long)nb * nb * 8 + 24ull * np);
  unsigned long long avail = simple_mem_available();
  double bad = avail && need > avail ? 1 : 0;
  if (app_max_over(s, bad, "simple-matmul") > 0) {
    if (me == 0)
      fprintf(stderr,
              "simple-matmul: n = %ld is too large: a node of this job needs %.1f GiB and has"
              " %.1f GiB available\n",
              n, (double)need / (1 << 30), (double)avail / (1 << 30));
    if (simple_thread(s) == 0) o->status = 1;
    return;
  }
  size_t nb2 = (size_t)nb * (size_t)nb;
  double *a = malloc(sizeof(double) * nb2), *b = malloc(sizeof(double) * nb2),
         *c = malloc(sizeof(double) * nb2);
  if (!a || !b || !c) simple_abort(s, "simple-matmul: out of memory (n = %ld)", n);
  int rc = simple_matmul_fill(s, np, n, o->seed, a);
  if (rc == 0) rc = simple_matmul_fill(s, np, n, o->seed + 1, b);
  if (rc) simple_abort(s, "simple-matmul: fill: %s", simple_errname(rc));

  double best = INFINITY;
  for (long r = 0; r < o->reps; r++) {
    simple_barrier(s);
    double t0 = simple_time();
    rc = simple_matmul_cannon(s, np, a, b, c, o->variant);
    double t = app_max_over(s, simple_time() - t0, "simple-matmul");
    if (rc) {
      if (me == 0)
        fprintf(stderr, "simple-matmul: %s: %s\n", simple_errname(rc), simple_strerror(rc));
      if (simple_thread(s) == 0) o->status = 1;
      free(a);
      free(b);
      free(c);
      return;
    }
    if (t < best) best = t;
  }
  double relerr = NAN;
  rc = simple_matmul_checksum(s, np, a, b, c, o->seed + 2, &relerr);
  if (rc) simple_abort(s, "simple-matmul: checksum: %s", simple_errname(rc));
  int verified = relerr < TOLERANCE;
  if (!verified && simple_thread(s) == 0) o->status = 1;
  double gflops = 2.0 * (double)n * (double)n * (double)n / best / 1e9;
  const char *backend = simple_rma_backend(s) == SIMPLE_RMA_ONESIDED ? "onesided" : "twosided";
  if (me == 0) {
    if (o->json) {
      printf(
          "{\"app\": \"matmul\", \"algorithm\": \"cannon\", \"n\": %ld, \"n_padded\": %ld, \"q\": "
          "%d,"
          " \"block\": %ld, \"nodes\": %d, \"processors\": %d, \"variant\": \"%s\","
          " \"backend\": \"%s\", \"reps\": %ld, \"seed\": %llu, \"time_s\": %.6f,"
          " \"gflops\": %.3f, \"checksum_relerr\": %.3e, \"tolerance\": %.0e,"
          " \"verified\": %s}\n",
          n, np, q, nb, simple_nodes(s), simple_nprocs(s), simple_matmul_variant_name(o->variant),
          backend, o->reps, (unsigned long long)o->seed, best, gflops, relerr, TOLERANCE,
          verified ? "true" : "false");
    } else {
      printf(
          "simple-matmul: n = %ld (padded to %ld), %d x %d grid (%d node(s)), variant %s,"
          " backend %s\n",
          n, np, q, q, simple_nodes(s), simple_matmul_variant_name(o->variant), backend);
      printf("time %.6f s, %.3f GFLOP/s, checksum relative error %.3e: %s\n", best, gflops, relerr,
             verified ? "verified" : "WRONG");
    }
    fflush(stdout);
  }
  free(a);
  free(b);
  free(c);
}

int main(int argc, char **argv) {
  app_version(argc, argv, "simple-matmul");
  opts_t o = {.n = -1, .reps = 1, .seed = 1, .variant = SIMPLE_MATMUL_PUT, .json = 0, .status = 0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--n") == 0 || strcmp(a, "-n") == 0) {
      if (app_parse_long(v, &o.n) != 0)
        return arg_error("--n needs a whole number, not '%s'", v ? v : "");
      if (o.n <= 0) return arg_error("--n must be positive, not %s", v);
      if (o.n > MAX_N) return arg_error("--n %s is too large (at most 131072)", v);
      i++;
    } else if (strcmp(a, "--variant") == 0) {
      if (v && strcmp(v, "put") == 0)
        o.variant = SIMPLE_MATMUL_PUT;
      else if (v && strcmp(v, "get") == 0)
        o.variant = SIMPLE_MATMUL_GET;
      else
        return arg_error("--variant must be put or get, not '%s'", v ? v : "");
      i++;
    } else if (strcmp(a, "--reps") == 0) {
      if (app_parse_long(v, &o.reps) != 0 || o.reps < 1 || o.reps > 1000)
        return arg_error("--reps needs a count from 1 to 1000, not '%s'", v ? v : "");
      i++;
    } else if (strcmp(a, "--seed") == 0) {
      long sd;
      if (app_parse_long(v, &sd) != 0 || sd < 0)
        return arg_error("--seed needs a whole number >= 0, not '%s'", v ? v : "");
      o.seed = (uint64_t)sd;
      i++;
    } else if (strcmp(a, "--json") == 0) {
      o.json = 1;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      if (app_first_process()) usage(stdout);
      return 0;
    } else {
      return arg_error("unknown option '%s'", a);
    }
  }
  if (o.n < 0) return arg_error("--n N is required%s", "");
  int rc = simple_run(&argc, &argv, run, &o);
  if (rc) return 1;
  return o.status;
}
