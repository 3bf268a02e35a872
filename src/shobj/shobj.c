/* Shared objects with one cache per node: see include/simple/shobj.h and
 * docs/shobj.md.
 *
 * Homes. Every node's objects live in one MPI window (src/net/net_win.h),
 * bump-allocated: a 32-byte header (the accumulator's lock word and
 * version, a magic number, the generation, kind and size) then the bytes.
 * A name carries the home node, the header's place, the kind, the
 * generation and the size, so a reader needs no directory: one get of
 * header and bytes fetches the object, and the header it brings back
 * confirms the name (a name that does not match it is unknown). Objects
 * are never freed one by one; simple_shobj_clear starts a new generation.
 *
 * The node's cache. A table of entries (a hash on the name, chained) and
 * a buddy allocator over one arena of cache_bytes, both under one mutex
 * that is held for lookups and bookkeeping only, never across a network
 * transfer. A miss inserts an entry in state FETCHING and fetches into
 * its block outside the mutex; a thread that finds the entry FETCHING
 * holds it (pins) and waits on its state word (spin, then futex), so a
 * remote value crosses the network once per node. Entries nobody holds
 * are evicted oldest-first (a FIFO of insertion) when room is needed.
 *
 * Accumulators. The lock word at the home: WRITER (1 << 40) while a thread
 * holds it exclusively, plus one per reader taking a version. Acquire adds
 * WRITER and keeps it if the word was 0, readers add 1; either backs out
 * if it found the word taken; every access is an MPI atomic, also from the home's own threads,
 * so the word is never touched by plain loads and stores at once. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "net/net_win.h"
#include "run/job.h"
#include "run/wait.h"
#include "simple/coll.h"
#include "simple/node.h"
#include "simple/shobj.h"

#define MAGIC      0x5348424aU /* "SHBJ" */
#define HDR        32
#define KIND_VALUE 1
#define KIND_ACC   2
#define SIZE_BITS  40
#define SIZE_MASK  ((UINT64_C(1) << SIZE_BITS) - 1)
#define GEN_MASK   0x3fffffU
#define WRITER     (INT64_C(1) << 40)
#define NIL        UINT32_MAX
#define MIN_ORDER  6   /* 64-byte smallest block */
#define GROUP      128 /* names whose gets one flush completes in simple_shobj_fetch */

enum { FETCHING = 0, READY = 1, FAILED = 2 };

typedef struct {
  int64_t lock;
  uint64_t version;
  uint32_t magic;
  uint32_t gen;
  uint64_t what;
} hdr_t;
_Static_assert(sizeof(hdr_t) == HDR, "the header is 32 bytes");

typedef struct {
  uint64_t where, what;
  int tag;               /* -1 in a node-shared cache, the thread in per-thread mode */
  uint32_t next;         /* hash chain, or the free list */
  uint32_t older, newer; /* the FIFO of eviction */
  atomic_uint state;
  atomic_uint sleepers;
  int pins;
  int err;
  int order;
  size_t off; /* the block's place in the arena */
} entry_t;

/* Counters, one set per thread (summed when read), so that counting
 * never makes the node's threads share a cache line. */
enum {
  C_FETCHES,
  C_BYTES,
  C_HITS,
  C_WAITS,
  C_LOCAL,
  C_GROUPS,
  C_EVICTIONS,
  C_ACC_GETS,
  C_ACC_UPDATES,
  C_OFFERS,
  C_COUNT
};

typedef struct {
  _Alignas(SIMPLE__CACHE_LINE) int holding;
  simple_obj_t held;
  uint64_t version;
  simple__buf_t buf; /* the held accumulator's header and bytes */
  atomic_uint_fast64_t c[C_COUNT];
} thr_t;

struct simple_shobj_space {
  int me, nodes, threads, per_thread;
  uint32_t gen;
  simple__win_t *win;
  unsigned char *heap;
  size_t heap_bytes;
  _Alignas(SIMPLE__CACHE_LINE) atomic_size_t top;

  _Alignas(SIMPLE__CACHE_LINE) pthread_mutex_t mu;
  unsigned char *arena;
  int max_order;
  size_t free_head[64]; /* per order: first free block, SIZE_MAX: none */
  unsigned char *ftag;  /* per 64-byte block: order + 1 where a free block starts */
  entry_t *ent;
  uint32_t nent, free_ent, oldest, newest;
  uint32_t *bucket;
  uint32_t nbucket; /* a power of two */

  thr_t *thr;
};

/* ---------------------------------------------------------------------
 * Names. */

static atomic_uint opens; /* spaces opened by this process: the same count
                             on every node, since opening is collective */

static simple_obj_t make_name(int node, size_t off, int kind, uint32_t gen, size_t bytes) {
  return (simple_obj_t){
      .where = ((uint64_t)(node + 1) << 40) | (uint64_t)(off >> 4),
      .what = ((uint64_t)kind << 62) | ((uint64_t)(gen & GEN_MASK) << SIZE_BITS) | (uint64_t)bytes};
}

int simple_shobj_kind(simple_obj_t name) {
  int k = (int)(name.what >> 62);
  if ((name.where >> 40) == 0 || (k != KIND_VALUE && k != KIND_ACC)) return 0;
  return k;
}

size_t simple_shobj_size(simple_obj_t name) {
  return simple_shobj_kind(name) ? (size_t)(name.what & SIZE_MASK) : 0;
}

int simple_shobj_home(simple_obj_t name) {
  return simple_shobj_kind(name) ? (int)(name.where >> 40) - 1 : -1;
}

/* An object's place: its home node, its header's offset in the home's
 * heap and its size in bytes. */
typedef struct {
  int node;
  size_t off, size;
} place_t;

/* The name's place, or SIMPLE_ERR_UNKNOWN_OBJECT for one that cannot be an
 * object of this space and generation (checked before any traffic, so a
 * forged name never makes us read or lock outside an object); then, for
 * a kind asked for (0: any), SIMPLE_ERR_ACC_MISUSE for a value's call
 * given an accumulator, SIMPLE_ERR_IMMUTABLE for an accumulator's given
 * a value. */
static int parse(const simple_shobj_space_t *sp, simple_obj_t name, int kind, place_t *at) {
  int k = simple_shobj_kind(name);
  if (!k) return SIMPLE_ERR_UNKNOWN_OBJECT;
  uint64_t nd = (name.where >> 40) - 1;
  uint64_t o = (name.where & SIZE_MASK) << 4;
  uint64_t b = name.what & SIZE_MASK;
  uint32_t g = (uint32_t)(name.what >> SIZE_BITS) & GEN_MASK;
  if (nd >= (uint64_t)sp->nodes || g != (sp->gen & GEN_MASK) || o > sp->heap_bytes ||
      sp->heap_bytes - o < HDR || sp->heap_bytes - o - HDR < b)
    return SIMPLE_ERR_UNKNOWN_OBJECT;
  if (kind && k != kind) return kind == KIND_VALUE ? SIMPLE_ERR_ACC_MISUSE : SIMPLE_ERR_IMMUTABLE;
  *at = (place_t){(int)nd, (size_t)o, (size_t)b};
  return 0;
}

static int hdr_matches(const hdr_t *h, const simple_shobj_space_t *sp, uint64_t what) {
  return h->magic == MAGIC && h->gen == sp->gen && h->what == what;
}

/* n bytes at off of node's heap into buf, complete on return: one get and
 * one flush. */
static int get_now(simple_shobj_space_t *sp, int node, size_t off, void *buf, size_t n) {
  int rc = simple__win_get(sp->win, node, off, buf, n);
  return rc ? rc : simple__win_flush(sp->win, node);
}

/* Counts on the calling thread's own line (t: its thread on the node). */
#define COUNT(sp, t, k, v) atomic_fetch_add_explicit(&(sp)->thr[t].c[k], (v), memory_order_relaxed)

/* ---------------------------------------------------------------------
 * The buddy allocator over the arena (under sp->mu). A free block keeps
 * its list links in its first 16 bytes. */

typedef struct {
  size_t prev, next;
} links_t;

static links_t *links(simple_shobj_space_t *sp, size_t off) {
  return (links_t *)(void *)(sp->arena + off);
}

static void push_free(simple_shobj_space_t *sp, size_t off, int order) {
  links_t *l = links(sp, off);
  l->prev = SIZE_MAX;
  l->next = sp->free_head[order];
  if (l->next != SIZE_MAX) links(sp, l->next)->prev = off;
  sp->free_head[order] = off;
  sp->ftag[off >> MIN_ORDER] = (unsigned char)(order + 1);
}

static void unlink_free(simple_shobj_space_t *sp, size_t off, int order) {
  links_t *l = links(sp, off);
  if (l->prev != SIZE_MAX)
    links(sp, l->prev)->next = l->next;
  else
    sp->free_head[order] = l->next;
  if (l->next != SIZE_MAX) links(sp, l->next)->prev = l->prev;
  sp->ftag[off >> MIN_ORDER] = 0;
}

static int buddy_alloc(simple_shobj_space_t *sp, int order, size_t *off) {
  int k = order;
  while (k <= sp->max_order && sp->free_head[k] == SIZE_MAX) k++;
  if (k > sp->max_order) return -1;
  size_t o = sp->free_head[k];
  unlink_free(sp, o, k);
  while (k > order) { /* split: keep the lower half, free the upper */
    k--;
    push_free(sp, o + ((size_t)1 << k), k);
  }
  *off = o;
  return 0;
}

static void buddy_free(simple_shobj_space_t *sp, size_t off, int order) {
  while (order < sp->max_order) {
    size_t buddy = off ^ ((size_t)1 << order);
    if (sp->ftag[buddy >> MIN_ORDER] != order + 1) break;
    unlink_free(sp, buddy, order);
    if (buddy < off) off = buddy;
    order++;
  }
  push_free(sp, off, order);
}

static void cache_reset(simple_shobj_space_t *sp) {
  for (int k = 0; k < 64; k++) sp->free_head[k] = SIZE_MAX;
  memset(sp->ftag, 0, ((size_t)1 << sp->max_order) >> MIN_ORDER);
  push_free(sp, 0, sp->max_order);
  for (uint32_t i = 0; i < sp->nbucket; i++) sp->bucket[i] = NIL;
  for (uint32_t i = 0; i < sp->nent; i++) sp->ent[i].next = i + 1 < sp->nent ? i + 1 : NIL;
  sp->free_ent = 0;
  sp->oldest = sp->newest = NIL;
}

/* ---------------------------------------------------------------------
 * The entry table (under sp->mu). */

static uint32_t hash(const simple_shobj_space_t *sp, uint64_t where, uint64_t what, int tag) {
  uint64_t h = where * UINT64_C(0x9e3779b97f4a7c15) ^
               (what + (uint64_t)(tag + 1)) * UINT64_C(0xc2b2ae3d27d4eb4f);
  h ^= h >> 29;
  return (uint32_t)h & (sp->nbucket - 1);
}

static entry_t *lookup(simple_shobj_space_t *sp, simple_obj_t name, int tag) {
  for (uint32_t i = sp->bucket[hash(sp, name.where, name.what, tag)]; i != NIL;
       i = sp->ent[i].next) {
    entry_t *e = &sp->ent[i];
    if (e->where == name.where && e->what == name.what && e->tag == tag) return e;
  }
  return NULL;
}

static void remove_entry(simple_shobj_space_t *sp, uint32_t i) {
  entry_t *e = &sp->ent[i];
  uint32_t *p = &sp->bucket[hash(sp, e->where, e->what, e->tag)];
  while (*p != i) p = &sp->ent[*p].next;
  *p = e->next;
  if (e->older != NIL)
    sp->ent[e->older].newer = e->newer;
  else
    sp->oldest = e->newer;
  if (e->newer != NIL)
    sp->ent[e->newer].older = e->older;
  else
    sp->newest = e->older;
  buddy_free(sp, e->off, e->order);
  e->next = sp->free_ent;
  sp->free_ent = i;
}

/* Evicts the oldest entry nobody holds; 0 if there was none. */
static int evict_one(simple_shobj_space_t *sp, int me) {
  for (uint32_t i = sp->oldest; i != NIL; i = sp->ent[i].newer) {
    if (sp->ent[i].pins == 0) {
      remove_entry(sp, i);
      COUNT(sp, me, C_EVICTIONS, 1);
      return 1;
    }
  }
  return 0;
}

/* A new entry for the name, FETCHING, held once, with a block for header
 * and bytes; SIMPLE_ERR_CACHE_FULL when even evicting every entry nobody
 * holds leaves no room. */
static int insert(simple_shobj_space_t *sp, int me, simple_obj_t name, int tag, size_t bytes,
                  entry_t **out) {
  size_t need = HDR + bytes;
  int order = MIN_ORDER;
  while (order <= sp->max_order && ((size_t)1 << order) < need) order++;
  if (order > sp->max_order) return SIMPLE_ERR_CACHE_FULL;
  size_t off;
  while (buddy_alloc(sp, order, &off) != 0)
    if (!evict_one(sp, me)) return SIMPLE_ERR_CACHE_FULL;
  while (sp->free_ent == NIL)
    if (!evict_one(sp, me)) {
      buddy_free(sp, off, order);
      return SIMPLE_ERR_CACHE_FULL;
    }
  uint32_t i = sp->free_ent;
  entry_t *e = &sp->ent[i];
  sp->free_ent = e->next;
  e->where = name.where;
  e->what = name.what;
  e->tag = tag;
  e->pins = 1;
  e->err = 0;
  e->order = order;
  e->off = off;
  atomic_store_explicit(&e->state, FETCHING, memory_order_relaxed);
  atomic_store_explicit(&e->sleepers, 0, memory_order_relaxed);
  uint32_t *b = &sp->bucket[hash(sp, name.where, name.what, tag)];
  e->next = *b;
  *b = i;
  e->newer = NIL;
  e->older = sp->newest;
  if (sp->newest != NIL)
    sp->ent[sp->newest].newer = i;
  else
    sp->oldest = i;
  sp->newest = i;
  *out = e;
  return 0;
}

static void unpin(simple_shobj_space_t *sp, entry_t *e) {
  pthread_mutex_lock(&sp->mu);
  e->pins--;
  pthread_mutex_unlock(&sp->mu);
}

/* After the get into e's block completed (rc its result): checks the
 * header against the entry's name, publishes the entry's state and wakes
 * its waiters. */
static int finish_fetch(simple_shobj_space_t *sp, int me, entry_t *e, int rc) {
  const hdr_t *h = (const hdr_t *)(const void *)(sp->arena + e->off);
  if (!rc && !hdr_matches(h, sp, e->what)) rc = SIMPLE_ERR_UNKNOWN_OBJECT;
  if (!rc) {
    COUNT(sp, me, C_FETCHES, 1);
    COUNT(sp, me, C_BYTES, HDR + (e->what & SIZE_MASK));
  }
  e->err = rc;
  atomic_store_explicit(&e->state, rc ? FAILED : READY, memory_order_release);
  simple__wake_all(&e->state, &e->sleepers);
  return rc;
}

/* ---------------------------------------------------------------------
 * Open, close, clear. */

static int check(simple_t *s, const simple_shobj_space_t *sp) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  if (!sp) return SIMPLE_ERR_ARG;
  if (atomic_load_explicit(&s->node->fatal, memory_order_relaxed)) return SIMPLE_ERR_FATAL;
  return 0;
}

/* Frees the space (NULL: nothing) and its window, if it has one: that is
 * collective (MPI_Win_free), thread 0 of every node at once. */
static void space_free(simple_shobj_space_t *sp) {
  if (!sp) return;
  simple__win_free(sp->win);
  if (sp->thr)
    for (int t = 0; t < sp->threads; t++) simple__buf_free(&sp->thr[t].buf);
  void *blocks[] = {sp->thr, sp->arena, sp->ftag, sp->ent, sp->bucket};
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) free(blocks[i]);
  pthread_mutex_destroy(&sp->mu);
  free(sp);
}

static int space_new(simple_t *s, size_t heap, size_t cache, int per_thread,
                     simple_shobj_space_t **out) {
  simple__node_t *n = s->node;
  simple_shobj_space_t *sp = calloc(1, sizeof *sp);
  if (!sp) return SIMPLE_ERR_NOMEM;
  pthread_mutex_init(&sp->mu, NULL);
  sp->me = n->node;
  sp->nodes = n->nodes;
  sp->threads = n->threads;
  sp->per_thread = per_thread;
  sp->heap_bytes = heap;
  sp->max_order = MIN_ORDER;
  while (((size_t)1 << sp->max_order) < cache) sp->max_order++;
  size_t arena = (size_t)1 << sp->max_order;
  sp->nent = (uint32_t)(arena / 256 < 64           ? 64
                        : arena / 256 > (1u << 24) ? (1u << 24)
                                                   : arena / 256);
  sp->nbucket = 1;
  while (sp->nbucket < 2 * sp->nent) sp->nbucket <<= 1;
  sp->arena = aligned_alloc(SIMPLE__CACHE_LINE, arena);
  sp->ftag = malloc(arena >> MIN_ORDER);
  sp->ent = calloc(sp->nent, sizeof *sp->ent);
  sp->bucket = malloc(sizeof *sp->bucket * sp->nbucket);
  sp->thr = aligned_alloc(SIMPLE__CACHE_LINE, sizeof *sp->thr * (size_t)n->threads);
  if (!sp->arena || !sp->ftag || !sp->ent || !sp->bucket || !sp->thr) {
    space_free(sp);
    return SIMPLE_ERR_NOMEM;
  }
  memset(sp->thr, 0, sizeof *sp->thr * (size_t)n->threads);
  cache_reset(sp);
  *out = sp;
  return 0;
}

int simple_shobj_open(simple_t *s, const simple_shobj_opts_t *opts, simple_shobj_space_t **sp) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  size_t heap = opts && opts->heap_bytes ? opts->heap_bytes : (size_t)64 << 20;
  size_t cache = opts && opts->cache_bytes ? opts->cache_bytes : (size_t)32 << 20;
  int per_thread = opts ? opts->per_thread : 0;
  int rc = 0;
  if (!sp || per_thread < 0 || per_thread > 1) rc = SIMPLE_ERR_ARG;
  /* Heap places must fit the name's 40 bits of 16-byte units, the cache
   * the allocator's orders. */
  if (!rc && (heap > ((size_t)1 << 44) || cache > ((size_t)1 << 40))) rc = SIMPLE_ERR_COUNT;
  heap = (heap + 15) & ~(size_t)15;
  simple_shobj_space_t *mine = NULL;
  if (!rc && s->thread == 0) rc = space_new(s, heap, cache, per_thread, &mine);
  /* Every thread of every node learns whether all could go on before any
   * node enters the window's collective creation. */
  int worst = rc;
  int r2 = simple_allreduce(s, &rc, &worst, 1, SIMPLE_INT32, SIMPLE_MAX);
  if (r2) worst = r2;
  if (!worst && s->thread == 0) {
    void *base;
    worst = simple__win_create(s->node, heap, &base, &mine->win);
    if (!worst) {
      mine->heap = base;
      mine->gen = atomic_fetch_add(&opens, 1) << 10 & GEN_MASK;
    }
  }
  int any = worst;
  r2 = simple_allreduce(s, &worst, &any, 1, SIMPLE_INT32, SIMPLE_MAX);
  if (r2) any = r2;
  if (any) {
    space_free(mine); /* NULL on every thread but 0 */
    if (sp) *sp = NULL;
    return worst ? worst : SIMPLE_ERR_PEER;
  }
  void *p = mine;
  rc = simple_node_share(s, &p, 0);
  if (rc) return rc;
  *sp = p;
  return 0;
}

int simple_shobj_close(simple_t *s, simple_shobj_space_t *sp) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  /* A thread that passed no space still meets the others, and every
   * node's threads wait until none of them uses the space any more. */
  int rc = sp ? 0 : SIMPLE_ERR_ARG;
  int r2 = simple_barrier(s);
  if (r2) return r2;
  if (sp && s->thread == 0) space_free(sp);
  return rc;
}

int simple_shobj_clear(simple_t *s, simple_shobj_space_t *sp) {
  int rc = check(s, sp);
  if (rc) return rc;
  int bad = sp->thr[s->thread].holding;
  int r2 = simple_node_barrier(s);
  if (!r2 && s->thread == 0) {
    pthread_mutex_lock(&sp->mu);
    for (uint32_t i = sp->oldest; i != NIL; i = sp->ent[i].newer)
      if (sp->ent[i].pins) bad = 1;
    pthread_mutex_unlock(&sp->mu);
  }
  int anybad = bad;
  if (!r2) r2 = simple_allreduce(s, &bad, &anybad, 1, SIMPLE_INT32, SIMPLE_MAX);
  if (r2) return r2;
  if (anybad) return bad ? SIMPLE_ERR_ACC_MISUSE : SIMPLE_ERR_PEER;
  if (s->thread == 0) {
    pthread_mutex_lock(&sp->mu);
    cache_reset(sp);
    pthread_mutex_unlock(&sp->mu);
    atomic_store(&sp->top, 0);
    sp->gen = (sp->gen & ~(uint32_t)1023) | ((sp->gen + 1) & 1023);
  }
  /* Nobody creates an object of the new generation before every node has
   * reset its heap. */
  return simple_barrier(s);
}

/* ---------------------------------------------------------------------
 * Creating objects. */

static int create(simple_t *s, simple_shobj_space_t *sp, const void *data, size_t bytes, int kind,
                  simple_obj_t *name) {
  int rc = check(s, sp);
  if (rc) return rc;
  if (!name || (bytes && !data && kind == KIND_VALUE)) return SIMPLE_ERR_NULL;
  if (bytes > SIZE_MASK) return SIMPLE_ERR_COUNT;
  size_t need = HDR + ((bytes + 15) & ~(size_t)15);
  size_t off = atomic_fetch_add_explicit(&sp->top, need, memory_order_relaxed);
  if (off > sp->heap_bytes || sp->heap_bytes - off < need) return SIMPLE_ERR_NOMEM;
  hdr_t *h = (hdr_t *)(void *)(sp->heap + off);
  *name = make_name(sp->me, off, kind, sp->gen, bytes);
  *h = (hdr_t){.magic = MAGIC, .gen = sp->gen, .what = name->what};
  if (bytes && data)
    memcpy(h + 1, data, bytes);
  else if (bytes)
    memset(h + 1, 0, bytes);
  /* No MPI call here (a window sync per object cost the two threads of a
   * node more than the objects: MPI's lock at THREAD_MULTIPLE): a reader
   * learns the name only through a message or collective of the library,
   * after this release fence, and the window is in MPI's unified memory
   * model, where the home's stores are what the others' gets see. */
  atomic_thread_fence(memory_order_release);
  return 0;
}

int simple_shobj_value(simple_t *s, simple_shobj_space_t *sp, const void *data, size_t bytes,
                       simple_obj_t *name) {
  return create(s, sp, data, bytes, KIND_VALUE, name);
}

int simple_shobj_acc(simple_t *s, simple_shobj_space_t *sp, const void *init, size_t bytes,
                     simple_obj_t *name) {
  return create(s, sp, init, bytes, KIND_ACC, name);
}

/* ---------------------------------------------------------------------
 * Reading values. */

static int read_value(simple_t *s, simple_shobj_space_t *sp, simple_obj_t name, const void **data,
                      size_t *bytes) {
  place_t at;
  int rc = parse(sp, name, KIND_VALUE, &at);
  if (rc) return rc;
  if (bytes) *bytes = at.size;
  if (at.node == sp->me) {
    const hdr_t *h = (const hdr_t *)(const void *)(sp->heap + at.off);
    if (!hdr_matches(h, sp, name.what)) return SIMPLE_ERR_UNKNOWN_OBJECT;
    COUNT(sp, s->thread, C_LOCAL, 1);
    *data = h + 1;
    return 0;
  }
  int tag = sp->per_thread ? s->thread : -1;
  pthread_mutex_lock(&sp->mu);
  entry_t *e = lookup(sp, name, tag);
  if (e) {
    e->pins++;
    pthread_mutex_unlock(&sp->mu);
    unsigned st = atomic_load_explicit(&e->state, memory_order_acquire);
    if (st == FETCHING) {
      COUNT(sp, s->thread, C_WAITS, 1);
      rc = simple__wait_while(&e->state, FETCHING, &e->sleepers);
      st = atomic_load_explicit(&e->state, memory_order_acquire);
    } else {
      COUNT(sp, s->thread, C_HITS, 1);
    }
    if (!rc && st == FAILED) rc = e->err;
  } else {
    rc = insert(sp, s->thread, name, tag, at.size, &e);
    pthread_mutex_unlock(&sp->mu);
    if (rc) return rc;
    rc = get_now(sp, at.node, at.off, sp->arena + e->off, HDR + at.size);
    rc = finish_fetch(sp, s->thread, e, rc);
  }
  if (rc) {
    unpin(sp, e);
    return rc;
  }
  *data = sp->arena + e->off + HDR;
  return 0;
}

int simple_shobj_read(simple_t *s, simple_shobj_space_t *sp, simple_obj_t name, const void **data,
                      size_t *bytes) {
  int rc = check(s, sp);
  if (rc) return rc;
  if (!data) return SIMPLE_ERR_NULL;
  return read_value(s, sp, name, data, bytes);
}

int simple_shobj_done(simple_t *s, simple_shobj_space_t *sp, simple_obj_t name) {
  int rc = check(s, sp);
  if (rc) return rc;
  place_t at;
  if ((rc = parse(sp, name, KIND_VALUE, &at)) != 0) return rc;
  if (at.node == sp->me) return 0; /* the home's copy is never evicted */
  pthread_mutex_lock(&sp->mu);
  entry_t *e = lookup(sp, name, sp->per_thread ? s->thread : -1);
  if (!e || e->pins == 0)
    rc = SIMPLE_ERR_ACC_MISUSE;
  else
    e->pins--;
  pthread_mutex_unlock(&sp->mu);
  return rc;
}

int simple_shobj_fetch(simple_t *s, simple_shobj_space_t *sp, const simple_obj_t *names, size_t n) {
  int rc = check(s, sp);
  if (rc) return rc;
  if (n && !names) return SIMPLE_ERR_NULL;
  int first = 0, tag = sp->per_thread ? s->thread : -1;
  for (size_t at = 0; at < n; at += GROUP) {
    size_t m = n - at < GROUP ? n - at : GROUP;
    entry_t *held[GROUP];
    place_t from[GROUP]; /* where held[i] is fetched from; node -1: it was there */
    size_t nheld = 0, nfresh = 0;
    pthread_mutex_lock(&sp->mu);
    for (size_t i = 0; i < m; i++) {
      simple_obj_t name = names[at + i];
      place_t *p = &from[nheld];
      int r = parse(sp, name, KIND_VALUE, p);
      if (!r && p->node == sp->me) continue;
      entry_t *e = r ? NULL : lookup(sp, name, tag);
      if (e) {
        e->pins++;
        p->node = -1;
      } else if (!r && (r = insert(sp, s->thread, name, tag, p->size, &e)) == 0) {
        nfresh++;
      }
      if (r && !first) first = r;
      if (!r) held[nheld++] = e;
    }
    pthread_mutex_unlock(&sp->mu);
    /* The gets of the group go out together; one flush completes them. */
    int net = 0;
    for (size_t i = 0; i < nheld && !net; i++)
      if (from[i].node >= 0)
        net = simple__win_get(sp->win, from[i].node, from[i].off, sp->arena + held[i]->off,
                              HDR + from[i].size);
    if (nfresh && !net) net = simple__win_flush(sp->win, -1);
    if (nfresh && !net) COUNT(sp, s->thread, C_GROUPS, 1);
    for (size_t i = 0; i < nheld; i++) {
      int r = from[i].node < 0 ? 0 : finish_fetch(sp, s->thread, held[i], net);
      if (r && !first) first = r;
    }
    pthread_mutex_lock(&sp->mu);
    for (size_t i = 0; i < nheld; i++) held[i]->pins--;
    pthread_mutex_unlock(&sp->mu);
  }
  return first;
}

int simple_shobj_offer(simple_t *s, simple_shobj_space_t *sp, simple_obj_t name, const void *data,
                       size_t bytes) {
  int rc = check(s, sp);
  if (rc) return rc;
  place_t at;
  if ((rc = parse(sp, name, KIND_VALUE, &at)) != 0) return rc;
  if (bytes != at.size) return SIMPLE_ERR_ARG;
  if (bytes && !data) return SIMPLE_ERR_NULL;
  if (at.node == sp->me) return 0; /* reads use the home's own copy */
  int tag = sp->per_thread ? s->thread : -1;
  pthread_mutex_lock(&sp->mu);
  entry_t *e = lookup(sp, name, tag);
  if (e) { /* cached, or being fetched: the copy adds nothing */
    pthread_mutex_unlock(&sp->mu);
    return 0;
  }
  rc = insert(sp, s->thread, name, tag, bytes, &e);
  pthread_mutex_unlock(&sp->mu);
  if (rc) return rc;
  /* The header a get would have brought, then the bytes; published as a
   * fetch is (readers that found the entry meanwhile wait for it). */
  hdr_t *h = (hdr_t *)(void *)(sp->arena + e->off);
  *h = (hdr_t){.magic = MAGIC, .gen = sp->gen, .what = name.what};
  if (bytes) memcpy(h + 1, data, bytes);
  COUNT(sp, s->thread, C_OFFERS, 1);
  e->err = 0;
  atomic_store_explicit(&e->state, READY, memory_order_release);
  simple__wake_all(&e->state, &e->sleepers);
  unpin(sp, e);
  return 0;
}

/* ---------------------------------------------------------------------
 * Accumulators. */

/* The accumulator's parts, its header checked at the home (one get of 32
 * bytes, or a local load at the home), before any atomic touches it. */
static int acc_parse(simple_shobj_space_t *sp, simple_obj_t name, place_t *at) {
  int rc = parse(sp, name, KIND_ACC, at);
  if (rc) return rc;
  hdr_t h;
  if (at->node == sp->me)
    memcpy(&h, sp->heap + at->off, HDR);
  else if ((rc = get_now(sp, at->node, at->off, &h, HDR)) != 0)
    return rc;
  return hdr_matches(&h, sp, name.what) ? 0 : SIMPLE_ERR_UNKNOWN_OBJECT;
}

/* Takes the lock word of the accumulator at (node, off) by adding `add`:
 * WRITER, taken if the word was 0, or 1 for a reader, taken if no writer
 * held it; else the add is taken back and tried again. */
static int lock_word(simple_t *s, simple_shobj_space_t *sp, int node, size_t off, int64_t add) {
  unsigned tries = 0;
  for (;;) {
    int64_t old;
    int rc = simple__win_fetch_add(sp->win, node, off, add, &old);
    if (rc) return rc;
    if (add == WRITER ? old == 0 : old < WRITER) return 0;
    rc = simple__win_fetch_add(sp->win, node, off, -add, &old);
    if (rc) return rc;
    if (atomic_load_explicit(&s->node->fatal, memory_order_relaxed)) return SIMPLE_ERR_FATAL;
    /* Backing off while another thread holds the lock: pause, then yield
     * the core (the holder may be a thread of this node waiting for it). */
    if (++tries < 64)
      simple__cpu_relax();
    else
      sched_yield();
  }
}

int simple_shobj_acquire(simple_t *s, simple_shobj_space_t *sp, simple_obj_t name, void **data) {
  int rc = check(s, sp);
  if (rc) return rc;
  if (!data) return SIMPLE_ERR_NULL;
  thr_t *t = &sp->thr[s->thread];
  if (t->holding) return SIMPLE_ERR_ACC_MISUSE;
  place_t at;
  if ((rc = acc_parse(sp, name, &at)) != 0) return rc;
  if ((rc = simple__buf_grow(&t->buf, HDR + at.size)) != 0) return rc;
  /* Add WRITER; whoever found the word 0 has it, the others take their
   * WRITER back out and retry. Only fetch-and-add, no compare-and-swap:
   * Open MPI 4.1's emulated compare-and-swap between processes of one
   * host (osc/rdma over btl/vader) crashes. */
  rc = lock_word(s, sp, at.node, at.off, WRITER);
  if (rc) return rc;
  rc = get_now(sp, at.node, at.off, t->buf.p, HDR + at.size);
  if (rc) {
    /* Not held after a failed read: the lock goes back, or every other
     * taker would wait for it for good. */
    int64_t old;
    simple__win_fetch_add(sp->win, at.node, at.off, -WRITER, &old);
    return rc;
  }
  t->version = ((const hdr_t *)t->buf.p)->version;
  t->holding = 1;
  t->held = name;
  *data = (unsigned char *)t->buf.p + HDR;
  return 0;
}

int simple_shobj_release(simple_t *s, simple_shobj_space_t *sp, simple_obj_t name) {
  int rc = check(s, sp);
  if (rc) return rc;
  thr_t *t = &sp->thr[s->thread];
  if (!t->holding || t->held.where != name.where || t->held.what != name.what)
    return simple_shobj_kind(name) == KIND_VALUE ? SIMPLE_ERR_IMMUTABLE : SIMPLE_ERR_ACC_MISUSE;
  place_t at;
  if ((rc = parse(sp, name, 0, &at)) != 0) return rc;
  uint64_t v = t->version + 1;
  /* The bytes and the version first, completed at the home, then the
   * lock: no reader can take a share before the new version is whole. */
  rc = simple__win_put(sp->win, at.node, at.off + HDR, (unsigned char *)t->buf.p + HDR, at.size);
  if (!rc) rc = simple__win_put(sp->win, at.node, at.off + 8, &v, sizeof v);
  if (!rc) rc = simple__win_flush(sp->win, at.node);
  int64_t old;
  if (!rc) rc = simple__win_fetch_add(sp->win, at.node, at.off, -WRITER, &old);
  if (rc) return rc;
  t->holding = 0;
  COUNT(sp, s->thread, C_ACC_UPDATES, 1);
  return 0;
}

int simple_shobj_write(simple_t *s, simple_shobj_space_t *sp, simple_obj_t name, const void *data,
                       size_t bytes) {
  int rc = check(s, sp);
  if (rc) return rc;
  if (simple_shobj_kind(name) == KIND_VALUE) return SIMPLE_ERR_IMMUTABLE;
  if (bytes && !data) return SIMPLE_ERR_NULL;
  if (simple_shobj_kind(name) == KIND_ACC && bytes != simple_shobj_size(name))
    return SIMPLE_ERR_ARG;
  void *p;
  rc = simple_shobj_acquire(s, sp, name, &p);
  if (rc) return rc;
  if (bytes) memcpy(p, data, bytes);
  return simple_shobj_release(s, sp, name);
}

static int acc_get(simple_t *s, simple_shobj_space_t *sp, simple_obj_t name, void *buf,
                   size_t size) {
  thr_t *t = &sp->thr[s->thread];
  /* Reading the accumulator this thread holds would wait for itself. */
  if (t->holding && t->held.where == name.where && t->held.what == name.what)
    return SIMPLE_ERR_ACC_MISUSE;
  place_t at;
  int rc = acc_parse(sp, name, &at);
  if (rc) return rc;
  rc = lock_word(s, sp, at.node, at.off, 1);
  if (rc) return rc;
  rc = get_now(sp, at.node, at.off + HDR, buf, size);
  int64_t old;
  int r2 = simple__win_fetch_add(sp->win, at.node, at.off, -1, &old);
  if (!rc) rc = r2;
  if (!rc) COUNT(sp, s->thread, C_ACC_GETS, 1);
  return rc;
}

int simple_shobj_get(simple_t *s, simple_shobj_space_t *sp, simple_obj_t name, void *buf,
                     size_t cap, size_t *bytes) {
  int rc = check(s, sp);
  if (rc) return rc;
  int kind = simple_shobj_kind(name);
  if (!kind) return SIMPLE_ERR_UNKNOWN_OBJECT;
  size_t size = simple_shobj_size(name);
  if (bytes) *bytes = size;
  if (size && !buf) return SIMPLE_ERR_NULL;
  if (cap < size) return SIMPLE_ERR_TRUNCATE;
  if (kind == KIND_ACC) return acc_get(s, sp, name, buf, size);
  const void *p;
  rc = read_value(s, sp, name, &p, NULL);
  if (rc) return rc;
  if (size) memcpy(buf, p, size);
  return simple_shobj_done(s, sp, name);
}

/* ---------------------------------------------------------------------
 * Counters. */

int simple_shobj_stats(simple_t *s, simple_shobj_space_t *sp, simple_shobj_stats_t *st) {
  int rc = check(s, sp);
  if (rc) return rc;
  if (!st) return SIMPLE_ERR_NULL;
  /* The fields, in the order of the counters. */
  uint64_t *field[C_COUNT] = {&st->fetches,     &st->bytes,  &st->hits,      &st->waits,
                              &st->local,       &st->groups, &st->evictions, &st->acc_gets,
                              &st->acc_updates, &st->offers};
  for (int k = 0; k < C_COUNT; k++) {
    *field[k] = 0;
    for (int u = 0; u < sp->threads; u++)
      *field[k] += atomic_load_explicit(&sp->thr[u].c[k], memory_order_relaxed);
  }
  return 0;
}

int simple_shobj_stats_reset(simple_t *s, simple_shobj_space_t *sp) {
  int rc = check(s, sp);
  if (rc) return rc;
  rc = simple_node_barrier(s);
  if (rc) return rc;
  if (s->thread == 0) {
    for (int u = 0; u < sp->threads; u++)
      for (int k = 0; k < C_COUNT; k++) atomic_store(&sp->thr[u].c[k], 0);
  }
  return simple_node_barrier(s);
}
