/* simple: data parallelism (paper 000, section 2.2 and "Permutation" in
 * section 4; paper 002, sections 3.1.3, 3.1.5 and 3.2):
 *
 *   pardo           a loop split over the threads of the job or of a node:
 *                   block (the default), cyclic, block-cyclic; a range query
 *                   and for-loop macros. No synchronization inside.
 *   control         run a block on the master, on one thread of each node,
 *                   on every thread of one node, on thread t of node k.
 *   distributions   descriptors of 1D and 2D arrays dealt out by rows or by
 *                   columns, block / cyclic / block-cyclic, over the threads
 *                   of the job, over the nodes, or over the threads of a
 *                   node; the domain a part owns and the owner of an element
 *                   or of a range (paper 002's domain-of-thread and
 *                   owner-thread).
 *   redistribution  collective, multithreaded on every node: any
 *                   distribution to any other (row <-> column, block <->
 *                   cyclic, block-cyclic sizes), transpose, circular shift;
 *                   and the h-relation: every element carries a destination.
 *
 * Indices are `long` (a loop may start below 0); extents must be >= 0.
 *
 * Local storage. A part owning a set of rows stores them in increasing
 * order, row-major, each row whole: local element (li, j) at
 * local[li * ld + j]. A part owning a set of columns stores every row,
 * restricted to its columns in increasing order: local element (i, lj) at
 * local[i * ld + lj]. ld, the leading dimension, is the descriptor's `ld`,
 * or where that is 0 the local row length (cols, or local_cols): rows one
 * after another. A larger ld leaves ld - (row length) unused elements
 * after each local row, never read or written (e.g. so that columns are
 * not a power of two apart, which makes a strided pass down them, a
 * column FFT, conflict in the caches). For a set dealt block-cyclically
 * with block b over P parts, global index g is local index
 * (g / (b P)) b + g % b of part (g / b) % P; block gives part t the
 * contiguous range that starts at t floor(n/P) + min(t, n mod P) (the
 * first n mod P parts one longer).
 */
#ifndef SIMPLE_DIST_H
#define SIMPLE_DIST_H

#include "simple/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Ranges, kinds and scopes. */

/* How a range of indices is dealt out to parts. */
typedef enum {
  SIMPLE_BLOCK,        /* one contiguous piece per part, lengths differing by at most 1 */
  SIMPLE_CYCLIC,       /* index g to part g mod P */
  SIMPLE_BLOCK_CYCLIC, /* blocks of b consecutive indices, dealt cyclically */
} simple_kind_t;

/* Over whom: the parts and which part a thread is. */
typedef enum {
  SIMPLE_OVER_THREADS, /* every thread of the job: P = simple_nprocs, part = simple_pid */
  SIMPLE_OVER_NODE, /* the threads of the caller's node: P = simple_threads, part = simple_thread */
  SIMPLE_OVER_NODES, /* the nodes: P = simple_nodes, part = simple_node (shared by its threads) */
} simple_over_t;

/* A set of indices in block-cyclic form, which covers all three kinds:
 *   for (b0 = lo; b0 < hi; b0 += stride)
 *     for (i = b0; i < b0 + block && i < hi; i++) ...
 * Block: one piece (stride = block = its length); cyclic: block 1, stride
 * P; block-cyclic: block b, stride b P. Empty when lo >= hi. stride and
 * block are always >= 1. `count` is the number of indices in the set. */
typedef struct {
  long lo, hi, stride, block;
  long count;
} simple_range_t;

/* The part of [lo, hi) that `part` of `nparts` gets under kind (block: the
 * block-cyclic block size, used by SIMPLE_BLOCK_CYCLIC only). A pure
 * function, no handle: hi <= lo gives an empty range.
 * Errors: SIMPLE_ERR_ARG (unknown kind, block < 1 for block-cyclic, NULL
 * out), SIMPLE_ERR_RANK (part outside 0..nparts-1, nparts < 1). On error
 * *out (if not NULL) is an empty range. Cost: O(1). */
SIMPLE_API int simple_range_part(long lo, long hi, simple_kind_t kind, long block, int nparts,
                                 int part, simple_range_t *out);

/* The calling thread's part of the loop [lo, hi) over `over` (OVER_NODES:
 * every thread of a node gets the node's part). The pardo of paper 000:
 * no communication, no synchronization.
 * Errors: as simple_range_part; SIMPLE_ERR_NOT_IN_JOB for a NULL handle,
 * SIMPLE_ERR_ARG for an unknown `over`. Cost: O(1). */
SIMPLE_API int simple_pardo_range(const simple_t *s, long lo, long hi, simple_over_t over,
                                  simple_kind_t kind, long block, simple_range_t *out);

/* The range for the macros below: an empty range on any error. */
static inline simple_range_t simple__pardo(const simple_t *s, long lo, long hi, simple_over_t over,
                                           simple_kind_t kind, long block) {
  simple_range_t r;
  simple_pardo_range(s, lo, hi, over, kind, block, &r);
  return r;
}

/* Loops that read like for loops and declare the index (a long):
 *
 *   SIMPLE_PARDO(s, i, 0, n) { c[i] = a[i] + b[i]; }
 *
 * Each thread of the job runs its block of [lo, hi); SIMPLE_NODE_PARDO
 * splits [lo, hi) over the threads of the caller's node only (every node
 * runs the whole range), e.g. on a node-shared array. The _CYCLIC and
 * _BLOCK_CYCLIC forms deal indices cyclically or in blocks of b. No
 * barrier: follow with simple_barrier / simple_node_barrier when other
 * threads read what the loop wrote. `break` leaves only the inner loop of
 * a block-cyclic block; use a flag or a goto to leave the whole loop. */
#define SIMPLE_PARDO_EX(s, i, from, to, over, kind, b)                                       \
  for (simple_range_t simple__r_##i = simple__pardo((s), (from), (to), (over), (kind), (b)), \
                      *simple__p_##i = &simple__r_##i;                                       \
       simple__p_##i; simple__p_##i = 0)                                                     \
    for (long simple__b_##i = simple__r_##i.lo; simple__b_##i < simple__r_##i.hi;            \
         simple__b_##i += simple__r_##i.stride)                                              \
      for (long i = simple__b_##i,                                                           \
                simple__e_##i = simple__r_##i.hi - simple__b_##i < simple__r_##i.block       \
                                    ? simple__r_##i.hi                                       \
                                    : simple__b_##i + simple__r_##i.block;                   \
           i < simple__e_##i; i++)

#define SIMPLE_PARDO(s, i, from, to) \
  SIMPLE_PARDO_EX(s, i, from, to, SIMPLE_OVER_THREADS, SIMPLE_BLOCK, 1)
#define SIMPLE_PARDO_CYCLIC(s, i, from, to) \
  SIMPLE_PARDO_EX(s, i, from, to, SIMPLE_OVER_THREADS, SIMPLE_CYCLIC, 1)
#define SIMPLE_PARDO_BLOCK_CYCLIC(s, i, from, to, b) \
  SIMPLE_PARDO_EX(s, i, from, to, SIMPLE_OVER_THREADS, SIMPLE_BLOCK_CYCLIC, b)
#define SIMPLE_NODE_PARDO(s, i, from, to) \
  SIMPLE_PARDO_EX(s, i, from, to, SIMPLE_OVER_NODE, SIMPLE_BLOCK, 1)
#define SIMPLE_NODE_PARDO_CYCLIC(s, i, from, to) \
  SIMPLE_PARDO_EX(s, i, from, to, SIMPLE_OVER_NODE, SIMPLE_CYCLIC, 1)
#define SIMPLE_NODE_PARDO_BLOCK_CYCLIC(s, i, from, to, b) \
  SIMPLE_PARDO_EX(s, i, from, to, SIMPLE_OVER_NODE, SIMPLE_BLOCK_CYCLIC, b)

/* ------------------------------------------------------------------------
 * Control (paper 000, section 2.2): the block that follows runs on some
 * threads only. They are plain conditions: no synchronization, and an
 * `else` may follow. Out-of-range node or thread numbers select nobody.
 *
 *   SIMPLE_ON_MASTER(s) { printf("result %g\n", x); }
 *   simple_barrier(s);
 */
#define SIMPLE_ON_MASTER(s)         if (simple_pid(s) == 0)      /* thread 0 of node 0 */
#define SIMPLE_ON_NODE_MASTERS(s)   if (simple_thread(s) == 0)   /* one thread of each node */
#define SIMPLE_ON_NODE(s, k)        if (simple_node(s) == (k))   /* every thread of node k */
#define SIMPLE_ON_NODE_THREAD(s, t) if (simple_thread(s) == (t)) /* thread t of every node */
#define SIMPLE_ON_THREAD(s, k, t) \
  if (simple_node(s) == (k) && simple_thread(s) == (t)) /* thread t of node k */
#define SIMPLE_ON_PID(s, id) if (simple_pid(s) == (id)) /* global thread id */

/* ------------------------------------------------------------------------
 * Distributions of 1D and 2D arrays. A descriptor is a plain value; build
 * it with simple_dist_1d / simple_dist_2d (or fill the fields). It is
 * checked where it is used (SIMPLE_ERR_ARG when invalid). */

typedef enum {
  SIMPLE_ROWS, /* the rows are dealt out; every part holds whole rows */
  SIMPLE_COLS, /* the columns are dealt out; every part holds every row */
} simple_axis_t;

typedef struct {
  long rows, cols;    /* global shape; a 1D array of n elements is n x 1 by rows */
  simple_axis_t axis; /* which dimension is dealt out */
  simple_kind_t kind;
  long block;         /* block-cyclic block size (>= 1); ignored by the other kinds */
  simple_over_t over; /* the parts */
  long ld;            /* local leading dimension (elements from one local row to the next);
                         0: the local row length; else at least the longest part's */
} simple_dist_t;

/* Descriptors, ld 0 (no checks here; see above). */
SIMPLE_API simple_dist_t simple_dist_1d(long n, simple_kind_t kind, long block, simple_over_t over);
SIMPLE_API simple_dist_t simple_dist_2d(long rows, long cols, simple_axis_t axis,
                                        simple_kind_t kind, long block, simple_over_t over);

/* How many parts the distribution has in the calling thread's job (for
 * OVER_NODE: threads of the caller's node), and which one the caller is;
 * -1 on an invalid descriptor or handle. */
SIMPLE_API int simple_dist_parts(const simple_t *s, const simple_dist_t *d);
SIMPLE_API int simple_dist_my_part(const simple_t *s, const simple_dist_t *d);

/* What part `part` owns (paper 002's domain-of-thread): the set of rows
 * and of columns (one of them whole), and the shape of its local storage,
 * local_rows x local_cols = row.count x col.count, its rows ld elements
 * apart (the descriptor's ld, else local_cols): (local_rows - 1) ld +
 * local_cols elements where it holds any.
 * Errors: SIMPLE_ERR_NOT_IN_JOB, SIMPLE_ERR_ARG (invalid descriptor or
 * NULL out), SIMPLE_ERR_RANK (part out of range). Cost: O(1). */
typedef struct {
  simple_range_t row, col;
  long local_rows, local_cols, ld;
} simple_domain_t;
SIMPLE_API int simple_dist_domain(const simple_t *s, const simple_dist_t *d, int part,
                                  simple_domain_t *out);

/* The owner of element (i, j) (a 1D array: j = 0), and its local
 * coordinates there (li, lj may be NULL).
 * Errors: SIMPLE_ERR_NOT_IN_JOB, SIMPLE_ERR_ARG (invalid descriptor, NULL
 * part), SIMPLE_ERR_RANK (element outside the array). Cost: O(1). */
SIMPLE_API int simple_dist_owner(const simple_t *s, const simple_dist_t *d, long i, long j,
                                 int *part, long *li, long *lj);

/* The parts owning some element of rows [r0, r1) x columns [c0, c1)
 * (paper 002's owner-thread of a range), in increasing order: the first
 * min(*count, max) of them go to parts[], *count gets how many there are.
 * An empty rectangle has no owners.
 * Errors: SIMPLE_ERR_NOT_IN_JOB, SIMPLE_ERR_ARG (invalid descriptor, NULL
 * count, NULL parts with max > 0), SIMPLE_ERR_RANK (rectangle not inside
 * the array). Cost: O(min(P, extent of the rectangle along the axis)). */
SIMPLE_API int simple_dist_owners(const simple_t *s, const simple_dist_t *d, long r0, long r1,
                                  long c0, long c1, int *parts, int max, int *count);

/* ------------------------------------------------------------------------
 * Redistribution. Collective over every thread of the job. Both
 * descriptors are over SIMPLE_OVER_THREADS (thread pid owns part pid and
 * passes its own local storage, as laid out above) or both over
 * SIMPLE_OVER_NODES (node k owns part k in node-shared storage, e.g. from
 * simple_node_malloc, and every thread of the node passes the same
 * pointers; the node's threads then share every piece by lines). Every
 * thread passes the same descriptors, elem_size and k. src and dst must
 * not overlap.
 *
 * Algorithm (paper 002, 3.1.3 and 3.1.5, multithreaded on every node):
 * every thread packs what its part sends to each other node straight from
 * its local storage into that node's message (one message per node pair,
 * carrying the pieces of all thread pairs; transposes packed through
 * 32 x 8 tiles so that the strided side stays in cache, the tiles of a
 * piece of 1 MiB or more of 8- or 16-byte elements written past the
 * cache with streaming stores); threads 0..D-1
 * of every node exchange the messages on D lanes at once (D as in
 * simple_alltoall) while the other threads copy the node-local pieces
 * straight from source to destination storage (a tiled transpose for
 * simple_transpose), the drivers joining in between tests of their
 * transfers; then every thread unpacks the pieces addressed to it and
 * returns (over threads no closing barrier: a thread's storage is complete
 * when its call returns, another thread's when that one's returns). Nothing
 * is staged for pieces that stay on a node.
 * A piece that is one stretch of its storage (whole rows, or rows into
 * blocks of columns as wide as the destination storage) moves straight
 * from the source or into the destination through an MPI datatype,
 * neither packed nor unpacked (receives so on two nodes and on more than
 * 8, where nothing lands before the verdict; where a message between two
 * nodes holds at most 4096 pieces: up to 64 threads a node).
 * Cost, for a node holding V bytes of which a fraction f leaves it:
 * 4b (5b over nodes; one b less, and no sizing, when the node ran the
 * same plan among its last four) + the verdict on the arguments (up to 8
 * nodes none of its own: it rides on each node pair's first message; on
 * more max(0, 2 log2 P alpha - packing)) + 2 f V / B
 * (pack, unpack; less the pieces that move straight)
 * + (1 - f) V / B (direct copy) + (P - 1)/D alpha + beta f V,
 * with D threads driving transfers at once; on one node 2b + V / B.
 *
 * Errors (one verdict for the whole job before any destination is
 * written: a thread whose arguments are bad gets the specific code, every
 * other thread of the job SIMPLE_ERR_PEER; with several nodes the nodes
 * agree on it: on up to 8 in the first message each sends every other
 * (an empty one from a node in error), on more with a nonblocking
 * allreduce of one word, which travels while the threads size and pack;
 * nothing stays queued after a failed call):
 * SIMPLE_ERR_NOT_IN_JOB, SIMPLE_ERR_ARG (invalid or incompatible
 * descriptors, over not both OVER_THREADS or both OVER_NODES, threads of
 * a node passing different node storage, elem_size 0, src == dst),
 * SIMPLE_ERR_NULL (NULL storage for a non-empty part), SIMPLE_ERR_COUNT
 * (sizes overflow), SIMPLE_ERR_NOMEM, SIMPLE_ERR_MPI. */

/* dst (distributed by ddst) gets the array src holds (distributed by dsrc):
 * the same global shape, any two distributions (row <-> column, block <->
 * cyclic, ...). */
SIMPLE_API int simple_redistribute(simple_t *s, const void *src, const simple_dist_t *dsrc,
                                   void *dst, const simple_dist_t *ddst, size_t elem_size);

/* simple_redistribute without the node-local copies: only the pieces that
 * cross between nodes move. An element of dst whose source element is
 * held on the caller's node (by any of its threads, or by the caller
 * itself) is not written; the node's threads, which share memory, read
 * those elements in place in each other's source storage instead. When
 * the call returns, every thread of the node has finished writing its src
 * (the call's first barrier orders those writes before it); a thread that
 * writes its src again while others may still read it synchronizes with
 * them first (simple_node_barrier). Same arguments, checks, verdict and
 * errors as simple_redistribute; on one node nothing moves (the cost is
 * two barriers). Cost: simple_redistribute's less the direct copy, (1 - f)
 * V / B for a node holding V bytes of which a fraction f leaves it (the
 * node's own share: 1/nodes of the array under a block distribution). */
SIMPLE_API int simple_redistribute_remote(simple_t *s, const void *src, const simple_dist_t *dsrc,
                                          void *dst, const simple_dist_t *ddst, size_t elem_size);

/* dst = src^T: src is rows x cols, dst cols x rows; element (i, j) of src
 * becomes element (j, i) of dst. The classic case: both by rows, block. */
SIMPLE_API int simple_transpose(simple_t *s, const void *src, const simple_dist_t *dsrc, void *dst,
                                const simple_dist_t *ddst, size_t elem_size);

/* Circular shift by k rows: row i of src becomes row (i + k) mod rows of
 * dst (k may be negative or larger than rows). For a 1D array: element i
 * moves to (i + k) mod n. Same shape, any two distributions. */
SIMPLE_API int simple_shift(simple_t *s, const void *src, const simple_dist_t *dsrc, void *dst,
                            const simple_dist_t *ddst, long k, size_t elem_size);

/* The h-relation personalized communication (paper 000, "Permutation"):
 * thread p holds `count` elements of elem_size bytes; element e goes to
 * thread dest[e] (a global rank). With index == NULL, the elements a
 * thread receives are stored in recv in the order of their senders' ranks,
 * each sender's in its own order (a stable permutation: what a radix sort
 * needs); with index, element e lands at recv[index[e]] of its destination
 * (positions nobody writes are left untouched).
 * recv has room for `capacity` elements; *received (may be NULL) gets how
 * many elements this thread receives (also when the call fails for want of
 * capacity, so the caller can size the buffer).
 *
 * Algorithm: counts per destination (one pass), announced with one
 * simple_alltoall (with every thread's capacity, so senders can check
 * indices); one small simple_allreduce turns every check into the same
 * verdict on every thread before any data moves; elements packed by
 * destination (with their index when given) into a per-thread buffer
 * reused from call to call; one simple_alltoallv; unpacked into place (not
 * needed without index: the alltoallv lands them in recv directly).
 * Cost: alltoall(p words) + allreduce(1 word) + alltoallv(h elem_size) +
 * 2 h elem_size / B, h = the most elements any thread sends or receives.
 *
 * Errors (every thread gets one when any check fails anywhere in the job:
 * the failing thread its code, the others SIMPLE_ERR_PEER):
 * SIMPLE_ERR_NOT_IN_JOB, SIMPLE_ERR_ARG (elem_size 0), SIMPLE_ERR_NULL,
 * SIMPLE_ERR_RANK (a destination outside 0..nprocs-1, an index >= the
 * destination's capacity), SIMPLE_ERR_COUNT (more elements arrive than
 * capacity, sizes overflow), SIMPLE_ERR_NOMEM, SIMPLE_ERR_MPI. */
SIMPLE_API int simple_hrelation(simple_t *s, const void *send, size_t count, size_t elem_size,
                                const int *dest, const size_t *index, void *recv, size_t capacity,
                                size_t *received);

#ifdef __cplusplus
}
#endif

#endif /* SIMPLE_DIST_H */
