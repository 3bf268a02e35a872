/* simple-bench internals: the driver (simple_bench.c) launches worker jobs
 * through simplerun and compares what they report; the workers time one
 * side each (hybrid, or flat MPI with one rank per thread). */
#ifndef SIMPLE_BENCH_H
#define SIMPLE_BENCH_H

#include <stddef.h>

/* Options every worker understands, passed on its command line. */
typedef struct {
  int quick;        /* fewer sizes and samples: a smoke run */
  size_t max_bytes; /* largest message size */
  const char *only; /* coll: comma-separated collectives to run; NULL = default set */
  int han;          /* coll-mpi: Open MPI's hierarchical collectives (coll/han) */
} bench_opts_t;

/* Median of n values (sorts v in place). */
double bench_median(double *v, size_t n);

/* Iterations per timed sample, so one sample lasts about `target` seconds
 * given `per_op` seconds per operation; at least 1, at most 10000. */
int bench_batch(double per_op, double target);

/* Workers: run inside a job, print "R <op> <bytes> <median_us>" lines on
 * the first processor. Return the process exit status. */
int bench_node_hybrid(int argc, char **argv, const bench_opts_t *o);
int bench_node_mpi(int argc, char **argv, const bench_opts_t *o);
int bench_coll_hybrid(int argc, char **argv, const bench_opts_t *o);
int bench_coll_mpi(int argc, char **argv, const bench_opts_t *o);
/* simple-bench pingpong (bench_pingpong.c): the driver and its two workers
 * (simple_send/recv between 2 threads; MPI_Send/Recv between 2 ranks). */
int bench_pingpong_suite(int argc, char **argv);
int bench_pingpong_hybrid(int argc, char **argv, const bench_opts_t *o);
int bench_pingpong_mpi(int argc, char **argv, const bench_opts_t *o);
/* simple-bench rma (bench_rma.c): the driver, and its worker (one job per
 * backend, chosen by SIMPLE_RMA in the worker's environment). */
int bench_rma_suite(int argc, char **argv);
int bench_rma_worker(int argc, char **argv, const bench_opts_t *o);
/* simple-bench transpose (bench_transpose.c): the driver and its two
 * workers (simple_transpose; flat MPI with MPI_Alltoall). */
int bench_transpose_suite(int argc, char **argv);
int bench_transpose_hybrid(int argc, char **argv, const bench_opts_t *o);
int bench_transpose_mpi(int argc, char **argv, const bench_opts_t *o);

/* The collectives of `simple-bench coll`, by name, in the order they run.
 * Those with in_default = 0 (the v-variants) run only when --only names
 * them (or --only all). Returns the number of entries. */
typedef struct {
  const char *name;
  int in_default;
  int sized; /* 0: barrier, one row of 0 bytes */
} bench_coll_info_t;
int bench_coll_list(const bench_coll_info_t **list);
/* Whether collective `name` is selected by `only` (comma-separated names,
 * "all", or NULL for the default set). */
int bench_coll_selected(const char *only, const char *name);

/* Timed-sample shape shared by both sides: warm-up iterations, samples. */
#define BENCH_WARMUP         50
#define BENCH_SAMPLES        60
#define BENCH_SAMPLES_QUICK  15
#define BENCH_SAMPLE_SECONDS 50e-6

#endif
