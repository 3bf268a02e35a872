/* simple_fft: the two-dimensional complex FFT of an n x m array of
 * double _Complex distributed by rows over every thread of the job, after
 * paper 000 (Algorithm 1, "Simple two-dimensional FFT") and paper 002
 * (section 3.3, 2D FFT with transposes).
 *
 * Layout. The array is dealt out by rows in blocks over all threads of
 * the job, as simple_dist_2d(rows, cols, SIMPLE_ROWS, SIMPLE_BLOCK, 1,
 * SIMPLE_OVER_THREADS) of include/simple/dist.h: thread pid holds rows
 * [lo, lo + count) (the first rows mod P threads one row more), row-major,
 * each row whole. The natural layout is the n x m array itself; the
 * transposed layout is its transpose, m x n, dealt out the same way
 * (element (i, j) of the array at row j, column i), which is what the
 * algorithm produces before its last transpose (FFTW-MPI's
 * TRANSPOSED_OUT / TRANSPOSED_IN). simple_fft2d_local gives the shapes.
 *
 * Transform. out[k1][k2] = sum_{i<n, j<m} in[i][j] e^{sign 2 pi I (k1 i / n
 * + k2 j / m)}, sign -1 forward, +1 backward, unnormalized (FFTW's
 * convention; SIMPLE_FFT_NORMALIZE divides by n m, so that a backward
 * transform with it inverts a forward one). Any n, m >= 1, not only powers
 * of two nor multiples of the thread count.
 *
 * Algorithm, for an input held as r x c (r = n, c = m in the natural
 * layout): every thread transforms its own rows (1D FFTs of length c by
 * FFTW, its serial library: one plan shared by the threads of a process,
 * each thread executing it on its own rows through the new-array execute,
 * which FFTW makes thread-safe); then every thread transforms its block
 * of columns (the columns whose rows it holds in the transposed layout),
 * a few at a time: gathered into a small buffer (the transposition
 * happens there, in cache), one batched FFTW plan, written back in place
 * or as the thread's rows of the transposed output. Threads with no rows
 * or columns wait in the collective steps only.
 *
 * On several nodes the hybrid redistribution simple_redistribute of
 * dist.h (multithreaded on every node, one message per node pair) deals
 * the first pass's rows out as blocks of columns (r x c by columns, each
 * thread's block row-major), the columns are transformed there (a block
 * of up to 8 MiB into transposed output, or 1 MiB in place, by one
 * strided FFTW plan over the whole block rather than a few columns at a
 * time: FFTW's loops win while the block stays in cache), and for
 * natural output a second redistribution brings the blocks back to rows.
 * For natural output from blocks of columns of 512 KiB a thread, and for
 * transposed output with blocks above those sizes, only the rows of
 * other nodes move (simple_redistribute_remote, both ways): the column
 * pass reads the node's own rows in place, where its threads' row pass
 * left them, as on one node, which saves copying the node's share of the
 * array (1/nodes of it) once per redistribution.
 * This is the papers' transpose split in two: the exchange between nodes
 * moves blocks without transposing them, and the transposition is left
 * to the column pass, in cache (measured on the virtual cluster, 2 x 2,
 * 4096 x 4096: redistribution 64 ms against 116 ms for simple_transpose,
 * whose tiles transpose the whole array in memory; the transform 259-267
 * ms natural, 186-194 ms transposed, against 307-345 and 188-244 with the
 * two transposes).
 *
 * On one node (a job of one process) no data need move between address
 * spaces: after the row pass and a node barrier, each thread transforms
 * its block of columns of the r x c result in place, reading every
 * thread's rows, then a node barrier: two passes over the data instead
 * of four, as FFTW's own threaded 2D transform does.
 *
 * Cost, per thread, with P threads, F the FFTW rate, B the copy rate and
 * R(V) the redistribution of dist.h for V bytes per node:
 * 5 n m log2(n m) / (P F) of FFTs, 32 n m / (P B) of gathering columns,
 * plus one R(16 n m / nodes) (transposed output) or two (natural), or on
 * one node 2 b instead; memory: on several nodes a scratch array of the
 * thread's block of columns (16 max(n, m) ceil(min(n, m) / P) bytes) and
 * a second one for its rows when 16 n m / P <= 1 MiB or, for transposed
 * output, when the node's rows are read in place (and for transposed
 * output of a non-square array when out is smaller than the rows), on one
 * node one only for transposed output, and a column buffer of 16 r k bytes (k = 16 columns; on
 * several nodes k halves down to 4 while the buffer exceeds 256 KiB), kept in the plan, beside the
 * caller's in and out.
 *
 * FFTW plans. 1D plans are made once per (length, direction, in-place or
 * not, alignment of the arrays, planner rigor) in this process and reused
 * by every later plan and call; planning is serialized by a mutex (FFTW's
 * planner is not thread-safe) and is done on private arrays, so that
 * FFTW_MEASURE never touches the caller's data. A process that calls
 * FFTW's planner itself from other threads at the same time must
 * serialize with simple_fft_lock / simple_fft_unlock.
 */
#ifndef SIMPLE_FFT_H
#define SIMPLE_FFT_H

#include <stdint.h>

#include <simple.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Directions (FFTW's signs). */
#define SIMPLE_FFT_FORWARD  (-1)
#define SIMPLE_FFT_BACKWARD (+1)

/* Flags, or-ed together. */
enum {
  SIMPLE_FFT_TRANSPOSED_IN = 1u << 0,  /* the input is in the transposed layout (m x n) */
  SIMPLE_FFT_TRANSPOSED_OUT = 1u << 1, /* the output in the transposed layout (m x n) */
  SIMPLE_FFT_NORMALIZE = 1u << 2,      /* the output divided by n m */
  /* FFTW planner rigor for the 1D plans (at most one; MEASURE by default). */
  SIMPLE_FFT_ESTIMATE = 1u << 3,
  SIMPLE_FFT_MEASURE = 1u << 4,
  SIMPLE_FFT_PATIENT = 1u << 5,
};

/* A 2D FFT plan: one handle per thread, made and destroyed collectively. */
typedef struct simple_fft2d simple_fft2d_t;

/* The calling thread's share of the n x m array in the natural layout
 * (rows [*lo, *lo + *rows) of n, each of m elements) or, with transposed
 * set, in the transposed layout (rows of m, each of n elements). Any of
 * rows and lo may be NULL. Local, O(1).
 * Errors: SIMPLE_ERR_NOT_IN_JOB, SIMPLE_ERR_ARG (n or m < 1). */
SIMPLE_API int simple_fft2d_local(const simple_t *s, long n, long m, int transposed, long *rows,
                                  long *lo);

/* Collective over every thread of the job: a plan for the 2D FFT of an
 * n x m array in direction sign with flags; *plan gets the calling
 * thread's handle. Every thread passes the same n, m, sign and flags.
 * Makes (or finds) the two 1D FFTW plans (lengths m and n) and the
 * thread's scratch array.
 * Errors, the same verdict on every thread (the others get
 * SIMPLE_ERR_PEER): SIMPLE_ERR_NOT_IN_JOB, SIMPLE_ERR_NULL (plan NULL),
 * SIMPLE_ERR_ARG (n or m < 1 or above INT_MAX, sign not +-1, unknown
 * flags, more than one rigor, arguments differing among threads),
 * SIMPLE_ERR_COUNT (n m 16 bytes overflow), SIMPLE_ERR_NOMEM, and
 * SIMPLE_ERR_UNSUPPORTED when FFTW cannot plan. *plan is NULL on error.
 * Cost: one allreduce of 9 words, the FFTW planning of lengths n and m
 * when not made before in this process (ESTIMATE: microseconds; MEASURE:
 * milliseconds to seconds), one allocation. */
SIMPLE_API int simple_fft2d_plan(simple_t *s, long n, long m, int sign, unsigned flags,
                                 simple_fft2d_t **plan);

/* Collective: executes the plan. in holds the thread's rows of the input
 * (natural layout, or transposed with SIMPLE_FFT_TRANSPOSED_IN), out gets
 * its rows of the output (in the layout of the flags). in is not changed,
 * unless in == out (in place), which is allowed when the input and output
 * layouts are the same. Every thread passes its plan from the same
 * simple_fft2d_plan call. Arrays need only the alignment of double.
 * Errors (one verdict for the job before any data is touched):
 * SIMPLE_ERR_NOT_IN_JOB, SIMPLE_ERR_ARG (plan NULL, in == out with
 * different layouts, or in and out overlapping otherwise),
 * SIMPLE_ERR_NULL (in or out NULL with rows to hold), SIMPLE_ERR_PEER,
 * and the errors of simple_redistribute. Arrays of an alignment not seen
 * before get 1D plans of their own at the first call (planned then, with
 * the plan's rigor; if FFTW cannot, an unaligned plan made by
 * simple_fft2d_plan serves).
 * Cost: the 2D FFT above; the verdict is the first redistribution's own
 * on several nodes for transposed output of up to 1 MiB per thread or
 * whose node rows are read in place, else (natural output, larger
 * transposed arrays) an empty redistribution before it (one node: an
 * allreduce inside the node). */
SIMPLE_API int simple_fft2d_execute(simple_t *s, simple_fft2d_t *plan, const double _Complex *in,
                                    double _Complex *out);

/* Frees the calling thread's handle (its scratch array; the FFTW plans
 * stay cached for later plans). Local; NULL is accepted. Returns 0. */
SIMPLE_API int simple_fft2d_destroy(simple_fft2d_t *plan);

/* One-shot: plan, execute, destroy. Allocates the scratch array on every
 * call; a program that transforms several arrays of one shape keeps a
 * plan instead. Errors: those of simple_fft2d_plan and _execute. */
SIMPLE_API int simple_fft2d(simple_t *s, long n, long m, int sign, unsigned flags,
                            const double _Complex *in, double _Complex *out);

/* ------------------------------------------------------------------------
 * Test data and verification. */

/* Element (i, j) of test array `seed`: a pseudo-random complex number with
 * real and imaginary parts in [-1, 1), which depends on seed, i and j only
 * (so every layout and every program sees the same array). Pure. */
SIMPLE_API double _Complex simple_fft2d_elem(uint64_t seed, long i, long j);

/* Fills the calling thread's rows of test array `seed` (n x m, natural
 * layout, or its transpose with transposed set: local row lj of the
 * transposed layout holds column lo + lj of the array). Local.
 * Errors: as simple_fft2d_local, SIMPLE_ERR_NULL (a NULL local with rows). */
SIMPLE_API int simple_fft2d_fill(const simple_t *s, long n, long m, int transposed, uint64_t seed,
                                 double _Complex *local);

/* Collective: checks out = plan(in) against the definition, independently
 * of FFTW and of the exchanges between threads:
 *   *probe_err: the largest, over a few output elements (k1, k2) spread
 *     over the array (corners, middle, pseudo-random ones), of the error
 *     of out at (k1, k2) against the direct sum over all n m inputs,
 *     relative to the root-mean-square output sqrt(sum |out|^2 / (n m));
 *   *parseval_err: | sum |out|^2 - c n m sum |in|^2 | / (c n m sum |in|^2),
 *     c = 1, or 1 / (n m)^2 with SIMPLE_FFT_NORMALIZE (Parseval's identity).
 * in and out as for simple_fft2d_execute (in must still hold the input);
 * either result pointer may be NULL.
 * Errors: SIMPLE_ERR_NOT_IN_JOB, SIMPLE_ERR_ARG (plan NULL), SIMPLE_ERR_NULL,
 * errors of simple_allreduce. Cost: O(8 n m / P) flops per thread for the
 * probes (each thread sums over its own rows), two allreduces. */
SIMPLE_API int simple_fft2d_check(simple_t *s, const simple_fft2d_t *plan,
                                  const double _Complex *in, const double _Complex *out,
                                  double *probe_err, double *parseval_err);

/* Collective: sqrt(sum |a - b|^2 / sum |b|^2) over the whole job, where
 * every thread passes its `count` local elements (0 when both are 0).
 * Errors: SIMPLE_ERR_NOT_IN_JOB, SIMPLE_ERR_NULL, errors of
 * simple_allreduce. Cost: 4 count flops, one allreduce of 3 words. */
SIMPLE_API int simple_fft2d_relerr(simple_t *s, const double _Complex *a, const double _Complex *b,
                                   size_t count, double *err);

/* Serializes calls of FFTW's planner with those made by simple_fft
 * (for programs that plan with FFTW from several threads themselves). */
SIMPLE_API void simple_fft_lock(void);
SIMPLE_API void simple_fft_unlock(void);

#ifdef __cplusplus
}
#endif

#endif /* SIMPLE_FFT_H */
