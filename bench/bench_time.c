/* Timing one call the same way on both sides of a comparison (bench.h:
 * bench_time_hybrid, bench_time_flat): the transform, transpose, sort and
 * matrix-multiply suites time their hybrid and flat MPI calls alike. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simple.h>

#include "bench.h"

int bench_timed_samples(double first, double budget, int most) {
  int S = first > 0 ? (int)(budget / first) : most;
  if (S > most) S = most;
  if (S > BENCH_MAX_TIMED) S = BENCH_MAX_TIMED;
  return S < 3 ? 3 : S;
}

/* A side's barrier before each call, its clock, and the maximum of n
 * values over its processors (in place, on every processor). */
typedef struct {
  void (*sync)(simple_t *s);
  double (*now)(void);
  void (*max)(simple_t *s, double *v, int n);
  simple_t *s; /* the hybrid side's thread; NULL on the flat side */
} side_t;

/* One sample: prepare, the side's barrier, the call. */
static double sample(const side_t *d, const bench_timed_t *t) {
  if (t->prepare) t->prepare(t->ctx);
  d->sync(d->s);
  double t0 = d->now();
  t->call(t->ctx);
  return d->now() - t0;
}

static double time_side(const side_t *d, const bench_timed_t *t) {
  double v[BENCH_MAX_TIMED], first = sample(d, t);
  d->max(d->s, &first, 1);
  if (t->check) t->check(t->ctx);
  int S = bench_timed_samples(first, t->budget, t->most);
  for (int j = 0; j < S; j++) v[j] = sample(d, t);
  d->max(d->s, v, S);
  return bench_median(v, (size_t)S);
}

/* The job barrier, then a node barrier: threads that slept in the first
 * are awake before the clock starts. */
static void job_sync(simple_t *s) {
  simple_barrier(s);
  simple_node_barrier(s);
}

static void job_max(simple_t *s, double *v, int n) {
  int rc = simple_allreduce(s, SIMPLE_IN_PLACE, v, (size_t)n, SIMPLE_DOUBLE, SIMPLE_MAX);
  if (rc) simple_abort(s, "simple-bench: allreduce of the times: %s", simple_errname(rc));
}

static void world_sync(simple_t *s) {
  (void)s;
  MPI_Barrier(MPI_COMM_WORLD);
}

static void world_max(simple_t *s, double *v, int n) {
  (void)s;
  MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

double bench_time_hybrid(simple_t *s, const bench_timed_t *t) {
  const side_t d = {job_sync, simple_time, job_max, s};
  return time_side(&d, t);
}

void bench_time_hybrid_paired(simple_t *s, const bench_timed_t *a, const bench_timed_t *b,
                              double *med_a, double *med_b, double *ratio) {
  const side_t d = {job_sync, simple_time, job_max, s};
  double first[2] = {sample(&d, a), sample(&d, b)};
  job_max(s, first, 2);
  if (a->check) a->check(a->ctx);
  if (b->check) b->check(b->ctx);
  /* Both calls of a sample pair in a's budget: the pairs as many as the
   * samples a alone would take for calls of their summed time. */
  int S = bench_timed_samples(first[0] + first[1], a->budget, a->most);
  double v[2 * BENCH_MAX_TIMED], r[BENCH_MAX_TIMED];
  for (int j = 0; j < S; j++) {
    v[2 * j] = sample(&d, a);
    v[2 * j + 1] = sample(&d, b);
  }
  job_max(s, v, 2 * S);
  double va[BENCH_MAX_TIMED], vb[BENCH_MAX_TIMED];
  for (int j = 0; j < S; j++) {
    va[j] = v[2 * j];
    vb[j] = v[2 * j + 1];
    r[j] = v[2 * j + 1] / v[2 * j];
  }
  *med_a = bench_median(va, (size_t)S);
  *med_b = bench_median(vb, (size_t)S);
  *ratio = bench_median(r, (size_t)S);
}

double bench_time_flat(const bench_timed_t *t) {
  const side_t d = {world_sync, MPI_Wtime, world_max, NULL};
  return time_side(&d, t);
}

long bench_arg_long(int argc, char **argv, const char *name, long dflt) {
  long v = dflt;
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], name) == 0) v = atol(argv[i + 1]);
  return v;
}

int bench_sizes_upto(const long *list, int n, long max_n) {
  while (n > 0 && list[n - 1] > max_n) n--;
  return n;
}

void bench_row_out(int me, const char *op, long n, double seconds) {
  if (me != 0) return;
  printf("R %s %ld %.3f\n", op, n, 1e6 * seconds);
  fflush(stdout);
}
