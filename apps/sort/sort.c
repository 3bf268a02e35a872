/* Parallel LSD radix sort (see simple_sort.h for the algorithms and their
 * costs). One generic driver works on keys of ksz bytes; the two loops that
 * touch every key (histogram, scatter) are written once per key type. */
#include "simple_sort.h"
#include "sort_kernels.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SORT_MAX_DIGIT   16
#define SORT_DEF_SIMPLE  11                /* 2^11 counters (16 KiB) and cursors: L1/L2 resident */
#define SORT_DEF_RDX     8                 /* paper 004: four rounds of 8 bits for 32-bit keys */
#define SORT_MSG_PEERS   64                /* most remote threads for thread-to-thread messages */
#define SORT_MSG_BYTES   ((size_t)4 << 20) /* least key bytes per thread for them */
#define SORT_TABLE_WORDS ((size_t)1 << 16) /* largest allgathered histogram table */

/* ------------------------------------------------------------------------
 * Small helpers. */

int simple_sort_slice(size_t n, int nprocs, int pid, size_t *lo, size_t *count) {
  if (!lo || !count) return SIMPLE_ERR_NULL;
  if (nprocs < 1 || pid < 0 || pid >= nprocs) return SIMPLE_ERR_ARG;
  size_t P = (size_t)nprocs, i = (size_t)pid, q = n / P, r = n % P;
  *count = q + (i < r ? 1 : 0);
  *lo = i * q + (i < r ? i : r);
  return 0;
}

/* The processor whose slice holds global position pos (pos < n). */
static int owner_of(size_t pos, size_t q, size_t r) {
  size_t big = r * (q + 1);
  if (pos < big) return (int)(pos / (q + 1));
  return (int)(r + (pos - big) / q);
}

void simple_sort_free(void *p) { free(p); }

const char *simple_sort_algo_name(simple_sort_algo_t algo) {
  switch (algo) {
    case SIMPLE_SORT_SIMPLE: return "simple";
    case SIMPLE_SORT_RDX: return "rdx";
    case SIMPLE_SORT_RDXOPT: return "rdxopt";
    default: return "unknown";
  }
}

int simple_sort_algo_parse(const char *name, simple_sort_algo_t *algo) {
  if (!name || !algo) return SIMPLE_ERR_NULL;
  for (int a = SIMPLE_SORT_SIMPLE; a <= SIMPLE_SORT_RDXOPT; a++)
    if (strcmp(name, simple_sort_algo_name((simple_sort_algo_t)a)) == 0) {
      *algo = (simple_sort_algo_t)a;
      return 0;
    }
  return SIMPLE_ERR_ARG;
}

/* splitmix64's finalizer: every input bit affects every output bit. */
static inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

uint64_t simple_sort_hash_u32(const uint32_t *keys, size_t n) {
  uint64_t h = 0;
  for (size_t i = 0; i < n; i++) h += mix64(keys[i] + 0x9e3779b97f4a7c15ull);
  return h;
}

uint64_t simple_sort_hash_u64(const uint64_t *keys, size_t n) {
  uint64_t h = 0;
  for (size_t i = 0; i < n; i++) h += mix64(keys[i] + 0x9e3779b97f4a7c15ull);
  return h;
}

/* ------------------------------------------------------------------------
 * The loops over keys, once per key type. */

/* A stretch of consecutive output positions of one digit value that one
 * destination holds: the keys of that digit go to dst, len of them. */
typedef sort_piece_t piece_t;

/* ------------------------------------------------------------------------
 * Work buffers, kept per thread from call to call (freed when the thread
 * ends): a sort of the same size again touches no fresh pages, which on
 * first touch cost a page fault each (DESIGN: no hidden allocation in hot
 * paths). Contents are never kept. */

enum { CACHE_PARTNER, CACHE_TMP, CACHE_SEND, CACHE_RECV, CACHE_TABLE, CACHE_SLOTS };
typedef struct {
  void *p[CACHE_SLOTS];
  size_t cap[CACHE_SLOTS];
} scache_t;

static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static int cache_ok;

static void cache_release(void *v) {
  scache_t *c = v;
  for (int i = 0; i < CACHE_SLOTS; i++) free(c->p[i]);
  free(c);
}
static void cache_init(void) { cache_ok = pthread_key_create(&cache_key, cache_release) == 0; }

/* A buffer of at least `bytes` for slot i of the calling thread; NULL if
 * out of memory. */
static void *cache_get(int i, size_t bytes) {
  pthread_once(&cache_once, cache_init);
  if (!cache_ok) return NULL;
  scache_t *c = pthread_getspecific(cache_key);
  if (!c) {
    if (!(c = calloc(1, sizeof *c))) return NULL;
    if (pthread_setspecific(cache_key, c) != 0) {
      free(c);
      return NULL;
    }
  }
  if (bytes < 64) bytes = 64;
  if (c->cap[i] < bytes) {
    free(c->p[i]);
    c->cap[i] = 0;
    if (!(c->p[i] = malloc(bytes))) return NULL;
    c->cap[i] = bytes;
  }
  return c->p[i];
}

/* ------------------------------------------------------------------------
 * The sort. */

typedef struct {
  simple_t *s;
  size_t ksz;
  int P, me, nodes, node, T, first; /* first: global rank of thread 0 of my node */
  size_t n, q, r, lo, cnt;
  int algo, wmax;
  size_t R; /* 2^wmax: room of the per-digit arrays */
  uint64_t *h, *pre, *tot;
  void **cur, **end;
  size_t *next;
  piece_t *pieces;
  int *ptgt; /* destination of each piece */
  size_t *pstart;
  void *buf[2];
  void *tmp;                 /* RDX: the locally sorted keys */
  void **peers;              /* SIMPLE: node-shared, 2 buffers per thread of the node */
  uint64_t *table;           /* all histograms (p x r) when small enough, else NULL */
  char *sbuf, *rbuf;         /* SIMPLE, several nodes: packed inter-node runs */
  size_t *sc, *sd, *rc, *rd; /* alltoallv counts and displacements (bytes), P each */
  uint64_t *sbytes, *rbytes; /* alltoall of section sizes, P each */
  size_t *sruns, *skeys;     /* per destination: runs and keys of this pass */
  int use_msg;               /* inter-node sections by simple_isend/irecv, not alltoallv */
  simple_request_t *reqs;
  int nreq;
  void *res;     /* the result's buffer: the caller's, or an own one */
  void *partner; /* its partner in the ping-pong between passes */
  int own_res;   /* res is an own allocation */
} sctx_t;

static void digit_hist(const sctx_t *c, const void *src, size_t ns, int sh, int w) {
  size_t R = (size_t)1 << w;
  memset(c->h, 0, R * sizeof(uint64_t));
  if (c->ksz == 4)
    sort_hist_u32(src, ns, sh, (uint32_t)(R - 1), c->h);
  else
    sort_hist_u64(src, ns, sh, (uint64_t)(R - 1), c->h);
}

/* Cuts digit v's global run [start, start + len) into pieces by owner. */
static size_t cut_run(sctx_t *c, size_t np, size_t start, size_t len) {
  while (len > 0) {
    int t = owner_of(start, c->q, c->r);
    size_t tlo, tcnt;
    simple_sort_slice(c->n, c->P, t, &tlo, &tcnt);
    size_t take = tlo + tcnt - start;
    if (take > len) take = len;
    c->ptgt[np] = t;
    c->pstart[np] = start;
    c->pieces[np].len = take;
    np++;
    start += take;
    len -= take;
  }
  return np;
}

/* Global start of this thread's keys of each digit: D[v] + pre[v], into
 * pre (D: the exclusive prefix of the totals). */
static void global_starts(sctx_t *c, size_t R) {
  uint64_t d = 0;
  for (size_t v = 0; v < R; v++) {
    c->pre[v] += d;
    d += c->tot[v];
  }
}

/* The inter-node sections as thread-to-thread messages: every thread
 * posts its receives and sends at once (one MPI message each, received in
 * place), so all threads of a node drive the network and nothing is
 * packed twice. Sections above 1 GiB go as several messages in order. */
#define SORT_MSG_CHUNK ((size_t)1 << 30)
static int exchange_msg(sctx_t *c) {
  simple_t *s = c->s;
  int nr = 0, rc = 0, tag = simple_tag_ub(s);
  for (int pass = 0; pass < 2 && !rc; pass++)
    for (int t = 0; t < c->P && !rc; t++) {
      size_t bytes = pass == 0 ? c->rc[t] : c->sc[t];
      char *at = pass == 0 ? c->rbuf + c->rd[t] : c->sbuf + c->sd[t];
      while (bytes > 0 && !rc) {
        size_t m = bytes < SORT_MSG_CHUNK ? bytes : SORT_MSG_CHUNK;
        if (nr == c->nreq) {
          int grow = c->nreq ? 2 * c->nreq : 16;
          simple_request_t *q = realloc(c->reqs, sizeof *q * (size_t)grow);
          if (!q) {
            rc = SIMPLE_ERR_NOMEM;
            break;
          }
          c->reqs = q;
          c->nreq = grow;
        }
        rc = pass == 0 ? simple_irecv(s, at, m, SIMPLE_BYTE, t, tag, &c->reqs[nr])
                       : simple_isend(s, at, m, SIMPLE_BYTE, t, tag, &c->reqs[nr]);
        if (!rc) nr++;
        at += m;
        bytes -= m;
      }
    }
  /* Complete what was started even after an error: the peers wait for it. */
  int rc2 = nr ? simple_waitall(s, nr, c->reqs, SIMPLE_STATUS_IGNORE) : 0;
  return rc ? rc : rc2;
}

/* With every histogram at hand (c->table), the bytes each remote thread
 * sends here follow without asking it: its run of digit v starts at
 * D[v] + (digit-v keys of lower ranks), and the part inside this thread's
 * slice is one run of its section. O(p r), no communication: it replaces
 * the alltoall of section sizes. */
static void incoming_sizes(sctx_t *c, size_t R) {
  size_t lo = c->lo, hi = c->lo + c->cnt;
  memset(c->sruns, 0, sizeof(size_t) * (size_t)c->P);
  memset(c->skeys, 0, sizeof(size_t) * (size_t)c->P);
  uint64_t d = 0;
  for (size_t v = 0; v < R; v++) {
    uint64_t at = d;
    for (int q = 0; q < c->P; q++) {
      uint64_t len = c->table[(size_t)q * R + v], a = at > lo ? at : lo,
               b = at + len < hi ? at + len : hi;
      at += len;
      if (a >= b || (q - c->first >= 0 && q - c->first < c->T)) continue;
      c->sruns[q]++;
      c->skeys[q] += (size_t)(b - a);
    }
    d += c->tot[v];
  }
  for (int q = 0; q < c->P; q++)
    c->rbytes[q] = c->sruns[q] ? 8 + 16 * c->sruns[q] + c->ksz * c->skeys[q] : 0;
}

/* One SIMPLE pass: src (ns keys) -> buf[nb] of every thread. */
static int pass_simple(sctx_t *c, const void *src, size_t ns, int sh, int w, int nb) {
  simple_t *s = c->s;
  size_t R = (size_t)1 << w, ksz = c->ksz, np = 0;
  int rc;
  /* Pieces in digit order; per digit in position order. */
  for (size_t v = 0; v < R; v++) {
    c->next[v] = np;
    if (c->h[v]) np = cut_run(c, np, c->pre[v], c->h[v]);
  }
  int remote = c->nodes > 1;
  if (remote) {
    memset(c->sruns, 0, sizeof(size_t) * (size_t)c->P);
    memset(c->skeys, 0, sizeof(size_t) * (size_t)c->P);
    for (size_t i = 0; i < np; i++) {
      int t = c->ptgt[i];
      if (t - c->first >= 0 && t - c->first < c->T) continue;
      c->sruns[t]++;
      c->skeys[t] += c->pieces[i].len;
    }
    size_t at = 0;
    for (int t = 0; t < c->P; t++) {
      c->sd[t] = at;
      c->sc[t] = c->sruns[t] ? 8 + 16 * c->sruns[t] + ksz * c->skeys[t] : 0;
      c->sbytes[t] = c->sc[t];
      if (c->sruns[t]) {
        uint64_t nr = c->sruns[t];
        memcpy(c->sbuf + at, &nr, 8);
      }
      /* From here sruns / skeys count what has been placed so far. */
      c->sruns[t] = 0;
      c->skeys[t] = 0;
      at += c->sc[t];
    }
  }
  for (size_t i = 0; i < np; i++) {
    int t = c->ptgt[i];
    size_t tlo, tcnt;
    simple_sort_slice(c->n, c->P, t, &tlo, &tcnt);
    int lt = t - c->first;
    if (lt >= 0 && lt < c->T) {
      c->pieces[i].dst = (char *)c->peers[2 * lt + nb] + (c->pstart[i] - tlo) * ksz;
    } else {
      /* Section of t: [nruns][runs (start, len)...][keys...]. */
      char *sec = c->sbuf + c->sd[t];
      uint64_t nr;
      memcpy(&nr, sec, 8);
      uint64_t run[2] = {c->pstart[i], c->pieces[i].len};
      memcpy(sec + 8 + 16 * c->sruns[t], run, 16);
      c->pieces[i].dst = sec + 8 + 16 * nr + ksz * c->skeys[t];
      c->sruns[t]++;
      c->skeys[t] += c->pieces[i].len;
    }
  }
  /* Sentinel: cursors of finished digits may point at it, never write. */
  c->pieces[np].dst = (char *)c->tmp;
  c->pieces[np].len = 0;
  for (size_t v = 0; v < R; v++) {
    if (!c->h[v]) continue;
    piece_t *p = &c->pieces[c->next[v]++];
    c->cur[v] = p->dst;
    c->end[v] = p->dst + p->len * ksz;
  }
  if (ksz == 4)
    sort_scatter_u32(src, ns, sh, (uint32_t)(R - 1), (uint32_t **)c->cur, (uint32_t **)c->end,
                     c->next, c->pieces);
  else
    sort_scatter_u64(src, ns, sh, (uint64_t)(R - 1), (uint64_t **)c->cur, (uint64_t **)c->end,
                     c->next, c->pieces);
  if (remote) {
    if (c->table)
      incoming_sizes(c, R);
    else if ((rc = simple_alltoall(s, c->sbytes, c->rbytes, 1, SIMPLE_UINT64)))
      return rc;
    size_t at = 0;
    for (int t = 0; t < c->P; t++) {
      c->rc[t] = (size_t)c->rbytes[t];
      c->rd[t] = at;
      at += c->rc[t];
    }
    if (c->use_msg)
      rc = exchange_msg(c);
    else
      rc = simple_alltoallv(s, c->sbuf, c->sc, c->sd, c->rbuf, c->rc, c->rd, SIMPLE_BYTE);
    if (rc) return rc;
    char *mine = c->buf[nb];
    for (int t = 0; t < c->P; t++) {
      if (!c->rc[t]) continue;
      const char *sec = c->rbuf + c->rd[t];
      uint64_t nr;
      memcpy(&nr, sec, 8);
      const char *keys = sec + 8 + 16 * nr;
      for (uint64_t j = 0; j < nr; j++) {
        uint64_t run[2];
        memcpy(run, sec + 8 + 16 * j, 16);
        memcpy(mine + (run[0] - c->lo) * ksz, keys, run[1] * ksz);
        keys += run[1] * ksz;
      }
    }
  }
  /* Every thread's direct writes into this node's buffers are done before
   * anyone reads them in the next pass. */
  return simple_node_barrier(s);
}

/* Local stable counting sort of src into c->tmp by the digit whose
 * histogram is in c->h; c->next[v] gets the start of digit v in tmp. */
static void local_countsort(sctx_t *c, const void *src, size_t ns, int sh, int w) {
  size_t R = (size_t)1 << w, ksz = c->ksz, at = 0;
  for (size_t v = 0; v < R; v++) {
    c->next[v] = at;
    c->pieces[v].dst = (char *)c->tmp + at * ksz;
    c->pieces[v].len = (size_t)c->h[v];
    at += (size_t)c->h[v];
  }
  /* One piece per digit, so cursors never advance into another's. */
  c->pieces[R].dst = (char *)c->tmp;
  c->pieces[R].len = 0;
  for (size_t v = 0; v < R; v++) {
    c->cur[v] = c->pieces[v].dst;
    c->end[v] = c->pieces[v].dst + c->pieces[v].len * ksz;
    c->pstart[v] = v + 1; /* reused as the piece cursor */
  }
  if (ksz == 4)
    sort_scatter_u32(src, ns, sh, (uint32_t)(R - 1), (uint32_t **)c->cur, (uint32_t **)c->end,
                     c->pstart, c->pieces);
  else
    sort_scatter_u64(src, ns, sh, (uint64_t)(R - 1), (uint64_t **)c->cur, (uint64_t **)c->end,
                     c->pstart, c->pieces);
}

/* One RDX / RDXOPT pass: local counting sort, then puts digit by digit
 * (from digit `first_digit`, wrapping), one sync. */
static int pass_rdx(sctx_t *c, const void *src, size_t ns, int sh, int w, int nb, int opt) {
  simple_t *s = c->s;
  size_t R = (size_t)1 << w, ksz = c->ksz;
  local_countsort(c, src, ns, sh, w);
  size_t v0 = opt ? (size_t)c->me * R / (size_t)c->P : 0;
  for (size_t j = 0; j < R; j++) {
    size_t v = (v0 + j) % R;
    size_t len = (size_t)c->h[v], start = (size_t)c->pre[v];
    const char *from = (const char *)c->tmp + c->next[v] * ksz;
    while (len > 0) {
      int t = owner_of(start, c->q, c->r);
      size_t tlo, tcnt;
      simple_sort_slice(c->n, c->P, t, &tlo, &tcnt);
      size_t take = tlo + tcnt - start;
      if (take > len) take = len;
      int rc = simple_rma_hpput(s, t, from, c->buf[nb], (start - tlo) * ksz, take * ksz);
      if (rc) return rc;
      from += take * ksz;
      start += take;
      len -= take;
    }
  }
  return simple_rma_sync(s);
}

static void ctx_free(sctx_t *c) {
  free(c->h);
  free(c->cur);
  free(c->next);
  free(c->pieces);
  free(c->ptgt);
  free(c->pstart);
  free(c->sc);
  free(c->sbytes);
  free(c->sruns);
  free(c->reqs);
}

/* What every thread contributes to the one allreduce (bitwise OR) that
 * agrees on a sort before any key moves. A value that must be the same
 * everywhere travels with its complement: after the OR, x == ~x_not holds
 * only if every thread passed the same x. Seven words, one collective. */
typedef struct {
  uint64_t key_or;   /* OR of the thread's keys */
  uint64_t key_nand; /* NOT of the AND of its keys (OR-combined: NOT of the global AND) */
  uint64_t flags;    /* AGREE_* */
  uint64_t algo, algo_not;
  uint64_t wmax, wmax_not; /* the digit width bound */
} agreement_t;
enum { AGREE_NOMEM = 1, AGREE_UNBALANCED = 2, AGREE_SHORT = 4 };
#define AGREE_WORDS (sizeof(agreement_t) / sizeof(uint64_t))
_Static_assert(sizeof(agreement_t) == 7 * sizeof(uint64_t), "the agreement is 7 words");

/* One thread's argument checks: 0 or the error code. */
static int check_args(int P, const void *keys, size_t n_local, size_t ksz, void **out, int into,
                      const void *user_out, size_t out_cap, const size_t *n_out, int algo, int db) {
  if (!n_out || (!into && !out) || (!keys && n_local > 0) || (into && !user_out && out_cap))
    return SIMPLE_ERR_NULL;
  if (algo < SIMPLE_SORT_SIMPLE || algo > SIMPLE_SORT_RDXOPT || db < 0 || db > SORT_MAX_DIGIT)
    return SIMPLE_ERR_ARG;
  if (n_local > (SIZE_MAX / 32) / (size_t)P || out_cap > SIZE_MAX / 16) return SIMPLE_ERR_COUNT;
  if (into && user_out && keys && n_local && out_cap &&
      (uintptr_t)user_out < (uintptr_t)keys + n_local * ksz &&
      (uintptr_t)keys < (uintptr_t)user_out + out_cap * ksz)
    return SIMPLE_ERR_ARG; /* the first pass reads keys while writing out */
  return 0;
}

/* The context of a sort of n keys in all (no allocation yet). */
static void ctx_init(sctx_t *c, simple_t *s, size_t ksz, size_t n, int algo, int db) {
  memset(c, 0, sizeof *c);
  int P = simple_nprocs(s);
  c->s = s;
  c->ksz = ksz;
  c->P = P;
  c->me = simple_pid(s);
  c->nodes = simple_nodes(s);
  c->node = simple_node(s);
  c->T = simple_threads(s);
  c->first = c->me - simple_thread(s);
  c->n = n;
  c->q = c->n / (size_t)P;
  c->r = c->n % (size_t)P;
  simple_sort_slice(c->n, P, c->me, &c->lo, &c->cnt);
  c->algo = algo;
  /* Thread-to-thread messages for large sections while each thread has
   * few remote peers and a core of its own, so that every thread drives
   * its own transfers (measured on the virtual cluster on an earlier host:
   * 1.5-2x faster than the alltoallv at 16 MiB per thread, 2x slower at
   * 1 MiB, where the alltoallv's one message per node pair and blocking
   * MPI wait win). Where threads share cores they only take turns in MPI's
   * progress loop: the alltoallv, driven by one thread per node, was then
   * as fast or faster at every size (2 x 2 virtual nodes of one core, two
   * runs each: 2^22 keys 23.1-25.8 ms against 32.4-35.2, 2^24 107-110
   * against 113-115, 2^26 445-449 against 449-453).
   * SIMPLE_SORT_EXCHANGE=msg|alltoallv forces one (measurements). The
   * choice depends only on n, the layout, the job-wide core verdict and
   * the environment: the same on every thread of every node. */
  int min_threads = c->T;
  for (int k = 0; k < c->nodes; k++)
    if (simple_threads_on(s, k) < min_threads) min_threads = simple_threads_on(s, k);
  const char *ex = getenv("SIMPLE_SORT_EXCHANGE");
  c->use_msg = ex && strcmp(ex, "alltoallv") == 0 ? 0
               : ex && strcmp(ex, "msg") == 0
                   ? 1
                   : !simple_cores_shared(s) && P - min_threads <= SORT_MSG_PEERS &&
                         c->n / (size_t)P * ksz >= SORT_MSG_BYTES;
  c->wmax = db ? db : (algo == SIMPLE_SORT_SIMPLE ? SORT_DEF_SIMPLE : SORT_DEF_RDX);
  c->R = (size_t)1 << c->wmax;
}

/* The sort's buffers, for a thread holding n_local keys, the result into
 * user_out (NULL: an own buffer). Returns 1 when an allocation failed
 * (agreed on with the key bits). */
static int ctx_alloc(sctx_t *c, size_t n_local, void *user_out) {
  size_t R = c->R, P = (size_t)c->P, ksz = c->ksz, hold = n_local > c->cnt ? n_local : c->cnt;
  c->h = malloc(3 * R * sizeof(uint64_t));
  c->cur = malloc(2 * R * sizeof(void *));
  c->next = malloc(R * sizeof(size_t));
  c->pieces = malloc((R + P + 2) * sizeof(piece_t));
  c->ptgt = malloc((R + P + 2) * sizeof(int));
  c->pstart = malloc((R + P + 2) * sizeof(size_t));
  /* The result's buffer and its partner of the ping-pong between passes;
   * an own buffer also for an empty caller's one: RDX registers both. */
  c->res = user_out;
  c->partner = cache_get(CACHE_PARTNER, (c->cnt ? c->cnt : 1) * ksz);
  c->own_res = !c->res;
  if (!c->res) c->res = malloc((c->cnt ? c->cnt : 1) * ksz);
  c->buf[0] = c->res;
  c->buf[1] = c->partner;
  /* RDX sorts locally into tmp; SIMPLE only points finished cursors at it. */
  c->tmp = cache_get(CACHE_TMP, c->algo == SIMPLE_SORT_SIMPLE ? 64 : (hold ? hold : 1) * ksz);
  c->sc = malloc(4 * P * sizeof(size_t));
  c->sbytes = malloc(2 * P * sizeof(uint64_t));
  c->sruns = malloc(2 * P * sizeof(size_t));
  if (!c->h || !c->cur || !c->next || !c->pieces || !c->ptgt || !c->pstart || !c->res ||
      !c->partner || !c->tmp || !c->sc || !c->sbytes || !c->sruns)
    return 1;
  c->pre = c->h + R;
  c->tot = c->h + 2 * R;
  c->end = c->cur + R;
  c->sd = c->sc + P;
  c->rc = c->sd + P;
  c->rd = c->rc + P;
  c->rbytes = c->sbytes + P;
  c->skeys = c->sruns + P;
  if (P * R <= SORT_TABLE_WORDS && !(c->table = cache_get(CACHE_TABLE, P * R * sizeof(uint64_t))))
    return 1;
  if (c->algo == SIMPLE_SORT_SIMPLE && c->nodes > 1) {
    /* A section per remote destination: 8 bytes, 16 per run (a run is a
     * digit's piece: at most R + P - 1 of them, never more than keys), the
     * keys. Received runs: at most one per (sender, digit), one per key. */
    size_t sruns = hold < R + P ? hold : R + P;
    size_t rruns = P * R;
    if (rruns / R != P || rruns > c->cnt) rruns = c->cnt;
    c->sbuf = cache_get(CACHE_SEND, ksz * hold + 8 * P + 16 * sruns + 64);
    c->rbuf = cache_get(CACHE_RECV, ksz * c->cnt + 8 * P + 16 * rruns + 64);
    if (!c->sbuf || !c->rbuf) return 1;
  }
  return 0;
}

/* Frees the context, and the result's buffer unless it goes to the
 * caller. */
static void ctx_release(sctx_t *c, int keep_res) {
  if (c->own_res && !keep_res) free(c->res);
  ctx_free(c);
}

/* The agreement (agreement_t) on a sort: bits that vary among all keys
 * (OR ^ AND), whether the input is already in the balanced layout,
 * allocation failures and the options, in one allreduce. On success
 * *varying and *balanced hold the job's answers. */
static int agree(sctx_t *c, const void *keys, size_t n_local, int nomem, int short_out,
                 uint64_t *varying, int *balanced) {
  uint64_t orv = 0, andv = ~(uint64_t)0;
  if (c->ksz == 4) {
    const uint32_t *a = keys;
    uint32_t o32 = 0, a32 = ~(uint32_t)0;
    for (size_t i = 0; i < n_local; i++) {
      o32 |= a[i];
      a32 &= a[i];
    }
    orv = o32;
    andv = a32; /* bits 32..63: 0 in OR and AND, so never "varying" */
  } else {
    const uint64_t *a = keys;
    for (size_t i = 0; i < n_local; i++) {
      orv |= a[i];
      andv &= a[i];
    }
  }
  agreement_t mine = {orv,
                      ~andv,
                      (nomem ? AGREE_NOMEM : 0) | (n_local != c->cnt ? AGREE_UNBALANCED : 0) |
                          (short_out ? AGREE_SHORT : 0),
                      (uint64_t)c->algo,
                      ~(uint64_t)c->algo,
                      (uint64_t)c->wmax,
                      ~(uint64_t)c->wmax},
              all;
  int rc = simple_allreduce(c->s, &mine, &all, AGREE_WORDS, SIMPLE_UINT64, SIMPLE_BOR);
  if (rc) return rc;
  if (all.flags & AGREE_NOMEM) return nomem ? SIMPLE_ERR_NOMEM : SIMPLE_ERR_PEER;
  if (all.flags & AGREE_SHORT) return short_out ? SIMPLE_ERR_COUNT : SIMPLE_ERR_PEER;
  if (all.algo != ~all.algo_not || all.wmax != ~all.wmax_not) return SIMPLE_ERR_ARG;
  *balanced = !(all.flags & AGREE_UNBALANCED);
  *varying = c->n ? all.key_or ^ ~all.key_nand : 0;
  return 0;
}

/* Makes the two pass buffers reachable by the other threads: node-shared
 * pointers (SIMPLE) or registrations (RDX); buffers_close undoes it,
 * keeping the first error. */
static int buffers_open(sctx_t *c) {
  simple_t *s = c->s;
  size_t bytes = c->cnt * c->ksz;
  int rc;
  if (c->algo != SIMPLE_SORT_SIMPLE) {
    if ((rc = simple_rma_push_reg(s, c->buf[0], bytes)) ||
        (rc = simple_rma_push_reg(s, c->buf[1], bytes)))
      return rc;
    return simple_rma_sync(s);
  }
  void *tab = NULL;
  if ((rc = simple_node_malloc(s, sizeof(void *) * 2 * (size_t)c->T, &tab))) return rc;
  c->peers = tab;
  c->peers[2 * simple_thread(s)] = c->buf[0];
  c->peers[2 * simple_thread(s) + 1] = c->buf[1];
  if ((rc = simple_node_barrier(s))) {
    simple_node_free(s, c->peers);
    c->peers = NULL;
  }
  return rc;
}

static int buffers_close(sctx_t *c, int rc) {
  simple_t *s = c->s;
  int rc2;
  if (c->algo == SIMPLE_SORT_SIMPLE) {
    rc2 = simple_node_free(s, c->peers);
  } else {
    rc2 = simple_rma_pop_reg(s, c->buf[0]);
    if (!rc2) rc2 = simple_rma_pop_reg(s, c->buf[1]);
    if (!rc2) rc2 = simple_rma_sync(s);
  }
  return rc ? rc : rc2;
}

/* The passes over digits of `width` bits from bit lo_bit: each a
 * histogram, the counts' prefix over the job and a pass of the algorithm;
 * a digit that every key shares is skipped once the keys are in the
 * balanced layout. *done gets the passes made, *nb the buffer the next
 * pass would write (the result is in buf[*nb ^ 1]). */
static int run_passes(sctx_t *c, const void *keys, size_t n_local, int lo_bit, int width, int npass,
                      int balanced, int *done, int *nb) {
  simple_t *s = c->s;
  const void *src = keys;
  size_t ns = n_local;
  int P = c->P, rc = 0;
  for (int p = 0; p < npass; p++) {
    int sh = lo_bit + p * width;
    size_t Rp = (size_t)1 << width;
    digit_hist(c, src, ns, sh, width);
    /* Totals and lower ranks' counts per digit: one allgather of the
     * histograms while the table is small (one collective instead of two),
     * else an allreduce and an exscan. */
    uint64_t *table = c->table;
    int all_table = table != NULL; /* the same on every thread: P, R agreed */
    if (all_table) {
      if ((rc = simple_allgather(s, c->h, table, Rp, SIMPLE_UINT64))) return rc;
      memset(c->pre, 0, Rp * sizeof(uint64_t));
      memset(c->tot, 0, Rp * sizeof(uint64_t));
      for (int q = 0; q < P; q++) {
        const uint64_t *row = table + (size_t)q * Rp;
        if (q == c->me) memcpy(c->pre, c->tot, Rp * sizeof(uint64_t));
        for (size_t v = 0; v < Rp; v++) c->tot[v] += row[v];
      }
    } else if ((rc = simple_allreduce(s, c->h, c->tot, Rp, SIMPLE_UINT64, SIMPLE_SUM))) {
      return rc;
    }
    size_t nz = 0;
    for (size_t v = 0; v < Rp && nz < 2; v++) nz += c->tot[v] != 0;
    if (nz < 2 && (*done || balanced)) continue;
    if (!all_table) {
      memset(c->pre, 0, Rp * sizeof(uint64_t));
      if ((rc = simple_exscan(s, c->h, c->pre, Rp, SIMPLE_UINT64, SIMPLE_SUM))) return rc;
    }
    global_starts(c, Rp);
    if (c->algo == SIMPLE_SORT_SIMPLE)
      rc = pass_simple(c, src, ns, sh, width, *nb);
    else
      rc = pass_rdx(c, src, ns, sh, width, *nb, c->algo == SIMPLE_SORT_RDXOPT);
    if (rc) return rc;
    src = c->buf[*nb];
    ns = c->cnt;
    *nb ^= 1;
    (*done)++;
  }
  return 0;
}

/* into = 0: the result goes to a new buffer returned in *out; into = 1:
 * into the caller's user_out of out_cap keys (NULL only with out_cap 0).
 * Two agreements before any key moves (the total and the arguments' verdict;
 * then agree()), the passes, the result into place. */
static int sort_generic(simple_t *s, const void *keys, size_t n_local, size_t ksz, void **out,
                        int into, void *user_out, size_t out_cap, size_t *n_out,
                        const simple_sort_opts_t *o) {
  if (!s) return SIMPLE_ERR_NOT_IN_JOB;
  int algo = o ? (int)o->algo : SIMPLE_SORT_SIMPLE, db = o ? o->digit_bits : 0;
  int err = check_args(simple_nprocs(s), keys, n_local, ksz, out, into, user_out, out_cap, n_out,
                       algo, db);
  if (out) *out = NULL;
  if (n_out) *n_out = 0;
  /* First agreement: the total, and whether anyone's arguments failed. */
  uint64_t sums[2] = {err ? 0 : (uint64_t)n_local, err ? 1 : 0}, tsum[2];
  int rc = simple_allreduce(s, sums, tsum, 2, SIMPLE_UINT64, SIMPLE_SUM);
  if (rc) return rc;
  if (tsum[1]) return err ? err : SIMPLE_ERR_PEER;

  sctx_t cx, *c = &cx;
  ctx_init(c, s, ksz, (size_t)tsum[0], algo, db);
  int nomem = ctx_alloc(c, n_local, user_out);
  uint64_t varying = 0;
  int balanced = 0;
  if ((rc = agree(c, keys, n_local, nomem, into && out_cap < c->cnt, &varying, &balanced))) {
    ctx_release(c, 0);
    return rc;
  }
  int lo_bit = 0, span = 1;
  if (varying) {
    lo_bit = __builtin_ctzll(varying);
    span = 64 - __builtin_clzll(varying) - lo_bit;
  }
  int npass = c->n ? (span + c->wmax - 1) / c->wmax : 0;
  int width = npass ? (span + npass - 1) / npass : 1;
  /* Pass d writes buf[d % 2]: the last planned pass writes the result's
   * buffer (a pass skipped as identity costs one copy at the end). */
  if (npass % 2 == 0) {
    c->buf[0] = c->partner;
    c->buf[1] = c->res;
  }
  if ((rc = buffers_open(c))) {
    ctx_release(c, 0);
    return rc;
  }
  int nb = 0, done = 0;
  rc = run_passes(c, keys, n_local, lo_bit, width, npass, balanced, &done, &nb);
  if ((rc = buffers_close(c, rc))) {
    ctx_release(c, 0);
    return rc;
  }
  if (!done) {
    /* Nothing moved: the input is balanced and already in order. */
    if (n_local) memcpy(c->res, keys, n_local * ksz);
  } else if (c->buf[nb ^ 1] != c->res) {
    memcpy(c->res, c->buf[nb ^ 1], c->cnt * ksz);
  }
  if (!into) *out = c->res;
  *n_out = c->cnt;
  if (o && o->info) {
    o->info->passes = done;
    o->info->digit_bits = width;
    o->info->sort_bits = varying ? span : 0;
    o->info->n = c->n;
  }
  ctx_release(c, !into);
  return 0;
}

int simple_sort_u32(simple_t *s, const uint32_t *keys, size_t n_local, uint32_t **out,
                    size_t *n_out, const simple_sort_opts_t *opts) {
  return sort_generic(s, keys, n_local, 4, (void **)out, 0, NULL, 0, n_out, opts);
}

int simple_sort_into_u32(simple_t *s, const uint32_t *keys, size_t n_local, uint32_t *out,
                         size_t out_cap, size_t *n_out, const simple_sort_opts_t *opts) {
  return sort_generic(s, keys, n_local, 4, NULL, 1, out, out_cap, n_out, opts);
}

int simple_sort_u64(simple_t *s, const uint64_t *keys, size_t n_local, uint64_t **out,
                    size_t *n_out, const simple_sort_opts_t *opts) {
  return sort_generic(s, keys, n_local, 8, (void **)out, 0, NULL, 0, n_out, opts);
}

int simple_sort_into_u64(simple_t *s, const uint64_t *keys, size_t n_local, uint64_t *out,
                         size_t out_cap, size_t *n_out, const simple_sort_opts_t *opts) {
  return sort_generic(s, keys, n_local, 8, NULL, 1, out, out_cap, n_out, opts);
}

/* ------------------------------------------------------------------------
 * Verification. */

static int verify_generic(simple_t *s, const void *in, size_t n_in, const void *out, size_t n_out,
                          size_t ksz, int *ok) {
  if (!s) return SIMPLE_ERR_NOT_IN_JOB;
  int err = (!ok || (!in && n_in) || (!out && n_out)) ? SIMPLE_ERR_NULL : 0;
  uint64_t hin = 0, hout = 0, first = 0, last = 0;
  int sorted = 1;
  if (!err) {
    if (ksz == 4) {
      const uint32_t *a = out;
      hin = simple_sort_hash_u32(in, n_in);
      hout = simple_sort_hash_u32(a, n_out);
      for (size_t i = 1; i < n_out; i++) sorted &= a[i - 1] <= a[i];
      if (n_out) first = a[0], last = a[n_out - 1];
    } else {
      const uint64_t *a = out;
      hin = simple_sort_hash_u64(in, n_in);
      hout = simple_sort_hash_u64(a, n_out);
      for (size_t i = 1; i < n_out; i++) sorted &= a[i - 1] <= a[i];
      if (n_out) first = a[0], last = a[n_out - 1];
    }
  }
  uint64_t v[5] = {n_in, n_out, hin, hout, err ? 1 : 0}, t[5];
  int rc = simple_allreduce(s, v, t, 5, SIMPLE_UINT64, SIMPLE_SUM);
  if (rc) return rc;
  if (t[4]) return err ? err : SIMPLE_ERR_PEER;
  /* The largest last key of every earlier slice (empty slices add 0, the
   * neutral element of MAX on unsigned keys) must not exceed my first. */
  uint64_t mylast = n_out ? last : 0, before = 0;
  if ((rc = simple_exscan(s, &mylast, &before, 1, SIMPLE_UINT64, SIMPLE_MAX))) return rc;
  size_t lo, cnt;
  simple_sort_slice((size_t)t[0], simple_nprocs(s), simple_pid(s), &lo, &cnt);
  int good = sorted && (!n_out || before <= first) && n_out == cnt && t[0] == t[1] && t[2] == t[3];
  int all = good;
  if ((rc = simple_allreduce(s, &good, &all, 1, SIMPLE_INT32, SIMPLE_MIN))) return rc;
  *ok = all;
  return 0;
}

int simple_sort_verify_u32(simple_t *s, const uint32_t *in, size_t n_in, const uint32_t *out,
                           size_t n_out, int *ok) {
  return verify_generic(s, in, n_in, out, n_out, 4, ok);
}

int simple_sort_verify_u64(simple_t *s, const uint64_t *in, size_t n_in, const uint64_t *out,
                           size_t n_out, int *ok) {
  return verify_generic(s, in, n_in, out, n_out, 8, ok);
}

/* ------------------------------------------------------------------------
 * Test inputs. */

static const char *const dist_names[] = {"uniform", "equal", "sorted",
                                         "reverse", "few",   "highbits"};

const char *simple_sort_dist_name(simple_sort_dist_t dist) {
  return (int)dist >= 0 && dist < SIMPLE_SORT_DIST_COUNT__ ? dist_names[dist] : "unknown";
}

int simple_sort_dist_parse(const char *name, simple_sort_dist_t *dist) {
  if (!name || !dist) return SIMPLE_ERR_NULL;
  for (int d = 0; d < SIMPLE_SORT_DIST_COUNT__; d++)
    if (strcmp(name, dist_names[d]) == 0) {
      *dist = (simple_sort_dist_t)d;
      return 0;
    }
  return SIMPLE_ERR_ARG;
}

static uint64_t gen_key(simple_sort_dist_t d, uint64_t seed, size_t n, size_t i, int bits) {
  uint64_t m = bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
  uint64_t base = mix64(seed * 0x2545f4914f6cdd1dull + 0x1234567);
  switch (d) {
    case SIMPLE_SORT_UNIFORM: return mix64(base + i) & m;
    case SIMPLE_SORT_EQUAL: return base & m;
    case SIMPLE_SORT_REVERSE: i = n - 1 - i; /* fall through */
    case SIMPLE_SORT_SORTED: return n > 1 ? (uint64_t)((unsigned __int128)i * m / (n - 1)) : 0;
    case SIMPLE_SORT_FEW: return mix64(base ^ (1 + mix64(base + i) % 7)) & m;
    case SIMPLE_SORT_HIGHBITS: return mix64(base + i) & (m & ~(m >> 8));
    default: return 0;
  }
}

int simple_sort_gen_u32(simple_sort_dist_t dist, uint64_t seed, size_t n, size_t first,
                        size_t count, uint32_t *keys) {
  if ((int)dist < 0 || dist >= SIMPLE_SORT_DIST_COUNT__) return SIMPLE_ERR_ARG;
  if (!keys && count) return SIMPLE_ERR_NULL;
  for (size_t j = 0; j < count; j++) keys[j] = (uint32_t)gen_key(dist, seed, n, first + j, 32);
  return 0;
}

int simple_sort_gen_u64(simple_sort_dist_t dist, uint64_t seed, size_t n, size_t first,
                        size_t count, uint64_t *keys) {
  if ((int)dist < 0 || dist >= SIMPLE_SORT_DIST_COUNT__) return SIMPLE_ERR_ARG;
  if (!keys && count) return SIMPLE_ERR_NULL;
  for (size_t j = 0; j < count; j++) keys[j] = gen_key(dist, seed, n, first + j, 64);
  return 0;
}
