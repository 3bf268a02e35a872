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

static void fill(double *v, size_t n, int who) {
  for (size_t i = 0; i < n; i++) v[i] = (double)(who + (int)i % 7);
}

/* A side: its operation (a barrier at 0 bytes, else an allreduce of
 * doubles), its clock, and its broadcast and maximum (in place, on every
 * processor) among the processors of the node. */
typedef struct {
  void (*op)(simple_t *s, size_t bytes, double *send, double *recv);
  double (*now)(void);
  void (*bcast)(simple_t *s, int *v);
  void (*max)(simple_t *s, double *v, int n);
  simple_t *s; /* NULL on the MPI side */
  int me;
} side_t;

/* The sweep over the sizes; the first processor prints a row per size. */
static void sweep(const side_t *d, const bench_opts_t *o) {
  int S = o->quick ? BENCH_SAMPLES_QUICK : BENCH_SAMPLES;
  double *samples = malloc(sizeof(double) * (size_t)S);
  for (size_t k = 0; k < NSIZES && sizes[k] <= o->max_bytes; k++) {
    size_t bytes = sizes[k], n = bytes / sizeof(double);
    double *send = malloc(bytes + 8), *recv = malloc(bytes + 8);
    fill(send, n, d->me);
    double t0 = d->now();
    for (int i = 0; i < BENCH_WARMUP; i++) d->op(d->s, bytes, send, recv);
    int batch = bench_batch((d->now() - t0) / BENCH_WARMUP, BENCH_SAMPLE_SECONDS);
    d->bcast(d->s, &batch);
    for (int j = 0; j < S; j++) {
      double t = d->now();
      for (int i = 0; i < batch; i++) d->op(d->s, bytes, send, recv);
      samples[j] = (d->now() - t) / batch;
    }
    /* OSU: a sample is as slow as its slowest processor. */
    d->max(d->s, samples, S);
    if (d->me == 0)
      printf("R %s %zu %.4f\n", bytes ? "allreduce" : "barrier", bytes,
             1e6 * bench_median(samples, (size_t)S));
    fflush(stdout);
    free(send);
    free(recv);
  }
  free(samples);
}

/* ------------------------------------------------------------------------ */

static void hybrid_op(simple_t *s, size_t bytes, double *send, double *recv) {
  if (bytes == 0)
    simple_node_barrier(s);
  else
    simple_node_allreduce(s, send, recv, bytes / sizeof(double), SIMPLE_DOUBLE, SIMPLE_SUM);
}

static void hybrid_bcast(simple_t *s, int *v) { simple_node_bcast(s, v, 1, SIMPLE_INT32, 0); }

static void hybrid_max(simple_t *s, double *v, int n) {
  simple_node_allreduce(s, SIMPLE_IN_PLACE, v, (size_t)n, SIMPLE_DOUBLE, SIMPLE_MAX);
}

static void hybrid_main(simple_t *s, void *o) {
  const side_t d = {hybrid_op, simple_time, hybrid_bcast, hybrid_max, s, simple_thread(s)};
  sweep(&d, o);
}

int bench_node_hybrid(int argc, char **argv, const bench_opts_t *o) {
  return simple_run(&argc, &argv, hybrid_main, (void *)o);
}

/* ------------------------------------------------------------------------ */

static void mpi_op(simple_t *s, size_t bytes, double *send, double *recv) {
  (void)s;
  if (bytes == 0)
    MPI_Barrier(MPI_COMM_WORLD);
  else
    MPI_Allreduce(send, recv, (int)(bytes / sizeof(double)), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

static void mpi_bcast(simple_t *s, int *v) {
  (void)s;
  MPI_Bcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

static void mpi_max(simple_t *s, double *v, int n) {
  (void)s;
  MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

int bench_node_mpi(int argc, char **argv, const bench_opts_t *o) {
  MPI_Init(&argc, &argv);
  side_t d = {mpi_op, MPI_Wtime, mpi_bcast, mpi_max, NULL, 0};
  MPI_Comm_rank(MPI_COMM_WORLD, &d.me);
  sweep(&d, o);
  MPI_Finalize();
  return 0;
}
