/* Redistribution of 1D and 2D arrays: any distribution to any other,
 * transpose, circular shift of rows. One engine for all three (paper 002,
 * 3.1.3 and 3.1.5, multithreaded on every node):
 *
 * Pieces. Thread u (its part of the source) sends thread v (its part of
 * the destination) the piece X(u, v): the elements u holds that v must
 * hold. A piece is a list of K "lines" (destination rows) by R "runs"
 * (stretches of consecutive destination columns that are also consecutive
 * in both local storages), W elements per line in all; it travels as
 * K x W elements in destination order. Both ends build the same lists
 * from the descriptors alone, so no sizes are announced.
 *
 * Parts over the nodes (both descriptors SIMPLE_OVER_NODES): the parts
 * are nodes, storage is node-shared, and a piece goes node to node; the
 * node's threads share each piece by lines when packing and unpacking,
 * and the node-local piece in 4 r chunks of lines from the queue below.
 *
 * Messages. The pieces from the threads of node a to those of node b
 * travel as one message, ordered by source thread, then destination
 * thread. Every thread packs its own pieces straight from its storage into
 * the node's out-messages (transposes through 32 x 8 tiles), but for a
 * piece that is one stretch of its storage, or between hosts lines of it
 * equally far apart (line_wise), which the message's MPI datatype takes
 * straight from the source, or puts straight into the destination where
 * nothing lands before the verdict (message_pieces);
 * threads 0..D-1 then drive the transfers, thread l on lane l, while the
 * others copy the pieces that stay on the node straight from source to
 * destination storage, taking them from a node-wide queue; the drivers
 * take from the queue too, testing their transfers every few lines (MPI
 * moves data only inside MPI calls), and wait for them once the queue is
 * empty (simple_redistribute_remote copies none of those: the node's
 * threads read them in place). Then every thread unpacks the pieces
 * addressed to it. Steps of the schedule: at step st (1..P-1) node a
 * sends to a + st and receives from a - st (mod P); step st belongs to
 * driver (st - 1) mod D on both ends, so both ends of a message use one
 * lane. Receives are posted at the start, so messages never wait for
 * them.
 *
 * Errors: every thread's verdict on its arguments travels in its slot;
 * with several nodes the nodes combine them. On up to
 * SIMPLE__XCHG_INBAND_NODES nodes the node's verdict travels in band, in
 * the first message of each node-pair exchange (src/xchg: a failed node
 * sends an error mark in its place), and thread 0 waits for those after
 * the sends, before the first write of a destination: no message of its
 * own, and it flies with the data. Since every node learns which nodes
 * failed, the others take back their receives from a failed node and tell
 * it how much to drain (simple__xchg_post_abandon), while it drains with
 * no sizes of its own (node_failed). On more nodes the node masters
 * combine it in a nonblocking vote of one word (net_comm.h), which
 * travels while the threads size and pack their pieces (into the node's
 * messages, the library's memory), and is waited for before the first
 * send: a failed node returns at once, the others take back their
 * receives. Either way no node waits for messages that will not come,
 * and none stays queued.
 *
 * Barriers: 2 on one node (publish, finish); 4 on several (publish, sizes
 * known, packed (and, where the verdict is not in band, verdict known),
 * transferred), and a fifth after
 * unpacking into node-shared storage; one less (sizes known) when the
 * node ran the same plan lately (its sizes kept: struct simple__dist_plan).
 * Where a node's threads share a core, thread 0 could do the node's whole
 * share (every thread's packing, the transfers, every thread's unpacking)
 * while the others wait once for its end: two synchronizations instead of
 * four on a kept plan. Measured, it gained nothing: 2 x 2 on the virtual
 * cluster, 256 x 256 FFT with natural output (two redistributions), one
 * program alternating blocks of 10 transforms each way, inputs restored,
 * medians of 21 paired blocks, both orders: 1.02 of the time of the
 * threads sharing the work. So every thread moves its own pieces.
 * Everything is allocated by thread 0 before the first one (node state,
 * grown from call to call). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "dist/dist.h"
#include "net/net.h"
#include "simple/dist.h"
#include "xchg/xchg.h"

/* Tile of the transposing copy: 32 lines by 8 elements along a run. The
 * strided side (8 source rows, 256 bytes of each) stays in L1 while the 32
 * lines walk across it, and 8 rows whose stride is a power of two still
 * fit the ways of one cache set; measured against 8x8, 16x16, 32x32 and
 * 8x64 tiles on 1024..4096-square matrices of doubles, it was the
 * fastest or close to it everywhere. With a tile row's loads issued
 * together (COPY_TILE), 16 elements along a run won on 2048 x 2048 (1 x
 * 2 on the 2-core AMD EPYC VM: doubles 5.9-6.1 ms against 7.6-7.7) but
 * lost on 4096 x 4096 (39.6-44.1 ms against 28.8-36.1) and on 2 x 2 on
 * the virtual cluster (4096: 69.8 ms against 58.7-61.5), where its 16
 * source rows a power of two apart no longer fit one cache set's ways. */
#define TILE_K 32
#define TILE_T 8
/* A transposing copy of a piece of this many bytes or more, of 8- or
 * 16-byte elements, writes its whole tile rows (64 or 128 bytes: whole
 * cache lines where the destination is aligned) with streaming stores,
 * which go to memory without first reading the lines they fill. Such a
 * piece outgrows the caches anyway, and cached stores paid twice: the
 * line read for ownership, and the destination's lines TILE_K rows a
 * power of two apart evicting each other. Below 1 MiB the destination
 * may still be in cache for its reader, and streaming lost where the
 * copies went into messages: every piece streamed, 2 x 2 on the virtual
 * cluster (simple-bench transpose, doubles, 2-core Intel Xeon VM), 256 x
 * 256 (pieces of 32 KiB) 0.09 -> 0.11 ms, 512 (128 KiB) 0.40-0.43 ->
 * 0.49, 1024 (512 KiB) level. From 1 MiB, against the cached stores,
 * two runs each: 1 x 2 1024 x 1024 0.87-0.93 -> 0.59-0.68 ms, 2048
 * 9.1 -> 3.1-3.6, 4096 43.5-45.4 -> 27.6-29.3; 2 x 2 2048 16.8-17.4 ->
 * 13.4-14.1, 4096 75.8-78.1 -> 64.0-66.9. */
#define STREAM_PIECE_BYTES ((size_t)1 << 20)

enum { MODE_PLAIN, MODE_SHIFT, MODE_TRANSPOSE };

typedef struct {
  simple__layout_t src, dst;
  int mode;
  long k; /* shift, in [0, rows) */
  size_t es;
  long maxdim;
  int bynode; /* both over SIMPLE_OVER_NODES: parts are nodes, storage node-shared */
  int remote; /* simple_redistribute_remote: the node-local pieces are not copied */
} plan_t;

/* The lists of one piece, in the calling thread's work buffer. */
typedef struct {
  long K, R, W;
  long *as, *ad;       /* [K] offset of line k (elements) in source / destination storage */
  long *bs, *bd, *len; /* [R] offset of run r, its length */
  long sts;            /* source step along a run: 1, or the source row length (transpose) */
} piece_t;

/* A redistribution planned before on several nodes (dist.h): the plan (the
 * key, compared bytewise: a plan is zero-filled before check fills it),
 * the bytes its messages and requests took, and the node's table of piece
 * sizes, out[r][p] then in[r][p]. Kept for tables up to PLAN_TAB_BYTES
 * (2 r p words: r p = 64 Ki, e.g. 64 threads of 1024 processors); a
 * repeated call then saves its sizing (2 p piece lists per thread) and
 * the node barrier after it (where threads share a core, a futex wake
 * and a context switch: 5-20 us on the virtual cluster). */
struct simple__dist_plan {
  plan_t pl;
  int valid;
  size_t msg_bytes, req_room;
  simple__buf_t tab;
};
#define PLAN_TAB_BYTES (1u << 20)

void simple__dist_plans_free(simple__dist_t *d) {
  for (int i = 0; d->plans && i < SIMPLE__DIST_PLANS; i++) simple__buf_free(&d->plans[i].tab);
  free(d->plans);
  d->plans = NULL;
}

static struct simple__dist_plan *plan_find(const simple__dist_t *st, const plan_t *pl) {
  for (int i = 0; st->plans && i < SIMPLE__DIST_PLANS; i++)
    if (st->plans[i].valid && memcmp(&st->plans[i].pl, pl, sizeof *pl) == 0) return &st->plans[i];
  return NULL;
}

/* Thread 0, once every thread has sized its pieces into tab (words size_t)
 * and before any thread reads a kept plan again: keeps the plan in place
 * of the oldest. Out of memory it keeps nothing (the next call sizes). */
static void plan_keep(simple__dist_t *st, const plan_t *pl, const size_t *tab, size_t words,
                      size_t msg_bytes) {
  size_t bytes = words * sizeof(size_t);
  if (bytes > PLAN_TAB_BYTES) return;
  if (!st->plans && !(st->plans = calloc(SIMPLE__DIST_PLANS, sizeof *st->plans))) return;
  struct simple__dist_plan *e = &st->plans[st->plan_next];
  e->valid = 0;
  if (bytes && simple__buf_grow(&e->tab, bytes)) return;
  if (bytes) memcpy(e->tab.p, tab, bytes);
  memcpy(&e->pl, pl, sizeof *pl);
  e->msg_bytes = msg_bytes;
  e->req_room = st->req_room;
  e->valid = 1;
  st->plan_next = (st->plan_next + 1) % SIMPLE__DIST_PLANS;
}

/* ------------------------------------------------------------------------
 * Sets along one axis of a layout. */

static int owns(const simple__layout_t *l, int dim, int part, long g) {
  return l->dim != dim || simple__axis_owner(&l->ax[dim], g) == part;
}

static long loc(const simple__layout_t *l, int dim, long g) {
  return l->dim == dim ? simple__axis_local(&l->ax[dim], g) : g;
}

/* The set of indices along dim that part holds. */
static void set_of(const simple__layout_t *l, int dim, int part, simple_range_t *r) {
  simple__axis_range(&l->ax[dim], l->dim == dim ? part : 0, r);
}

/* Runs of consecutive indices of set a (src, dim da, part u) that set b
 * (dst, dim db, part v) also holds, split where either storage jumps. */
static void runs(const plan_t *pl, piece_t *x, int da, int u, int db, int v, long step_s) {
  const simple__layout_t *S = &pl->src, *D = &pl->dst;
  simple_range_t a;
  set_of(S, da, u, &a);
  long lds = simple__layout_ld(S, u);
  x->R = x->W = 0;
  for (long g0 = a.lo; g0 < a.hi; g0 += a.stride) {
    long e = a.hi - g0 < a.block ? a.hi : g0 + a.block;
    for (long g = g0; g < e;) {
      /* Split where the destination's run of one owner ends, if sooner. */
      long re = D->dim == db ? simple__axis_run_end(&D->ax[db], g) : e, e2 = re < e ? re : e;
      if (owns(D, db, v, g)) {
        long ls = loc(S, da, g);
        x->bs[x->R] = step_s == 1 ? ls : ls * lds;
        x->bd[x->R] = loc(D, db, g);
        x->len[x->R] = e2 - g;
        x->W += e2 - g;
        x->R++;
      }
      g = e2;
    }
  }
}

/* The lines of a piece: indices g of the source set (axis ds, part u, or
 * of the destination set when the source holds the whole axis) that both
 * hold, after the map g -> (g + k) mod n from source to destination. */
static void lines(const plan_t *pl, piece_t *x, int ds, int u, int dd, int v, long k,
                  int transpose) {
  const simple__layout_t *S = &pl->src, *D = &pl->dst;
  long n = S->ax[ds].n, lds = simple__layout_ld(S, u), ldd = simple__layout_ld(D, v);
  int by_dst = S->dim != ds && D->dim == dd;
  simple_range_t a;
  set_of(by_dst ? D : S, by_dst ? dd : ds, by_dst ? v : u, &a);
  x->K = 0;
  if (k == 0 && !(S->dim == ds && S->ax[ds].cyc) && !(D->dim == dd && D->ax[dd].cyc)) {
    /* Block sets and no shift: the lines are one stretch of g, the part
     * of a that the other end also holds, and each local index is g less
     * its owner's first. The same lists as the loop below builds, without
     * an owner and two local indices (divisions) per line: in a 256 x 256
     * 2D FFT on 2 x 2 (virtual cluster) those took 4% of the cores' time
     * (perf), and this path made the transform 0.97-0.98 of its time. */
    simple_range_t b, src_set = {0}, dst_set = {0}; /* b: the other end's set */
    set_of(by_dst ? S : D, by_dst ? ds : dd, by_dst ? u : v, &b);
    if (S->dim == ds) set_of(S, ds, u, &src_set);
    if (D->dim == dd) set_of(D, dd, v, &dst_set);
    long lo = a.lo > b.lo ? a.lo : b.lo, hi = a.hi < b.hi ? a.hi : b.hi, os = src_set.lo,
         od = dst_set.lo;
    for (long g = lo; g < hi; g++, x->K++) {
      x->as[x->K] = transpose ? g - os : (g - os) * lds;
      x->ad[x->K] = (g - od) * ldd;
    }
    return;
  }
  for (long g0 = a.lo; g0 < a.hi; g0 += a.stride) {
    long e = a.hi - g0 < a.block ? a.hi : g0 + a.block;
    for (long g = g0; g < e; g++) {
      long i = by_dst ? (g - k + n) % n : g; /* source index */
      long j = by_dst ? g : (g + k) % n;     /* destination index */
      if (!by_dst && !owns(D, dd, v, j)) continue;
      long ls = loc(S, ds, i);
      x->as[x->K] = transpose ? ls : ls * lds;
      x->ad[x->K] = loc(D, dd, j) * ldd;
      x->K++;
    }
  }
}

/* Builds piece X(u, v) in the work buffer w (5 maxdim longs). */
static void build(const plan_t *pl, int u, int v, long *w, piece_t *x) {
  long m = pl->maxdim;
  x->as = w;
  x->ad = w + m;
  x->bs = w + 2 * m;
  x->bd = w + 3 * m;
  x->len = w + 4 * m;
  /* Transposing, destination rows are source columns (axis 1) and
   * destination columns source rows (axis 0); else axis for axis. The
   * shift k is 0 but for MODE_SHIFT. */
  int tr = pl->mode == MODE_TRANSPOSE;
  x->sts = tr ? simple__layout_ld(&pl->src, u) : 1;
  lines(pl, x, tr, u, 0, v, pl->k, tr);
  runs(pl, x, !tr, u, 1, v, x->sts);
}

static size_t piece_bytes(const plan_t *pl, const piece_t *x) {
  return (size_t)x->K * (size_t)x->W * pl->es;
}

/* ------------------------------------------------------------------------
 * Copying a piece. An end addresses element (k, r, t) of the piece at
 * base + (a[k] + b[r] + t step) elements, or in a message (a, b NULL) at
 * base + (k W + (run r's start within the line) + t). */

typedef struct {
  unsigned char *base;
  const long *a, *b;
  long step;
} end_t;

/* The destination side is contiguous along a run (step 1) in every
 * strided copy: only the source steps. A whole tile's row (TILE_T
 * elements: every tile but the last of a run) goes through a loop of
 * constant count, which the compiler unrolls into TILE_T independent
 * loads: each misses the cache (they lie a source row apart), and
 * issued together their misses overlap, where the loop of variable count
 * waited for them nearly one by one. Measured on the 2-core AMD EPYC VM, 2048 x 2048
 * doubles (simple_transpose, one program, medians of 31 calls): 1 x 1
 * 33.2-34.9 ms -> 18.4-20.2, 1 x 2 16.5-17.7 ms -> 7.1-10.6; 16-byte
 * elements on 1 x 2 17.1 -> 13.9-14.2 ms; 4-byte elements level. */
#define COPY_TILE(T)                                            \
  do {                                                          \
    const T *sp = (const T *)(const void *)s0;                  \
    T *dp = (T *)(void *)d0;                                    \
    if (tn == TILE_T)                                           \
      for (long t = 0; t < TILE_T; t++) dp[t] = sp[t * s.step]; \
    else                                                        \
      for (long t = 0; t < tn; t++) dp[t] = sp[t * s.step];     \
  } while (0)

/* Transfers a copying driver keeps moving: MPI progresses only inside MPI
 * calls, so a driver that copies tests its requests every POLL_LINES lines
 * (and every tile row) until they are done. */
typedef struct {
  simple__net_req_t *req;
  int n, done, rc;
} poll_t;

#define POLL_LINES 32

static void progress(poll_t *pl) {
  if (!pl || pl->done) return;
  int rc = simple__net_testall(pl->req, pl->n, &pl->done);
  if (rc && !pl->rc) pl->rc = rc;
}

/* Copies lines [kb, ke) of a piece (a message end addresses the whole
 * piece: line k at k W). */
static void copy_lines(const piece_t *x, long kb, long ke, end_t s, end_t d, size_t es,
                       poll_t *pl) {
  if (ke <= kb || x->W == 0) return;
  /* Every destination end steps by 1 along a run (storage_dst, message). */
  if (s.step == 1 && d.step == 1) {
    for (long k = kb; k < ke; k++) {
      if (pl && (k - kb) % POLL_LINES == 0) progress(pl);
      long off = 0, sk = s.a ? s.a[k] : k * x->W, dk = d.a ? d.a[k] : k * x->W;
      for (long r = 0; r < x->R; r++) {
        long sr = s.b ? s.b[r] : off, dr = d.b ? d.b[r] : off;
        memcpy(d.base + (size_t)(dk + dr) * es, s.base + (size_t)(sk + sr) * es,
               (size_t)x->len[r] * es);
        off += x->len[r];
      }
    }
    return;
  }
  /* Tiled: TILE_K lines at a time, each run in stretches of TILE_T, so
   * the block of the strided side stays in cache while the lines walk
   * across it. */
#if defined(__SSE2__)
  int stream = (es == 16 || es == 8) && (size_t)x->K * (size_t)x->W * es >= STREAM_PIECE_BYTES;
#endif
  for (long k0 = kb; k0 < ke; k0 += TILE_K) {
    long k1 = ke - k0 < TILE_K ? ke : k0 + TILE_K, off = 0;
    progress(pl);
    for (long r = 0; r < x->R; r++) {
      long sr = s.b ? s.b[r] : off, dr = d.b ? d.b[r] : off;
      for (long t0 = 0; t0 < x->len[r]; t0 += TILE_T) {
        long tn = x->len[r] - t0 < TILE_T ? x->len[r] - t0 : TILE_T;
        for (long k = k0; k < k1; k++) {
          long sk = s.a ? s.a[k] : k * x->W, dk = d.a ? d.a[k] : k * x->W;
          const unsigned char *s0 = s.base + (size_t)(sk + sr + t0 * s.step) * es;
          unsigned char *d0 = d.base + (size_t)(dk + dr + t0) * es;
          switch (es) {
            case 1: COPY_TILE(uint8_t); break;
            case 2: COPY_TILE(uint16_t); break;
            case 4: COPY_TILE(uint32_t); break;
            case 8:
#if defined(__SSE2__)
              if (stream && tn == TILE_T && ((uintptr_t)d0 & 15) == 0) {
                for (long t = 0; t < TILE_T; t += 2) {
                  const unsigned char *a = s0 + (size_t)(t * s.step) * 8;
                  __m128i lo = _mm_loadl_epi64((const __m128i *)(const void *)a),
                          hi = _mm_loadl_epi64((const __m128i *)(const void *)(a + s.step * 8));
                  _mm_stream_si128((__m128i *)(void *)(d0 + (size_t)t * 8),
                                   _mm_unpacklo_epi64(lo, hi));
                }
                break;
              }
#endif
              COPY_TILE(uint64_t);
              break;
            case 16:
              /* A double complex: a copy of a fixed size, which the
               * compiler makes one load and store (no alignment assumed),
               * where a memcpy call per element made the whole transpose
               * about twice as slow (simple_transpose, 1 x 2 on the
               * development VM: 256 x 256 95-144 us -> 52-62, 2048 x 2048
               * 10.0-11.9 ms -> 4.1-4.8). */
#if defined(__SSE2__)
              if (stream && tn == TILE_T && ((uintptr_t)d0 & 15) == 0) {
                for (long t = 0; t < TILE_T; t++)
                  _mm_stream_si128(
                      (__m128i *)(void *)(d0 + (size_t)t * 16),
                      _mm_loadu_si128(
                          (const __m128i *)(const void *)(s0 + (size_t)(t * s.step) * 16)));
                break;
              }
#endif
              if (tn == TILE_T)
                for (long t = 0; t < TILE_T; t++)
                  memcpy(d0 + (size_t)t * 16, s0 + (size_t)(t * s.step) * 16, 16);
              else
                for (long t = 0; t < tn; t++)
                  memcpy(d0 + (size_t)t * 16, s0 + (size_t)(t * s.step) * 16, 16);
              break;
            default:
              for (long t = 0; t < tn; t++)
                memcpy(d0 + (size_t)t * es, s0 + (size_t)(t * s.step) * es, es);
          }
        }
      }
      off += x->len[r];
    }
  }
#if defined(__SSE2__)
  if (stream) _mm_sfence();
#endif
}

static end_t storage_src(const void *base, const piece_t *x) {
  return (end_t){(unsigned char *)(uintptr_t)base, x->as, x->bs, x->sts};
}
static end_t storage_dst(void *base, const piece_t *x) { return (end_t){base, x->ad, x->bd, 1}; }
static end_t message(void *base) { return (end_t){base, NULL, NULL, 1}; }

/* ------------------------------------------------------------------------
 * Checks and the plan. */

/* Elements of part t's storage in l, from its first element to its last
 * ((rows - 1) ld + cols): 0, or SIMPLE_ERR_COUNT. */
static int part_elems(const simple__layout_t *l, int t, size_t *out) {
  long rows = simple__layout_rows(l, t), cols = simple__layout_cols(l, t);
  if (rows == 0 || cols == 0) {
    *out = 0;
    return 0;
  }
  if (simple__size_mul((size_t)(rows - 1), (size_t)simple__layout_ld(l, t), out))
    return SIMPLE_ERR_COUNT;
  *out += (size_t)cols;
  return *out < (size_t)cols ? SIMPLE_ERR_COUNT : 0;
}

static int check(simple_t *s, const void *src, const simple_dist_t *dsrc, void *dst,
                 const simple_dist_t *ddst, size_t es, int mode, long k, int remote, plan_t *pl) {
  int err;
  pl->remote = remote;
  if (!dsrc || !ddst || es == 0) return SIMPLE_ERR_ARG;
  /* Parts are threads (each its own storage) or nodes (node-shared
   * storage, the same pointer from every thread of the node), the same on
   * both sides. */
  pl->bynode = dsrc->over == SIMPLE_OVER_NODES;
  if (dsrc->over != ddst->over || (dsrc->over != SIMPLE_OVER_THREADS && !pl->bynode))
    return SIMPLE_ERR_ARG;
  if ((err = simple__layout(s, dsrc, &pl->src)) || (err = simple__layout(s, ddst, &pl->dst)))
    return err;
  if (mode == MODE_TRANSPOSE ? (ddst->rows != dsrc->cols || ddst->cols != dsrc->rows)
                             : (ddst->rows != dsrc->rows || ddst->cols != dsrc->cols))
    return SIMPLE_ERR_ARG;
  pl->mode = mode;
  pl->es = es;
  /* k mod rows in [0, rows): 2 rows fits a long (simple__layout). */
  if (mode == MODE_SHIFT && dsrc->rows > 0) pl->k = (k % dsrc->rows + dsrc->rows) % dsrc->rows;
  pl->maxdim = dsrc->rows > dsrc->cols ? dsrc->rows : dsrc->cols;
  int me = pl->bynode ? s->node->node : s->pid;
  size_t ns, nd, bytes;
  if (part_elems(&pl->src, me, &ns) || part_elems(&pl->dst, me, &nd) ||
      simple__size_mul(ns > nd ? ns : nd, es, &bytes) || bytes > (size_t)PTRDIFF_MAX)
    return SIMPLE_ERR_COUNT;
  if ((ns && !src) || (nd && !dst)) return SIMPLE_ERR_NULL;
  if (ns && nd && src == dst) return SIMPLE_ERR_ARG;
  return 0;
}

/* Bytes thread t of this node holds in `l` (storage of the global part);
 * t = -1: the node's part. */
static int part_bytes(const simple__node_t *n, const simple__layout_t *l, int t, size_t es,
                      size_t *out) {
  size_t e;
  if (part_elems(l, t < 0 ? n->node : n->first_pid[n->node] + t, &e)) return SIMPLE_ERR_COUNT;
  return simple__size_mul(e, es, out);
}

/* Thread 0, before the first barrier: what the threads use before the
 * second, in the set of the call's parity (dist.h). */
static int prepare(simple_t *s, const plan_t *pl, simple__dist_t **out) {
  simple__node_t *n = s->node;
  simple__dist_t *st = simple__dist_state(s);
  *out = st;
  if (!st) return SIMPLE_ERR_NOMEM;
  int par = s->call & 1;
  atomic_store_explicit(&st->next, 0, memory_order_relaxed); /* published by the barrier */
  size_t wb;
  if (simple__size_mul((size_t)pl->maxdim + 1, 5 * sizeof(long), &wb)) return SIMPLE_ERR_COUNT;
  for (int t = 0; t < n->threads; t++)
    if (simple__buf_grow(&st->work[par][t], wb)) return SIMPLE_ERR_NOMEM;
  if (n->nodes == 1) return 0;
  size_t tab = 2 * (size_t)n->threads * (size_t)n->nprocs * sizeof(size_t);
  return simple__buf_grow(&st->tab[par], tab) ? SIMPLE_ERR_NOMEM : 0;
}

/* Pieces move straight between storage and MPI (message_pieces) only
 * where a node-pair message has at most this many (threads of the largest
 * node times the node's own: up to 64 x 64), so that a driver's list of
 * them takes at most 64 KiB. */
#define DIRECT_PIECES_MAX 4096

/* The threads of the job's largest node. */
static int most_threads(const simple__node_t *n) {
  int most = 0;
  for (int k = 0; k < n->nodes; k++)
    if (n->threads_of[k] > most) most = n->threads_of[k];
  return most;
}

/* The most pieces a node-pair message of this node's can hold, 0 where
 * they never move straight (above DIRECT_PIECES_MAX). Each node decides
 * for its own ends of the messages: the bytes on the wire are the same
 * either way. */
static size_t direct_pieces(const simple__node_t *n) {
  size_t np = (size_t)most_threads(n) * (size_t)n->threads;
  return np <= DIRECT_PIECES_MAX ? np : 0;
}

/* A piece that is not one stretch of its storage but whose every line is
 * one (its runs side by side; in the source at a step of 1), the lines
 * equally far apart (rows of a block of columns in row-major storage: rows
 * to blocks of columns, and back), moves as lines (line_wise): a vector in
 * the message's datatype, which MPI packs into its fragments as it sends
 * each segment and unpacks out of them as each lands, instead of the
 * node's threads packing the whole message into the room before the first
 * segment leaves and unpacking it after the last. Only between hosts
 * (segments through MPI's network transport: on one host its shared memory
 * moves a contiguous message in one copy, which a datatype gives up), for
 * lines of LINE_BYTES_MIN or more (MPI's packing costs more than a memcpy
 * a line the shorter the lines: 1.6x at 256 bytes, 1.1-1.3x at 1 KiB,
 * MPI_Pack against a loop of memcpy) in messages of LINE_MESSAGE_MIN or
 * more. Measured on the virtual cluster (2D FFT, one program switching it
 * on and off between blocks of 10 transforms, medians of 21 paired blocks,
 * the median of 5 runs; time with over time without): 2 x 2 natural 256 x
 * 256 (messages of 256 KiB) 0.97, 512 0.87, 1024 0.96, 2048 0.94,
 * transposed 0.91-0.94 from 256 to 2048; 2 x 1 natural 256 0.99, 512 0.93.
 * Below 128 KiB it went either way: 2 x 2 natural 96 and 160 0.94, but 64
 * and 128 1.02; 2 x 1 128 1.03, 160 1.00. On one host (no virtual cluster)
 * it went either way: 2 x 2 0.87-0.96 (medians; single runs up to 1.39), 2
 * x 1 natural 256-1024 1.03-1.06, transposed 512 0.96. */
#define LINE_BYTES_MIN   256
#define LINE_MESSAGE_MIN (128 * 1024)

/* The most pieces a node-pair message of the job can hold (the largest
 * node's threads squared), 0 above DIRECT_PIECES_MAX: the same on every
 * node, as the parts of a message must be at both ends (x_parts). */
static size_t job_pieces(const simple__node_t *n) {
  size_t most = (size_t)most_threads(n);
  return most * most <= DIRECT_PIECES_MAX ? most * most : 0;
}

/* Thread 0, between the first and the second barrier (every thread is
 * done with the call before, nobody uses these before the second): the
 * messages (src/xchg's room; *msg_bytes gets its size) and the drivers'
 * requests. */
static int grow_messages(simple_t *s, const plan_t *pl, simple__dist_t *st, size_t *msg_bytes) {
  simple__node_t *n = s->node;
  /* The messages: at most what the node's threads hold, each way, plus
   * the rounding of every message's start to a cache line. */
  size_t msg = 2 * (size_t)n->nodes * SIMPLE__CACHE_LINE, b;
  for (int t = pl->bynode ? -1 : 0; t < (pl->bynode ? 0 : n->threads); t++)
    if (part_bytes(n, &pl->src, t, pl->es, &b) || simple__size_add(&msg, b) ||
        part_bytes(n, &pl->dst, t, pl->es, &b) || simple__size_add(&msg, b))
      return SIMPLE_ERR_COUNT;
  if (!(st->msg = simple__xchg_room(s, msg))) return SIMPLE_ERR_NOMEM;
  *msg_bytes = msg;
  /* A driver's requests, both ways (its messages in segments: src/xchg),
   * then its message sizes and offsets; sized before any transfer, so that
   * no driver can run short once transfers start. */
  simple__xchg_split_t split = simple__xchg_split(n, 1);
  st->req_room = 2 * simple__xchg_post_bound(n, split.chunks, msg);
  size_t per = st->req_room * sizeof(simple__net_req_t) + 4 * (size_t)n->nodes * sizeof(size_t);
  /* A driver's list of a message's pieces after them (message_pieces),
   * then the sizes of a message's pieces (x_parts). */
  size_t list = direct_pieces(n) * sizeof(simple__net_piece_t) + job_pieces(n) * sizeof(size_t);
  for (int t = 0; t < n->threads; t++)
    if (simple__buf_grow(&st->reqs[t], per + (t < split.drivers ? list : 0)))
      return SIMPLE_ERR_NOMEM;
  return 0;
}

/* ------------------------------------------------------------------------
 * The exchange. */

typedef struct {
  simple__node_t *n;
  const plan_t *pl;
  simple__dist_t *st;
  const simple__slot_t *slots;
  int r, me, pid, P, node, first, D, C; /* C: chunks per message */
  long *work;
  size_t *out, *in;                /* [r][p]: bytes of X(first + t, v), X(u, first + t) */
  size_t *osz, *ooff, *isz, *ioff; /* [P] per node message */
  unsigned char *mout, *min;
  int in_band;               /* the verdict travels in band (src/xchg), else a vote: */
  simple__comm_vote_t *vote; /* thread 0: the job-wide vote (in the node's state, dist.h) */
  int vote_err;              /* thread 0: the vote could not be started (MPI error) */
  /* pieces may leave from (out) or land in (in) storage (message_pieces) */
  int direct_out, direct_in;
  simple__net_piece_t *pieces;       /* a driver's list (its room, after ioff) */
  int pieces_k, pieces_in, pieces_n; /* the message it lists (k -1: none), its length */
  size_t *part_sizes;                /* a driver's sizes of a message's pieces (x_parts) */
} xc_t;

/* The node-local pieces u -> v (both on this node), straight from source
 * to destination storage, taken from the node's queue (pair q = u r + v)
 * by whoever is free: copiers at once, drivers between tests of their
 * transfers and after them; so the work balances itself whatever the
 * network does. */
static void local_pieces(const xc_t *c, poll_t *pl) {
  /* Over nodes one piece, node to itself, in 4 r chunks of lines (item
   * q: chunk q); over threads r x r pieces (item q: pair q). */
  int by = c->pl->bynode, r = c->r, items = by ? 4 * r : r * r, base = by ? c->node : c->first;
  piece_t x;
  for (;;) {
    int q = atomic_fetch_add_explicit(&c->st->next, 1, memory_order_relaxed);
    if (q >= items) break;
    int u = by ? 0 : q / r, v = by ? 0 : q % r;
    build(c->pl, base + u, base + v, c->work, &x);
    long kb = by ? x.K * q / items : 0, ke = by ? x.K * (q + 1) / items : x.K;
    copy_lines(&x, kb, ke, storage_src(c->slots[u].send, &x), storage_dst(c->slots[v].recv, &x),
               c->pl->es, pl);
  }
}

/* Sizes of the calling thread's outgoing (X(pid, v)) and incoming
 * (X(v, pid)) remote pieces, into its row of each table. */
static void size_pieces(const xc_t *c) {
  int p = c->n->nprocs;
  piece_t x;
  for (int in = 0; in < 2; in++)
    for (int v = 0; v < p; v++) {
      size_t b = 0;
      if (v < c->first || v >= c->first + c->r) {
        build(c->pl, in ? v : c->pid, in ? c->pid : v, c->work, &x);
        b = piece_bytes(c->pl, &x);
      }
      (in ? c->in : c->out)[(size_t)c->me * p + v] = b;
    }
}

/* The node's messages as src/xchg's engine asks for them (ctx: the xc_t). */
static size_t x_out_bytes(void *ctx, int k) { return ((const xc_t *)ctx)->osz[k]; }
static size_t x_in_bytes(void *ctx, int k) { return ((const xc_t *)ctx)->isz[k]; }
static const void *x_out(void *ctx, int k, int d) {
  const xc_t *c = ctx;
  (void)d;
  return c->mout + c->ooff[k];
}
static void *x_in(void *ctx, int k, int d, int *unpack) {
  const xc_t *c = ctx;
  (void)d;
  *unpack = 0;
  return c->min + c->ioff[k];
}

/* Where piece x lies in its storage as one stretch (in 1: destination,
 * else source; its lines one after another, each line's runs side by
 * side, a step of 1 along them): the offset of its first element, else
 * -1. */
static long stretch(const piece_t *x, int in) {
  const long *a = in ? x->ad : x->as, *b = in ? x->bd : x->bs;
  if (x->K == 0 || x->R == 0 || (!in && x->sts != 1)) return -1;
  for (long r = 1; r < x->R; r++)
    if (b[r] != b[r - 1] + x->len[r - 1]) return -1;
  for (long k = 1; k < x->K; k++)
    if (a[k] != a[k - 1] + x->W) return -1;
  return a[0] + b[0];
}

/* Where piece x (of thread t of this node) moves without the room: its
 * stretch in t's destination (in 1) or source storage, or NULL where it
 * is not one stretch (or the call moves nothing so that way). */
static unsigned char *in_place(const xc_t *c, const piece_t *x, int t, int in) {
  long at = (in ? c->direct_in : c->direct_out) ? stretch(x, in) : -1;
  if (at < 0) return NULL;
  const simple__slot_t *sl = &c->slots[t];
  return (unsigned char *)(uintptr_t)(in ? sl->recv : sl->send) + (size_t)at * c->pl->es;
}

/* Whether piece x moves as lines (in 1: into its destination, else from
 * its source), not packed into or unpacked out of the room, where it is
 * not one stretch (in_place): its lines each one and equally far apart.
 * Sets *stride (elements). */
static int line_wise(const xc_t *c, int node, const piece_t *x, int in, long *stride) {
  if (!(in ? c->direct_in : c->direct_out)) return 0;
  if ((in ? c->isz : c->osz)[node] < LINE_MESSAGE_MIN || !simple__xchg_between_hosts(c->n, node))
    return 0;
  if (x->K < 2 || x->R == 0 || (!in && x->sts != 1) || (size_t)x->W * c->pl->es < LINE_BYTES_MIN)
    return 0;
  const long *a = in ? x->ad : x->as, *b = in ? x->bd : x->bs;
  for (long r = 1; r < x->R; r++)
    if (b[r] != b[r - 1] + x->len[r - 1]) return 0;
  *stride = a[1] - a[0];
  if (*stride < x->W) return 0;
  for (long k = 2; k < x->K; k++)
    if (a[k] - a[k - 1] != *stride) return 0;
  return 1;
}

/* Appends a piece to a driver's list, into the last entry where both are
 * stretches and this one follows it. */
static void list_add(xc_t *c, int *m, simple__net_piece_t p) {
  simple__net_piece_t *last = *m ? &c->pieces[*m - 1] : NULL;
  if (last && last->lines <= 1 && p.lines <= 1 &&
      (unsigned char *)last->buf + last->bytes == (unsigned char *)p.buf)
    last->bytes += p.bytes;
  else
    c->pieces[(*m)++] = p;
}

/* The message from node k (in 1) or to it, as pieces (net.h) in message
 * order: each piece that is one stretch of its storage (blocks of whole
 * rows; rows into blocks of columns as wide as the storage, and back), or
 * lines of it (line_wise: the rows' end of those), straight from or into
 * it, the others packed into or unpacked out of the message's place in the
 * room as ever (move_pieces makes the same choice piece by piece, so
 * nothing needs agreeing on). One MPI transfer through a datatype over
 * them then saves the packing or unpacking of those pieces: one pass over
 * their bytes, read and written. NULL where no piece moves straight: the
 * message is its place in the room, sent or received as before. Cost:
 * building the message's r r_k piece lists, once per message and driver
 * (cached by k and direction). */
static const simple__net_piece_t *message_pieces(xc_t *c, int k, int in, int *np) {
  if (c->pieces_k != k || c->pieces_in != in) {
    const simple__node_t *n = c->n;
    const size_t *tab = in ? c->in : c->out;
    unsigned char *place = in ? c->min + c->ioff[k] : c->mout + c->ooff[k], *room = place;
    int a = in ? k : c->node, b = in ? c->node : k, m = 0;
    piece_t x;
    for (int u = n->first_pid[a]; u < n->first_pid[a + 1]; u++)
      for (int v = n->first_pid[b]; v < n->first_pid[b + 1]; v++) {
        int t = (in ? v : u) - c->first;
        size_t bytes = tab[(size_t)t * n->nprocs + (size_t)(in ? u : v)];
        if (!bytes) continue;
        build(c->pl, u, v, c->work, &x);
        unsigned char *at = in_place(c, &x, t, in);
        long stride;
        if (at) {
          list_add(c, &m, (simple__net_piece_t){at, bytes, 0, 0});
        } else if (line_wise(c, k, &x, in, &stride)) {
          const simple__slot_t *sl = &c->slots[t];
          unsigned char *base = (unsigned char *)(uintptr_t)(in ? sl->recv : sl->send);
          size_t es = c->pl->es;
          long first = (in ? x.ad : x.as)[0] + (in ? x.bd : x.bs)[0];
          list_add(c, &m,
                   (simple__net_piece_t){base + (size_t)first * es, (size_t)x.W * es, (size_t)x.K,
                                         (size_t)stride * es});
        } else {
          list_add(c, &m, (simple__net_piece_t){room, bytes, 0, 0});
        }
        room += bytes;
      }
    c->pieces_k = k;
    c->pieces_in = in;
    c->pieces_n = m == 1 && c->pieces[0].lines <= 1 && c->pieces[0].buf == place ? 0 : m;
  }
  *np = c->pieces_n;
  return c->pieces_n ? c->pieces : NULL;
}
static const simple__net_piece_t *x_in_pieces(void *ctx, int k, int d, int *np) {
  (void)d;
  return message_pieces(ctx, k, 1, np);
}
static const simple__net_piece_t *x_out_pieces(void *ctx, int k, int d, int *np) {
  (void)d;
  return message_pieces(ctx, k, 0, np);
}

/* The sizes of the pieces of the message to node k (out) or from it, in
 * message order (move_pieces), empty ones too: from the node's table,
 * which holds every piece of the node's messages both ways, so both ends
 * list the same sizes. Cost: r r_k loads. */
static int x_parts(void *ctx, int k, int d, int out, const size_t **sizes) {
  xc_t *c = ctx;
  const simple__node_t *n = c->n;
  const size_t *tab = out ? c->out : c->in;
  int a = out ? c->node : k, b = out ? k : c->node, m = 0;
  (void)d;
  for (int u = n->first_pid[a]; u < n->first_pid[a + 1]; u++)
    for (int v = n->first_pid[b]; v < n->first_pid[b + 1]; v++) {
      int t = (out ? u : v) - c->first;
      c->part_sizes[m++] = tab[(size_t)t * n->nprocs + (size_t)(out ? v : u)];
    }
  *sizes = c->part_sizes;
  return m;
}

/* Thread 0 of a node that did not fail: the node's verdict
 * (SIMPLE_ERR_PEER if another node failed), from the vote's end, or in
 * band from every node pair's first message (then the nodes that failed
 * in st->failed). */
static int node_verdict(const xc_t *c, const simple__xchg_t *xg) {
  if (c->in_band) {
    simple__net_req_t *reqs[SIMPLE__XCHG_MAX_LANES];
    for (int d = 0; d < c->D; d++) reqs[d] = c->st->reqs[d].p;
    int rc = simple__xchg_post_verdict(xg, reqs, c->st->failed);
    for (int k = 0; k < c->P && !rc; k++)
      if (c->st->failed[k]) rc = SIMPLE_ERR_PEER;
    return rc;
  }
  int w = c->vote_err ? c->vote_err : simple__comm_vote_wait(c->vote);
  return w ? w : c->vote->max ? SIMPLE_ERR_PEER : 0;
}

/* The node's messages to (in 0: sizes from the table c->out) or from
 * (in 1: c->in) every node, sizes into sz and offsets into off, each
 * message on its own cache line. Every thread reads the whole table (r p
 * entries), which saves a barrier over one thread doing it; over nodes
 * every thread sizes the one piece each way per node pair (P pieces, no
 * table, no barrier). Returns the bytes the messages take. */
static size_t layout(const xc_t *c, int in, size_t *sz, size_t *off) {
  const simple__node_t *n = c->n;
  const size_t *tab = in ? c->in : c->out;
  piece_t x;
  size_t at = 0;
  for (int k = 0; k < c->P; k++) {
    sz[k] = 0;
    if (!c->pl->bynode) {
      for (int t = 0; t < c->r; t++)
        for (int v = n->first_pid[k]; v < n->first_pid[k + 1]; v++)
          sz[k] += tab[(size_t)t * n->nprocs + v];
    } else if (k != c->node) {
      build(c->pl, in ? k : c->node, in ? c->node : k, c->work, &x);
      sz[k] = piece_bytes(c->pl, &x);
    }
    off[k] = at;
    at += (sz[k] + SIMPLE__CACHE_LINE - 1) & ~(size_t)(SIMPLE__CACHE_LINE - 1);
  }
  return at;
}

/* Lines [kb, ke) of piece x between the calling thread's storage (over
 * nodes the node's, thread 0's slot) and a message: packed out of the
 * storage into msg (in 0), or unpacked out of msg into it (in 1). */
static void copy_msg(const xc_t *c, const piece_t *x, long kb, long ke, unsigned char *msg,
                     int in) {
  const simple__slot_t *sl = &c->slots[c->pl->bynode ? 0 : c->me];
  if (in)
    copy_lines(x, kb, ke, message(msg), storage_dst(sl->recv, x), c->pl->es, NULL);
  else
    copy_lines(x, kb, ke, storage_src(sl->send, x), message(msg), c->pl->es, NULL);
}

/* The calling thread's pieces into the node's out-messages (in 0), or
 * those addressed to it out of the node's in-messages (in 1). A message
 * from node a to node b holds the pieces from a's threads to b's, by
 * source thread, then destination thread: in message k, the calling
 * thread's pieces follow those of the node's lower threads (in 0); in the
 * message from node k, source thread u's pieces follow those of k's lower
 * threads, and within them this thread's follows those of its lower
 * threads (in 1). Over nodes the threads share each piece by lines
 * (thread me of r copies lines [K me / r, K (me + 1) / r)). */
static void move_pieces(const xc_t *c, int in) {
  const simple__node_t *n = c->n;
  const size_t *tab = in ? c->in : c->out;
  piece_t x;
  for (int k = 0; k < c->P; k++) {
    if (k == c->node || (in ? c->isz : c->osz)[k] == 0) continue;
    unsigned char *msg = in ? c->min + c->ioff[k] : c->mout + c->ooff[k];
    int a = in ? k : c->node, b = in ? c->node : k; /* the message's source and destination */
    if (c->pl->bynode) {
      build(c->pl, a, b, c->work, &x);
      copy_msg(c, &x, x.K * c->me / c->r, x.K * (c->me + 1) / c->r, msg, in);
      continue;
    }
    for (int u = n->first_pid[a]; u < n->first_pid[a + 1]; u++)
      for (int v = n->first_pid[b]; v < n->first_pid[b + 1]; v++) {
        int t = (in ? v : u) - c->first; /* the thread of this node the piece is of */
        size_t bytes = tab[(size_t)t * n->nprocs + (size_t)(in ? u : v)];
        if (t == c->me && bytes) {
          build(c->pl, u, v, c->work, &x);
          long stride;
          if (!in_place(c, &x, t, in) && !line_wise(c, k, &x, in, &stride))
            copy_msg(c, &x, 0, x.K, msg, in);
        }
        msg += bytes;
      }
  }
}

/* The verdict where it travels in band, after the sends (gen: the
 * verdict's generation before them). Thread 0 waits for it and hands it
 * to the others: a bump and a wake-up (a futex call only where a thread
 * sleeps on it). If a node failed, the drivers take back their receives
 * from it and tell it how much to drain (nrecv of the nreq requests are
 * receives); if MPI failed, they take back every receive. Returns the
 * node's verdict. */
static int verdict_with_data(simple_t *s, const xc_t *c, const simple__xchg_t *xg, unsigned gen,
                             simple__net_req_t *req, int nrecv, int nreq) {
  simple__dist_t *st = c->st;
  if (c->me == 0) {
    st->verdict_rc = node_verdict(c, xg);
    atomic_store_explicit(&st->verdict_gen, gen + 1, memory_order_release);
    simple__wake_all(&st->verdict_gen, &st->verdict_sleepers);
  } else if (simple__wait_while(&st->verdict_gen, gen, &st->verdict_sleepers)) {
    return SIMPLE_ERR_FATAL;
  }
  if (!st->verdict_rc) return 0;
  if (c->me < c->D) {
    if (st->verdict_rc == SIMPLE_ERR_PEER) {
      simple__xchg_post_abandon(xg, c->me, st->failed, SIMPLE__TAG_REDIST_COUNT, req, nrecv, nreq);
    } else { /* no verdict: MPI failed */
      simple__net_cancel(req, nrecv);
      simple__net_waitall(req, nreq);
    }
  }
  return simple__sync_rc(s, st->verdict_rc);
}

/* A node that failed (rc, every thread's verdict), where the verdict
 * travels in band: thread 0 sends every node a mark in place of its first
 * message, and since the others send theirs before they learn the
 * verdict (exchange), drains what they send, every driver's items, while
 * the other threads wait (no thread may leave while messages of the call
 * are still on its lanes). */
static int node_failed(simple_t *s, const xc_t *c, int rc) {
  if (!c->in_band || rc == SIMPLE_ERR_FATAL) return rc;
  int d = 0;
  if (c->me == 0) {
    simple__xchg_t x = {.n = c->n, .tag = SIMPLE__TAG_REDIST, .drivers = c->D, .chunks = c->C};
    d = simple__xchg_post_failed(&x, SIMPLE__TAG_REDIST_COUNT);
  }
  int r2 = simple__sync_rc(s, d);
  return r2 == SIMPLE_ERR_FATAL ? r2 : rc;
}

/* Everything after the sizes are known on the node. */
static int exchange(simple_t *s, xc_t *c) {
  int me = c->me, rc = 0;
  c->min = c->mout + layout(c, 0, c->osz, c->ooff);
  layout(c, 1, c->isz, c->ioff);
  /* Drivers post their receives first (src/xchg: item i = (st - 1) C + ch
   * is chunk ch of the message of step st, on lane i mod D, on both ends). */
  simple__net_req_t *req = c->st->reqs[me].p;
  int nreq = 0;
  simple__xchg_t xg = {.n = c->n,
                       .tag = SIMPLE__TAG_REDIST,
                       .drivers = c->D,
                       .chunks = c->C,
                       .ctx = c,
                       .out_bytes = x_out_bytes,
                       .in_bytes = x_in_bytes,
                       .out = x_out,
                       .in = x_in,
                       .in_pieces = c->direct_in ? x_in_pieces : NULL,
                       .out_pieces = c->direct_out ? x_out_pieces : NULL,
                       .parts = c->pl->bynode || !job_pieces(c->n) ? NULL : x_parts,
                       .verdict = c->in_band,
                       .carrier = c->st->carrier};
  if (me < c->D) rc = simple__xchg_post(&xg, me, 0, req, &nreq);
  move_pieces(c, 0);
  /* The verdict. In band (every node learns every node's verdict from its
   * first message), after the sends, with the data: a node that failed
   * drains what it was sent (node_failed), the others take back their
   * receives from it; before anything is written outside the node's
   * messages all the same. Else before anything is sent: the vote has
   * flown while the threads sized and packed. */
  unsigned gen = atomic_load_explicit(&c->st->verdict_gen, memory_order_relaxed);
  if (me == 0 && !c->in_band) {
    int v = node_verdict(c, &xg); /* waited for whatever rc is */
    if (!rc) rc = v;
  }
  int rc2 = simple__sync_rc(s, rc);
  if (rc2) {
    /* Another node erred (the vote: no node sends), or MPI failed here:
     * the receives posted are taken back. */
    if (me < c->D) simple__net_cancel(req, nreq);
    return rc2;
  }
  int nrecv = nreq;
  if (me < c->D) rc = simple__xchg_post(&xg, me, 1, req, &nreq);
  if (c->in_band && (rc2 = verdict_with_data(s, c, &xg, gen, req, nrecv, nreq))) return rc2;
  if (me < c->D) {
    poll_t pr = {req, nreq, 0, 0};
    if (!rc && !c->pl->remote) local_pieces(c, &pr);
    int w = simple__net_waitall(req, nreq);
    if (!rc) rc = pr.rc ? pr.rc : w;
  } else if (!c->pl->remote) {
    local_pieces(c, NULL);
  }
  if ((rc = simple__sync_rc(s, rc))) return rc;
  move_pieces(c, 1);
  /* Over threads each thread wrote only its own part since the last
   * barrier: it is done, and nothing it still reads is written before the
   * next call's second barrier (dist.h), so no closing barrier (one node
   * synchronization less per call, a futex wake and a context switch
   * where threads share cores). A node's shared storage was written by
   * all its threads: they wait for each other. */
  return c->pl->bynode ? simple__sync_rc(s, 0) : 0;
}

/* redist on several nodes, once the slots are published (mine: this
 * thread's verdict on its arguments; bad: the node's). */
static int several_nodes(simple_t *s, xc_t *c, int mine, int bad, int parity) {
  simple__node_t *n = c->n;
  simple__dist_t *st = c->st;
  int rc;
  /* Drivers and chunks as src/xchg splits an all-pairs exchange: as in
   * simple_alltoall, but when the nodes are fewer than the threads that
   * could drive, each message is cut into C chunks on C lanes (several
   * streams between two nodes, as many threads copying). */
  simple__xchg_split_t split = simple__xchg_split(n, 1);
  c->C = split.chunks;
  c->D = split.drivers;
  c->in_band = simple__xchg_in_band(n);
  /* One verdict for the job. In band it needs nothing here. Else the node
   * masters start a vote (a nonblocking allreduce on lane 0, one word)
   * while the other threads size their pieces; a node that erred waits
   * for it here and returns after the node barrier that follows, the
   * others wait for it once packed (exchange). Without a node state (it
   * could not be made) the node is in error and waits at once: the
   * frame's vote serves. */
  simple__comm_vote_t vote;
  /* A kept plan (the same decision on every thread: thread 0's slot, and
   * no error on the node) has its sizes, its messages and its requests:
   * no sizing, no growth, no barrier before the exchange. */
  const struct simple__dist_plan *plan = bad ? NULL : c->slots[0].ptr;
  size_t rp = (size_t)c->r * (size_t)n->nprocs, msg_bytes = 0; /* thread 0: grown for */
  if (c->me == 0) {
    /* The messages and requests first: their growth is part of the
     * verdict. */
    int g = bad || plan ? 0 : grow_messages(s, c->pl, st, &msg_bytes);
    if (g) mine = g, bad = 1;
    if (!c->in_band) {
      c->vote = st ? &st->vote : &vote;
      int e = simple__comm_vote_start(simple__xchg_lane(n, 0), bad, c->vote);
      if (!e && bad) e = simple__comm_vote_wait(c->vote);
      if (e && plan) c->vote_err = e; /* told at the barrier after packing */
      if (e) mine = e, bad = 1;
    }
  }
  if (plan) {
    if (!c->pl->bynode) { /* over the nodes every thread sizes the pieces itself */
      c->out = plan->tab.p;
      c->in = c->out + rp;
    }
  } else {
    if (!bad) {
      c->out = st->tab[parity].p;
      c->in = c->out + rp;
      if (!c->pl->bynode) size_pieces(c);
    }
    if ((rc = simple__sync_rc(s, mine))) return node_failed(s, c, rc);
    /* Every thread has sized its pieces, and none reads a kept plan
     * before the next call's publish. */
    if (c->me == 0) plan_keep(st, c->pl, c->out, c->pl->bynode ? 0 : 2 * rp, msg_bytes);
  }
  /* Every thread computes the message sizes and offsets itself, into its
   * own room after its requests (grown by thread 0 before the barrier). */
  c->osz = (size_t *)(void *)((simple__net_req_t *)st->reqs[c->me].p + st->req_room);
  c->ooff = c->osz + c->P;
  c->isz = c->ooff + c->P;
  c->ioff = c->isz + c->P;
  c->mout = st->msg;
  /* Pieces go straight between storage and the network for per-thread
   * storage (over nodes the threads share each piece by lines). They land
   * in the destinations only where nothing can reach them before the
   * job's verdict (dist.h): on two nodes (a node that failed sends
   * nothing but its marks, and one that failed receives nothing), or
   * where the vote ends before the first send (more than
   * SIMPLE__XCHG_INBAND_NODES nodes); in between, a message from a node
   * that passed may land before the verdict says a third one failed.
   * Sources are read only until the transfers end, before the node
   * barrier that every thread passes before it returns. */
  c->direct_out = !c->pl->bynode && direct_pieces(n) > 0;
  c->direct_in = c->direct_out && (c->P == 2 || !c->in_band);
  c->pieces = (simple__net_piece_t *)(void *)(c->ioff + c->P);
  c->pieces_k = -1;
  c->part_sizes = (size_t *)(void *)(c->pieces + direct_pieces(n));
  return exchange(s, c);
}

static int redist(simple_t *s, const void *src, const simple_dist_t *dsrc, void *dst,
                  const simple_dist_t *ddst, size_t es, int mode, long k, int remote) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  simple__node_t *n = s->node;
  plan_t pl;
  memset(&pl, 0, sizeof pl);
  int err = check(s, src, dsrc, dst, ddst, es, mode, k, remote, &pl);
  simple__dist_t *st = NULL;
  int parity = s->call & 1; /* the call's work lists and table; the publish advances s->call */
  /* A plan this node ran before (several nodes): thread 0 asks for the
   * messages' room now (its bytes are written after the publish, xchg.h)
   * and hands the plan out in its slot. */
  struct simple__dist_plan *kept = NULL;
  if (!err && s->thread == 0) err = prepare(s, &pl, &st);
  if (!err && s->thread == 0 && n->nodes > 1 && (kept = plan_find(st, &pl))) {
    if ((st->msg = simple__xchg_room(s, kept->msg_bytes))) {
      st->req_room = kept->req_room;
    } else {
      err = SIMPLE_ERR_NOMEM;
      kept = NULL;
    }
  }
  /* Each thread's verdict travels in its slot instead of failing the
   * publish: with several nodes, a node must not return before all nodes
   * have agreed, or one whose arguments were fine would wait forever for
   * the others' messages. */
  int rc;
  const simple__slot_t *slots = simple__node_publish(s, src, dst, kept, (size_t)err, 0, &rc);
  if (!slots) return rc;
  int bad = 0, ok = !err;
  for (int t = 0; t < n->threads; t++) {
    /* Node-shared storage: one pointer on every thread of the node. */
    int differs =
        ok && pl.bynode && (slots[t].send != slots[0].send || slots[t].recv != slots[0].recv);
    bad |= slots[t].n != 0 || differs;
    if (differs && t == s->thread) err = SIMPLE_ERR_ARG;
  }
  if (n->nodes == 1 && bad) return err ? err : SIMPLE_ERR_PEER;
  st = simple__dist_of(n);
  xc_t c = {.n = n,
            .pl = &pl,
            .st = st,
            .slots = slots,
            .r = n->threads,
            .me = s->thread,
            .pid = s->pid,
            .P = n->nodes,
            .node = n->node,
            .first = n->first_pid[n->node],
            .work = bad ? NULL : st->work[parity][s->thread].p};
  if (c.P == 1) {
    if (!remote) local_pieces(&c, NULL);
    return simple__sync_rc(s, 0);
  }
  return several_nodes(s, &c, err, bad, parity);
}

int simple_redistribute(simple_t *s, const void *src, const simple_dist_t *dsrc, void *dst,
                        const simple_dist_t *ddst, size_t elem_size) {
  return redist(s, src, dsrc, dst, ddst, elem_size, MODE_PLAIN, 0, 0);
}

int simple_redistribute_remote(simple_t *s, const void *src, const simple_dist_t *dsrc, void *dst,
                               const simple_dist_t *ddst, size_t elem_size) {
  return redist(s, src, dsrc, dst, ddst, elem_size, MODE_PLAIN, 0, 1);
}

int simple_transpose(simple_t *s, const void *src, const simple_dist_t *dsrc, void *dst,
                     const simple_dist_t *ddst, size_t elem_size) {
  return redist(s, src, dsrc, dst, ddst, elem_size, MODE_TRANSPOSE, 0, 0);
}

int simple_shift(simple_t *s, const void *src, const simple_dist_t *dsrc, void *dst,
                 const simple_dist_t *ddst, long k, size_t elem_size) {
  return redist(s, src, dsrc, dst, ddst, elem_size, MODE_SHIFT, k, 0);
}
