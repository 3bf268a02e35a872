/* simple_cholesky: block fan-out Cholesky factorization A = L L^T of a
 * dense symmetric positive-definite matrix (paper 003's block Cholesky,
 * Figure 8: D1000) with every thread of the job, over shared objects
 * (include/simple/shobj.h).
 *
 * Method (Rothberg and Gupta's block fan-out): the lower triangle is cut
 * in nb x nb blocks, block (i, j) owned by thread (i mod pr) pc + (j mod
 * pc) of a pr x pc grid of the p threads. Each thread goes through its
 * blocks column by column: block (i, j) subtracts L(i,k) L(j,k)^T for every
 * k < j, then is factored (i = j: dpotrf) or solved against L(j,j)
 * (dtrsm). A finished block becomes a shared value (immutable: cacheable
 * forever); its owner posts the name on its node's board (node memory,
 * waking the node's threads that sleep on it) and, with several nodes, in
 * that block's accumulator, the block's directory entry. A thread that
 * needs a block of its own node spins briefly on the board's flag, then
 * sleeps until the post. With several nodes the owner also pushes the
 * block (its name and bytes, one message) to the first thread of each
 * other node that will use it, known from the block structure beforehand;
 * that thread takes it while it waits, puts it in the node's cache and
 * posts it on its board for its node-mates (a block no thread of the
 * node uses during the factorization, as the final check's reads, is
 * polled in the directory entry and fetched). Every thread reads blocks
 * through the node's cache, so a block crosses the network once per node
 * however many of the node's threads use it. Column by column is a topological order of the
 * dependencies: the first unfinished block of that order never waits, so
 * the factorization cannot deadlock.
 *
 * A sparse matrix (opts->matrix) is read by one thread per node, ordered
 * by METIS's nested dissection (METIS_NodeND) to reduce fill and
 * postordered, and cut into blocks that follow its elimination tree:
 * supernodes (relaxed: merged while they add few zeros, small neighbours
 * up to 16 columns), at most nb wide, rows cut at the same boundaries.
 * The same fan-out then runs over the non-zero blocks only (blocks stored
 * dense: a block-sparse factor), but a block column's blocks go to the
 * threads its subtree of the elimination tree is mapped to (proportional
 * mapping by flops: subtrees to nodes, then to threads), so that only the
 * top separators are shared between nodes.
 *
 * The generated matrix (every thread makes its own blocks):
 *   a(i,j) = 1 / (1 + |i - j|) + 0.5 cos(i + j) / n,  a(i,i) += n / 2 + shift,
 * symmetric and, for shift = 0, strictly diagonally dominant (SPD).
 *
 * Cost: n^3 / (3 p) flops per thread (dgemm, dsyrk, dtrsm, dpotrf of
 * OpenBLAS on one core each) + per thread about (n/nb)^2 / pc block reads,
 * one fetch of 8 nb^2 bytes per block and node, + directory polls.
 */
#ifndef SIMPLE_CHOLESKY_H
#define SIMPLE_CHOLESKY_H

#include <simple.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SIMPLE_CHOLESKY_MAX_N 100000

typedef struct {
  int n;              /* order of the generated matrix (default 1000: the paper's D1000) */
  int nb;             /* block size (default 64); a sparse matrix's widest block (default 128:
                         its blocks follow the elimination tree, see above) */
  double shift;       /* added to the diagonal (default 0; negative makes A indefinite) */
  const char *matrix; /* a Matrix Market file (real symmetric, coordinate) to factor
                         instead of the generated matrix, or NULL */
} simple_cholesky_opts_t;

typedef struct {
  double residual;            /* ||A x - b||_inf / (||A||_inf ||x||_inf), b = A (1, ..., 1) */
  long pivot;                 /* the failing pivot (0-based, the matrix's own numbering) when not
                                 positive definite, else -1 */
  int n;                      /* the order factored */
  long nnz;                   /* a sparse matrix's stored entries (lower triangle), else 0 */
  long factor_blocks;         /* non-zero blocks of L (fill included) */
  long remote_blocks;         /* of those, the blocks read during the factorization by a thread
                                 of another node than their owner's (0 on one node) */
  long pushed_blocks;         /* messages that carried a finished block to another node during
                                 the factorization: one per block and node that reads it (0 on
                                 one node) */
  char error[256];            /* why a matrix file was refused ("" otherwise) */
  double time_s;              /* factorization wall time (max over threads) */
  simple_shobj_stats_t cache; /* this node's shared-object counters */
} simple_cholesky_result_t;

/* Collective over every thread of the job: factors the generated matrix,
 * then (thread 0 of node 0) solves A x = b with the factor read back
 * through the shared objects and computes the residual; every thread gets
 * the result. Returns SIMPLE_ERR_ARG for n < 1, n > SIMPLE_CHOLESKY_MAX_N or
 * nb < 1 (res->pivot -1), for a matrix file that cannot be read or is
 * malformed (res->error says where), and also for a matrix that is not positive
 * definite, with res->pivot the first pivot (0-based row) that was not
 * positive, on every thread; SIMPLE_ERR_NOMEM; the shared objects'. */
int simple_cholesky(simple_t *s, const simple_cholesky_opts_t *opts, simple_cholesky_result_t *res);

/* The generated matrix's entry (i, j), for checking. */
double simple_cholesky_entry(int n, double shift, int i, int j);

#ifdef __cplusplus
}
#endif

#endif
