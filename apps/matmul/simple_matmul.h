/* simple_matmul: Cannon's matrix multiply on a q x q grid of processors,
 * with the one-sided layer of simple (include/simple/rma.h), after paper
 * 004 (Gerbessiotis and Lee), Fig. 7 (MatMul: blocks moved with put) and
 * Fig. 8 (MatMulG: blocks moved with get).
 *
 * C = A x B for n x n matrices of doubles. The job's p processors (threads,
 * global ranks 0..p-1) form a q x q grid, p = q^2, processor pid = i q + j
 * holding block (i, j) of A, B and C: nb x nb doubles, nb = n / q, row-major
 * and contiguous (element (r, c) of the block at r nb + c). n must be a
 * multiple of q; a program with other n pads A and B with zero rows and
 * columns up to the next multiple (simple-matmul does so).
 *
 * Algorithm (the form of Cannon's method of paper 004, Fig. 7 and 8): in
 * round l = 0..q-1, processor (i, j) adds A(i, k) B(k, j) to its C block,
 * k = (i + j + l) mod q. The blocks of a round are moved in the superstep
 * before it: with put, every processor writes its own A block to
 * (i, j - i - l) and its B block to (i - j - l, j); with get, every
 * processor reads A(i, k) and B(k, j) (indices mod q). Each round moves
 * the processors' original blocks, so round l + 1 travels while round l
 * multiplies (double buffering: two registered slots per matrix; a block
 * arriving never overwrites the one being multiplied). Inside a node a
 * move is one memcpy at the call (hpput/hpget), done before the mover's
 * dgemm starts; between nodes the blocks of all threads of a node travel
 * together at the sync. Local products: BLAS dgemm, row-major.
 *
 * Cost, with F the local dgemm rate and the costs of rma.h: 2 n^3 / (p F)
 * seconds of dgemm per processor, and q + 2 syncs: one registers the
 * buffers, q move one round's blocks, 2 nb^2 doubles per processor each
 * (an h-relation of h = 16 nb^2 bytes: g h + L), the last pops.
 * Communication overlaps computation only inside a node.
 * Memory: 4 nb^2 doubles of buffers per processor beside A, B, C (6 for
 * get: the blocks the others read are copied into the registered area).
 */
#ifndef SIMPLE_MATMUL_H
#define SIMPLE_MATMUL_H

#include <stdint.h>

#include <simple.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How blocks move between supersteps. */
typedef enum {
  SIMPLE_MATMUL_PUT = 0, /* paper 004 Fig. 7: each processor writes its blocks where needed */
  SIMPLE_MATMUL_GET = 1  /* paper 004 Fig. 8: each processor reads the blocks it needs */
} simple_matmul_variant_t;

/* The side q of the processor grid: *q with q * q = simple_nprocs(s).
 * SIMPLE_ERR_ARG (and *q = 0) when the processor count is not a square;
 * SIMPLE_ERR_NULL if q is NULL. Local, no communication. */
SIMPLE_API int simple_matmul_grid(const simple_t *s, int *q);

/* Collective over every thread of the job: c = a x b by Cannon's
 * algorithm; a, b, c are the calling processor's nb x nb blocks (see
 * above; c is overwritten, a and b are not changed). Every processor passes
 * the same n and variant.
 * Errors, the same on every thread: SIMPLE_ERR_ARG (processor count not a
 * square, n <= 0, n not a multiple of q, n or variant different among
 * processors, unknown variant), SIMPLE_ERR_NULL (a, b or c NULL),
 * SIMPLE_ERR_COUNT (nb^2 doubles overflow size_t), SIMPLE_ERR_NOMEM
 * (buffers); errors of simple_rma_* and simple_allreduce are passed on.
 * BLAS runs with one thread per processor (openblas_set_num_threads(1) at
 * the first call).
 * Cost: see above, plus one allreduce of 3 numbers for the argument check. */
SIMPLE_API int simple_matmul_cannon(simple_t *s, long n, const double *a, const double *b,
                                    double *c, simple_matmul_variant_t variant);

/* Element (i, j) of the test matrix `seed` of order n: a pseudo-random
 * double in [-1, 1) that depends on seed, i and j only (so every layout sees
 * the same matrix); 0 for i or j >= n_used (zero padding). */
SIMPLE_API double simple_matmul_elem(uint64_t seed, long n_used, long i, long j);

/* Fills the calling processor's nb x nb block (nb = n / q) of the test
 * matrix `seed` of order n with simple_matmul_elem(seed, n_used, ., .):
 * rows and columns from n_used on are zero. SIMPLE_ERR_ARG / _NULL as
 * simple_matmul_cannon, local (no communication). */
SIMPLE_API int simple_matmul_fill(const simple_t *s, long n, long n_used, uint64_t seed,
                                  double *block);

/* Collective: the checksum test of c = a x b (blocks as for
 * simple_matmul_cannon) with a random vector x (entries from
 * simple_matmul_elem, seed `seed`):
 *   *relerr = ||c x - a (b x)||_2 / (||a||_F ||b||_F ||x||_2),
 * the same on every processor; rounding alone gives about sqrt(n) eps.
 * Errors as simple_matmul_cannon, and of simple_allreduce.
 * Cost: 6 n^2 / p flops + 3 allreduces of n doubles + one of 2. */
SIMPLE_API int simple_matmul_checksum(simple_t *s, long n, const double *a, const double *b,
                                      const double *c, uint64_t seed, double *relerr);

/* The name of a variant ("put", "get"), or "unknown". */
SIMPLE_API const char *simple_matmul_variant_name(simple_matmul_variant_t variant);

#ifdef __cplusplus
}
#endif

#endif /* SIMPLE_MATMUL_H */
