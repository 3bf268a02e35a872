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

/* The slowest thread's value, on every thread. */
static double job_max(simple_t *s, double v) {
  double m = v;
  int rc = simple_allreduce(s, &v, &m, 1, SIMPLE_DOUBLE, SIMPLE_MAX);
  if (rc) simple_abort(s, "simple-bench: allreduce of the times: %s", simple_errname(rc));
  return m;
}

/* The job barrier, then a node barrier: threads that slept in the first
 * are awake before the clock starts. */
static void job_sync(simple_t *s) {
  simple_barrier(s);
  simple_node_barrier(s);
}

double bench_time_hybrid(struct simple *s, const bench_timed_t *t) {
  double v[BENCH_MAX_TIMED];
  if (t->prepare) t->prepare(t->ctx);
  job_sync(s);
  double t0 = simple_time();
  t->call(t->ctx);
  double first = job_max(s, simple_time() - t0);
  if (t->check) t->check(t->ctx);
  int S = bench_timed_samples(first, t->budget, t->most);
  for (int j = 0; j < S; j++) {
    if (t->prepare) t->prepare(t->ctx);
    job_sync(s);
    t0 = simple_time();
    t->call(t->ctx);
    v[j] = simple_time() - t0;
  }
  for (int j = 0; j < S; j++) v[j] = job_max(s, v[j]);
  return bench_median(v, (size_t)S);
}

double bench_time_flat(const bench_timed_t *t) {
  double v[BENCH_MAX_TIMED];
  if (t->prepare) t->prepare(t->ctx);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime(), first;
  t->call(t->ctx);
  first = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (t->check) t->check(t->ctx);
  int S = bench_timed_samples(first, t->budget, t->most);
  for (int j = 0; j < S; j++) {
    if (t->prepare) t->prepare(t->ctx);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    t->call(t->ctx);
    v[j] = MPI_Wtime() - t0;
  }
  MPI_Allreduce(MPI_IN_PLACE, v, S, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return bench_median(v, (size_t)S);
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
