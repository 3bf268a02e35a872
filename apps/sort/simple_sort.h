/* simple_sort: parallel LSD radix sort of unsigned integer keys (uint32,
 * uint64) over every thread of a job, after paper 000 (the SIMPLE radix
 * sort) and paper 004 section 5 (RDXSORT and RDXSORTOPT).
 *
 * Data layout. Every processor (thread, global rank 0..p-1) passes its
 * part of the input: any number of keys, n in all. The output is the n
 * keys in ascending order, cut into p slices by the balance rule of
 * simple_sort_slice: processor i gets the keys at global positions
 * [lo_i, lo_i + cnt_i), cnt_i = floor(n / p) + (i < n mod p ? 1 : 0),
 * lo_i = i floor(n / p) + min(i, n mod p). Slices differ by at most one
 * key and the larger ones come first.
 *
 * The sort is stable and every pass is a global stable counting sort on
 * one digit: each processor's keys of digit v take the global positions
 * D[v] + S_q[v] ..., where D[v] counts every key with a smaller digit
 * and S_q[v] the keys of digit v on lower-ranked processors. Both come
 * from one hybrid allgather of the r-entry histograms while p r <= 2^16
 * (node-local in shared memory, then among nodes), else from an exclusive
 * scan and an allreduce. Bits that
 * are equal in every key are never sorted on: one OR/AND allreduce first
 * finds the bits that vary, and the passes cover only those, in digits of
 * at most `digit_bits` bits (11 by default: a 2^11-entry histogram and
 * its write cursors stay in the L1/L2 cache). The first pass also moves
 * the keys from the input layout to the balanced one, so there is always
 * at least one pass.
 *
 * Algorithms (simple_sort_opts_t.algo):
 *  - SIMPLE_SORT_SIMPLE (paper 000): each thread writes every key straight
 *    to its final place of the pass. Keys whose place is on the same node
 *    go into the owning thread's buffer through shared memory (one copy,
 *    no message); keys for other nodes are packed per destination thread
 *    as runs (global start, length) in position order and cross the
 *    network in one hybrid alltoallv per pass (one message per node pair,
 *    several threads driving them), then are copied into place by their
 *    owner.
 *    With the allgathered table every thread also computes how many bytes
 *    each remote thread sends it (O(p r) local work), so no size exchange.
 *    Cost per pass, N = keys per processor, r = 2^digit_bits:
 *    2 N/B (histogram read + scatter) + allgather of r words per thread
 *    (p r <= 2^16; else exscan and allreduce of r words + alltoall of 1
 *    word) + exchange of the inter-node keys (h bytes: alpha (P-1)/T +
 *    beta h) + h/B to place them + 1 node barrier.
 *  - SIMPLE_SORT_RDX (paper 004, Fig. 9, RDXSORT): per pass a local
 *    counting sort, the same prefix computation, then one put per digit
 *    value and destination in digit order 0, 1, ..., r-1
 *    (simple_rma_hpput into the destination's registered buffer) and one
 *    BSP superstep (simple_rma_sync) that delivers the inter-node puts.
 *    Cost per pass: 3 N/B + the prefix collectives + up to r + p puts per
 *    processor + one sync (see rma.h).
 *  - SIMPLE_SORT_RDXOPT (paper 004, Fig. 10, RDXSORTOPT): as RDX, but
 *    processor i routes digit values starting at i r / p and wrapping
 *    around, so that processors start their puts at different
 *    destinations. The paper's "artificial delay" after the routing loop
 *    is not reproduced: the puts here are queued until the sync, so there
 *    are no concurrent service requests to space out.
 *
 * Memory per processor: two buffers of cnt_i keys (one returned), plus for
 * SIMPLE a send and a receive buffer bounded by the keys it holds plus
 * 16 bytes per run, and for RDX/RDXOPT a local buffer of the keys it holds.
 * The work buffers are kept by the calling thread from call to call (a
 * repeated sort touches no fresh pages) and freed when the thread ends.
 *
 * Exchange between nodes (SIMPLE): one simple_alltoallv per pass (one
 * message per node pair); when every thread holds at least 4 MiB of keys,
 * has at most 64 threads on other nodes and a core of its own
 * (simple_cores_shared), each thread instead sends its sections straight
 * to their owners as simple_isend/simple_irecv messages (one MPI message
 * each, received in place, every thread driving its own instead of one
 * driver packing the node's traffic). SIMPLE_SORT_EXCHANGE=msg|alltoallv in the
 * environment forces one (for measurements). Messages use tag
 * simple_tag_ub(s): a program that sorts while it has messages of that
 * tag in flight must not. */
#ifndef SIMPLE_SORT_H
#define SIMPLE_SORT_H

#include <stddef.h>
#include <stdint.h>

#include <simple.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  SIMPLE_SORT_SIMPLE = 0, /* paper 000: shared-memory scatter + one alltoallv per pass */
  SIMPLE_SORT_RDX = 1,    /* paper 004 RDXSORT: puts in digit order, one sync per pass */
  SIMPLE_SORT_RDXOPT = 2  /* paper 004 RDXSORTOPT: puts from staggered start digits */
} simple_sort_algo_t;

/* What a sort did (filled when opts->info is not NULL; same everywhere). */
typedef struct {
  int passes;     /* counting-sort passes run (passes skipped as identity not counted) */
  int digit_bits; /* widest digit used */
  int sort_bits;  /* bits that vary among the keys (the span sorted on) */
  size_t n;       /* total keys */
} simple_sort_info_t;

typedef struct {
  simple_sort_algo_t algo; /* SIMPLE_SORT_SIMPLE (0) by default */
  int digit_bits; /* widest digit, 1..16; 0: 11 for SIMPLE, 8 for RDX/RDXOPT (the paper's) */
  simple_sort_info_t *info; /* optional: where to report what the sort did */
} simple_sort_opts_t;

/* The balance rule: processor pid of nprocs holds output positions
 * [*lo, *lo + *count) of n keys (see above). SIMPLE_ERR_ARG if nprocs < 1
 * or pid outside 0..nprocs-1, SIMPLE_ERR_NULL if lo or count is NULL.
 * Local, O(1). */
SIMPLE_API int simple_sort_slice(size_t n, int nprocs, int pid, size_t *lo, size_t *count);

/* Collective over every thread of the job: sorts the n_local keys of each
 * thread (keys is only read) into *out, a new buffer (free it with free()
 * or simple_sort_free) of *n_out keys: this thread's slice of the
 * globally sorted sequence. opts may be NULL (SIMPLE, default digits).
 * Every thread passes the same algo and digit_bits.
 * Errors, the same on every thread (the failing thread gets its code, the
 * others SIMPLE_ERR_PEER), nothing allocated on failure:
 * SIMPLE_ERR_NOT_IN_JOB (s NULL), SIMPLE_ERR_NULL (out or n_out NULL, keys
 * NULL with n_local > 0), SIMPLE_ERR_ARG (unknown algo, digit_bits outside
 * 0..16, different algo or digit_bits among threads), SIMPLE_ERR_COUNT
 * (sizes overflow), SIMPLE_ERR_NOMEM; errors of the collectives and of
 * the one-sided layer are passed on. */
SIMPLE_API int simple_sort_u32(simple_t *s, const uint32_t *keys, size_t n_local, uint32_t **out,
                               size_t *n_out, const simple_sort_opts_t *opts);
SIMPLE_API int simple_sort_u64(simple_t *s, const uint64_t *keys, size_t n_local, uint64_t **out,
                               size_t *n_out, const simple_sort_opts_t *opts);

/* As simple_sort_u32/u64, the result written into the caller's out, room
 * for out_cap keys (at least this thread's slice: simple_sort_slice of the
 * total; out may be NULL when out_cap is 0). Reusing out across calls
 * saves the page faults of a fresh buffer. out must not overlap keys.
 * Extra errors: SIMPLE_ERR_COUNT (out_cap below the slice), SIMPLE_ERR_NULL
 * (out NULL, out_cap > 0), SIMPLE_ERR_ARG (out overlaps keys). */
SIMPLE_API int simple_sort_into_u32(simple_t *s, const uint32_t *keys, size_t n_local,
                                    uint32_t *out, size_t out_cap, size_t *n_out,
                                    const simple_sort_opts_t *opts);
SIMPLE_API int simple_sort_into_u64(simple_t *s, const uint64_t *keys, size_t n_local,
                                    uint64_t *out, size_t out_cap, size_t *n_out,
                                    const simple_sort_opts_t *opts);

/* Releases a buffer returned by simple_sort_u32/u64 (free()). */
SIMPLE_API void simple_sort_free(void *p);

/* Order-independent 64-bit hash of a multiset of keys: the sum (mod 2^64)
 * of a strong 64-bit mix (splitmix64's finalizer) of each key, so a
 * permutation keeps it and a changed, lost or duplicated key changes it
 * except with probability about 2^-64. Hashes of parts add up. Local. */
SIMPLE_API uint64_t simple_sort_hash_u32(const uint32_t *keys, size_t n);
SIMPLE_API uint64_t simple_sort_hash_u64(const uint64_t *keys, size_t n);

/* Collective: checks a sort's result. in/n_in: this thread's input, out /
 * n_out: its output slice. *ok = 1 on every thread when (a) every slice
 * is in ascending order, (b) the last key of each non-empty slice is <=
 * the first key of the next non-empty slice, (c) each slice has the size
 * the balance rule gives for the total of the n_in, and (d) the hash of
 * all inputs equals the hash of all outputs (and the counts agree);
 * *ok = 0 everywhere otherwise. Errors: SIMPLE_ERR_NULL, and those of the
 * collectives. Cost: n_in + n_out reads, an allreduce of 4 words and an
 * allgather of 3 words per thread. */
SIMPLE_API int simple_sort_verify_u32(simple_t *s, const uint32_t *in, size_t n_in,
                                      const uint32_t *out, size_t n_out, int *ok);
SIMPLE_API int simple_sort_verify_u64(simple_t *s, const uint64_t *in, size_t n_in,
                                      const uint64_t *out, size_t n_out, int *ok);

/* Test inputs (simple-sort --dist, the tests, simple-bench sort). Key i of
 * n (global index, so every layout sorts the same keys), for B-bit keys:
 *   UNIFORM   pseudo-random, every bit varies;
 *   EQUAL     one value for all keys;
 *   SORTED    ascending, spread over the whole range: i (2^B - 1) / (n - 1);
 *   REVERSE   SORTED backwards;
 *   FEW       one of 7 pseudo-random values;
 *   HIGHBITS  pseudo-random in the top 8 bits, the other bits 0. */
typedef enum {
  SIMPLE_SORT_UNIFORM = 0,
  SIMPLE_SORT_EQUAL,
  SIMPLE_SORT_SORTED,
  SIMPLE_SORT_REVERSE,
  SIMPLE_SORT_FEW,
  SIMPLE_SORT_HIGHBITS,
  SIMPLE_SORT_DIST_COUNT__
} simple_sort_dist_t;

/* keys[j] = key first + j of the n keys of distribution dist, seed seed,
 * for j < count. SIMPLE_ERR_ARG: unknown dist; SIMPLE_ERR_NULL: keys NULL
 * with count > 0. Local. */
SIMPLE_API int simple_sort_gen_u32(simple_sort_dist_t dist, uint64_t seed, size_t n, size_t first,
                                   size_t count, uint32_t *keys);
SIMPLE_API int simple_sort_gen_u64(simple_sort_dist_t dist, uint64_t seed, size_t n, size_t first,
                                   size_t count, uint64_t *keys);
/* "uniform", "equal", ... ("unknown" else), and the reverse. */
SIMPLE_API const char *simple_sort_dist_name(simple_sort_dist_t dist);
SIMPLE_API int simple_sort_dist_parse(const char *name, simple_sort_dist_t *dist);

/* The name of an algorithm ("simple", "rdx", "rdxopt"), "unknown" else;
 * and the reverse (SIMPLE_ERR_ARG for an unknown name). */
SIMPLE_API const char *simple_sort_algo_name(simple_sort_algo_t algo);
SIMPLE_API int simple_sort_algo_parse(const char *name, simple_sort_algo_t *algo);

#ifdef __cplusplus
}
#endif

#endif /* SIMPLE_SORT_H */
