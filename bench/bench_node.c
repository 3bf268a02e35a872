/* Workers of `simple-bench node`: the node barrier and allreduce among the
 * threads of one process, against MPI_Barrier and MPI_Allreduce among as
 * many single-threaded processes of the same machine. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simple.h>

#include "bench.h"

/* Sizes in bytes of the allreduce sweep (doubles, summed); 0 = barrier. */
static const size_t sizes[] = {0, 8, 64, 512, 4096, 32768, 262144, 1048576, 4194304};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static int nsamples(const bench_opts_t *o) {
  return o->quick ? BENCH_SAMPLES_QUICK : BENCH_SAMPLES;
}

static void fill(double *v, size_t n, int who) {
  for (size_t i = 0; i < n; i++) v[i] = (double)(who + (int)i % 7);
}

/* ------------------------------------------------------------------------ */

typedef struct {
  const bench_opts_t *o;
} hybrid_ctx_t;

static void hybrid_op(simple_t *s, size_t bytes, double *send, double *recv) {
  if (bytes == 0)
    simple_node_barrier(s);
  else
    simple_node_allreduce(s, send, recv, bytes / sizeof(double), SIMPLE_DOUBLE, SIMPLE_SUM);
}

static void hybrid_main(simple_t *s, void *arg) {
  const bench_opts_t *o = ((hybrid_ctx_t *)arg)->o;
  int S = nsamples(o);
  double *samples = malloc(sizeof(double) * (size_t)S);
  for (size_t k = 0; k < NSIZES && sizes[k] <= o->max_bytes; k++) {
    size_t bytes = sizes[k], n = bytes / sizeof(double);
    double *send = malloc(bytes + 8), *recv = malloc(bytes + 8);
    fill(send, n, simple_pid(s));
    double t0 = simple_time();
    for (int i = 0; i < BENCH_WARMUP; i++) hybrid_op(s, bytes, send, recv);
    int batch = bench_batch((simple_time() - t0) / BENCH_WARMUP, BENCH_SAMPLE_SECONDS);
    simple_node_bcast(s, &batch, 1, SIMPLE_INT32, 0);
    for (int j = 0; j < S; j++) {
      double t = simple_time();
      for (int i = 0; i < batch; i++) hybrid_op(s, bytes, send, recv);
      samples[j] = (simple_time() - t) / batch;
    }
    /* OSU: a sample is as slow as its slowest processor. */
    simple_node_allreduce(s, SIMPLE_IN_PLACE, samples, (size_t)S, SIMPLE_DOUBLE, SIMPLE_MAX);
    if (simple_thread(s) == 0)
      printf("R %s %zu %.4f\n", bytes ? "allreduce" : "barrier", bytes,
             1e6 * bench_median(samples, (size_t)S));
    fflush(stdout);
    free(send);
    free(recv);
  }
  free(samples);
}

int bench_node_hybrid(int argc, char **argv, const bench_opts_t *o) {
  hybrid_ctx_t ctx = {o};
  return simple_run(&argc, &argv, hybrid_main, &ctx);
}

/* ------------------------------------------------------------------------ */

static void mpi_op(size_t bytes, double *send, double *recv) {
  if (bytes == 0)
    MPI_Barrier(MPI_COMM_WORLD);
  else
    MPI_Allreduce(send, recv, (int)(bytes / sizeof(double)), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int bench_node_mpi(int argc, char **argv, const bench_opts_t *o) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int S = nsamples(o);
  double *samples = malloc(sizeof(double) * (size_t)S);
  double *worst = malloc(sizeof(double) * (size_t)S);
  for (size_t k = 0; k < NSIZES && sizes[k] <= o->max_bytes; k++) {
    size_t bytes = sizes[k], n = bytes / sizeof(double);
    double *send = malloc(bytes + 8), *recv = malloc(bytes + 8);
    fill(send, n, rank);
    double t0 = MPI_Wtime();
    for (int i = 0; i < BENCH_WARMUP; i++) mpi_op(bytes, send, recv);
    int batch = bench_batch((MPI_Wtime() - t0) / BENCH_WARMUP, BENCH_SAMPLE_SECONDS);
    MPI_Bcast(&batch, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int j = 0; j < S; j++) {
      double t = MPI_Wtime();
      for (int i = 0; i < batch; i++) mpi_op(bytes, send, recv);
      samples[j] = (MPI_Wtime() - t) / batch;
    }
    MPI_Reduce(samples, worst, S, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
      printf("R %s %zu %.4f\n", bytes ? "allreduce" : "barrier", bytes,
             1e6 * bench_median(worst, (size_t)S));
    fflush(stdout);
    free(send);
    free(recv);
  }
  free(samples);
  free(worst);
  MPI_Finalize();
  return 0;
}
