/* simple_nqueens: counts every solution of the n-queens problem (n queens
 * on an n x n board, no two on one row, column or diagonal) with all
 * threads of the job, after paper 000 (section 4, "Constrained Search
 * Algorithm").
 *
 * Algorithm (the paper's scheme): the valid placements of queens on the
 * first k rows are the seeds of the search; every seed is the root of a
 * sequential depth-first search of the remaining n - k rows, with the
 * board kept as three bitmasks (columns and the two diagonals, one bit per
 * column), so a step costs a few integer operations. k is the smallest
 * depth with many more seeds than processors (about 128 p, 1024 p for the
 * static partition; at most 2^21 seeds), unless the options fix it. Every
 * node enumerates the seeds itself, in the same order (no communication).
 *
 * Partition of the seeds over the p processors:
 *   - dynamic (default): each node holds a range of seed indices in shared
 *     memory, from which its threads take chunks (guided: a chunk is about
 *     1/(2 r) of what is left of the range, r = threads on the node) under a
 *     mutex; node 0 holds the global pool. Every other node draws ranges
 *     from it (guided: about r/(2 p) of what is left) with point-to-point
 *     messages (include/simple/msg.h): a thread of that node sends a
 *     request to thread 0 of node 0 when the node's current range is half
 *     used, and keeps working until the reply comes (nonblocking receive,
 *     tested between chunks), so the next range is there before the
 *     current one runs dry. Thread 0 of node 0 answers between its own
 *     chunks (one seed each) and, when the pool is empty, waits for the last
 *     requests in a blocking receive. Threads with nothing to do sleep on a
 *     condition variable or in the library's blocking waits, never spin.
 *   - static (the paper's): the seeds are shuffled (a pseudo-random
 *     permutation from opts->seed, the same on every node) and processor i
 *     takes the i-th of p equal slices; no communication until the sum.
 * Mirror symmetry (optional): a solution and its mirror image differ, and
 * exactly one of them has its first-row queen in the left half (or, for n
 * odd and the first-row queen in the middle column, its second-row queen
 * in the left half): only those seeds are searched, counted twice. About
 * half the work.
 * The total is summed with simple_allreduce (one 64-bit integer).
 *
 * Cost: W(n) / p + the seeds' enumeration (well under 1% of W for n >= 12)
 * + one allreduce of 8 bytes + two small allreduces for the argument checks;
 * dynamic: one message pair (alpha_n + a chunk of node 0's thread 0) per
 * range, a few per node and doubling their count each halving of the pool,
 * about 2 N log2(seeds / N) messages in all. W(n) grows about 6x per n:
 * about 0.1 s for n = 14, 20 s for n = 17 on one core today, so n = 20 is
 * a job for a cluster (days of core time).
 *
 * Messages: the dynamic partition on more than one node uses the two tags
 * simple_tag_ub(s) - 1 and simple_tag_ub(s); no other message with these
 * tags may be pending on the job during the call.
 */
#ifndef SIMPLE_NQUEENS_H
#define SIMPLE_NQUEENS_H

#include <stdint.h>

#include <simple.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest n: the three bitmasks are 32-bit words and the counts 64-bit
 * (n = 20 has 39,029,188,884 solutions). */
#define SIMPLE_NQUEENS_MAX_N 20

/* Options; a zeroed struct (or NULL) gives the defaults. Every thread must
 * pass the same values. */
typedef struct {
  int static_partition; /* 1: the paper's static random partition; 0: dynamic */
  int symmetry;         /* 1: search only one of each mirror pair of solutions */
  int depth;            /* k, rows placed in the seeds: 1..n; 0: chosen from n and p */
  uint64_t seed;        /* the static partition's shuffle; 0: a fixed default */
} simple_nqueens_opts_t;

/* What one call did (for reports and tests). */
typedef struct {
  int depth;               /* k used */
  uint64_t seeds;          /* seeds enumerated (valid placements of k rows, halved by symmetry) */
  uint64_t seeds_explored; /* seeds this thread searched */
  uint64_t chunks;         /* chunks this thread took (dynamic); 1 for static */
  uint64_t ranges;         /* ranges this node drew from node 0 (dynamic, other nodes) */
} simple_nqueens_info_t;

/* Collective over every thread of the job: *solutions (on every thread)
 * gets the number of solutions of the n-queens problem. o may be NULL
 * (defaults), info may be NULL.
 * Errors, the same on every thread (the thread whose arguments are bad gets
 * the specific code, the others SIMPLE_ERR_PEER): SIMPLE_ERR_NOT_IN_JOB (s
 * NULL; returned at once, not collective), SIMPLE_ERR_ARG (n outside
 * 1..SIMPLE_NQUEENS_MAX_N, depth outside 0..n, static_partition or symmetry
 * not 0 or 1, n or options different among threads), SIMPLE_ERR_NULL
 * (solutions NULL), SIMPLE_ERR_NOMEM (the seeds: on the node short of
 * memory, SIMPLE_ERR_PEER on the others), errors of
 * simple_allreduce passed on. *solutions is written on success only.
 * A message that fails in the middle of the dynamic partition ends the job
 * (simple_abort, naming the call): the other nodes would wait for ever.
 * Cost: see above. */
SIMPLE_API int simple_nqueens(simple_t *s, int n, const simple_nqueens_opts_t *o,
                              uint64_t *solutions);

/* simple_nqueens, also filling *info (may be NULL) on success. */
SIMPLE_API int simple_nqueens_ex(simple_t *s, int n, const simple_nqueens_opts_t *o,
                                 uint64_t *solutions, simple_nqueens_info_t *info);

/* Sequential: the solutions below one partial placement, the library's
 * depth-first search (for benchmarks: the single-thread rate). n in
 * 1..SIMPLE_NQUEENS_MAX_N; 0 for other n. Whole board: cols = ld = rd = 0. */
SIMPLE_API uint64_t simple_nqueens_search(int n, uint32_t cols, uint32_t ld, uint32_t rd);

#ifdef __cplusplus
}
#endif

#endif /* SIMPLE_NQUEENS_H */
