/* One-sided communication in BSP supersteps: registration, put/get, sync,
 * BSMP. See include/simple/rma.h for the semantics and costs, and
 * docs/rma.md for the design.
 *
 * Queues. Every thread keeps, per destination processor, one byte queue of
 * records (puts with their data, BSMP messages with tag and payload) in
 * program order, and per destination node a list of remote get requests.
 * Queues are filled by their owner during the superstep and read by other
 * threads only inside sync, between node barriers.
 *
 * Sync, on every thread:
 *   B1   every thread has finished its superstep (queues final);
 *        thread 0 plans: packet sizes per node pair, one MPI_Alltoall of
 *        counts (which also checks that pushes, pops and tag sizes agree
 *        everywhere), staging capacity, the registration allgather;
 *   B2   the handler threads (node pair i -> thread i mod r) pack and move
 *        the packets: MPI_Put + MPI_Win_flush into the destination's
 *        staging window (one-sided, then one MPI_Barrier), or
 *        MPI_Isend/MPI_Irecv (two-sided);
 *   B3   reads: handlers serve the get requests of the packets they
 *        received, every thread its own gets inside the node; replies
 *        move back (one more round, only when some thread did a get);
 *   Brw  writes: every thread applies the puts and messages aimed at
 *        itself, source by source in global rank order (so puts to one
 *        place are applied deterministically and never race), and the
 *        get results;
 *   Bend registrations and tag size change (one more barrier if any).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sync.h"
#include "net/net.h"
#include "net/net_rma.h"
#include "run/job.h"
#include "simple/rma.h"

/* ------------------------------------------------------------------------
 * Growable byte buffers, reused from superstep to superstep. */
typedef struct {
  unsigned char *p;
  size_t len, cap;
} gbuf_t;

static int gb_reserve(gbuf_t *b, size_t need) {
  if (need <= b->cap) return 0;
  size_t c = b->cap ? b->cap : 256;
  while (c < need) c = c > SIZE_MAX / 2 ? need : c * 2;
  void *p = realloc(b->p, c);
  if (!p) return SIMPLE_ERR_NOMEM;
  b->p = p;
  b->cap = c;
  return 0;
}

static void *gb_add(gbuf_t *b, size_t n) {
  if (n > SIZE_MAX - b->len || gb_reserve(b, b->len + n) != 0) return NULL;
  void *p = b->p + b->len;
  b->len += n;
  return p;
}

#define PAD8(x)      (((x) + 7) & ~(size_t)7)
#define NITEMS(b, T) ((b).len / sizeof(T))

/* A record in a put/message queue and in a packet; 8-byte aligned, data
 * follows (padded to 8). */
enum { REC_PUT = 1, REC_SEND = 2 };
typedef struct {
  uint32_t kind, taglen;
  uint64_t slot, off, len;
} rec_t;

/* A get request in a packet: thread t of the serving node, area, range. */
typedef struct {
  uint32_t t, pad;
  uint64_t slot, off, len;
} getreq_t;

typedef struct { /* a get from another node, kept by the requester */
  void *dst;
  size_t len;
  uint32_t t;
  uint32_t pad;
  uint64_t slot, off;
} rget_t;

typedef struct { /* a get inside the node */
  const void *src;
  void *dst;
  size_t len, tmp;
} lget_t;

typedef struct {
  const void *addr;
  int slot;
  int popping;
} reg_t;

typedef struct {
  uint64_t addr, size;
} push_t;

/* Per thread. Cache-line aligned so that threads' counters do not share. */
typedef struct {
  _Alignas(SIMPLE__CACHE_LINE) gbuf_t *out; /* [nprocs] records per destination */
  gbuf_t *rgets;                            /* [nodes] rget_t per node */
  size_t *rgoff;        /* [nodes] where this thread's replies start in node k's */
  gbuf_t lgets, tmp;    /* gets inside the node and their data */
  gbuf_t regs;          /* reg_t: effective registrations */
  const void *hit_addr; /* the last lookup, valid while */
  int hit_slot;         /* ... hit_slot >= 0 */
  gbuf_t pushes;        /* push_t pending */
  gbuf_t pops;          /* int slots pending */
  gbuf_t reqs;          /* simple__net_req_t of this sync */
  size_t tag_pending;
  int tag_set, has_gets, has_out;
  int procs_pending;   /* simple_rma_set_procs of this superstep, 0: none */
  gbuf_t inbox, inidx; /* BSMP: messages and their offsets */
  size_t inpos;
  char err[384];
} th_t;

typedef struct {
  int r, P, me, nprocs, first;
  th_t *th;
  int backend; /* chosen for the syncs to come */
  int active;  /* processors taking part: 0..active-1 (simple_rma_set_procs) */
  int idle;    /* this sync: no thread of this node takes part */
  int cur;     /* used by this sync: the same on every node */
  size_t tagsize;
  /* Registration table: slot k, processor q at [k * nprocs + q]. */
  int cap;
  const void **addr;
  size_t *size;
  unsigned char *used;
  /* Sync plan, written by thread 0 between B1 and B2. */
  simple__net_rma_t *net;
  int err;          /* SIMPLE_ERR_ARG when collective calls disagreed */
  char errmsg[320]; /* ... and why */
  int any_gets;     /* this node reads for gets: its own, or serves others' */
  int remote_gets;  /* some node gets from another: one more round */
  int any_send, regchange, tagchange, procchange;
  int newprocs;
  unsigned seq;       /* syncs so far (thread 0 counts them in plan) */
  atomic_uint *ready; /* [P] two-sided: = seq once node k's replies are in */
  atomic_uint ready_sleepers;
  int incoming; /* some packet comes to this node */
  int quiet;    /* nothing moves to or inside this node, nothing changes */
  size_t newtag, npush;
  gbuf_t newregs;                                        /* push_t [nprocs * npush] */
  uint64_t *a2a;                                         /* [2 * P * F] */
  size_t *sendsz, *sendoff, *insz, *owe, *oweoff, *want; /* [P] */
  size_t C, C2; /* staging: P regions of C (packets), P of C2 (replies) */
  unsigned char *stage;
  gbuf_t stage_local, sendbuf, replybuf;
} rma_t;

enum {
  F_SEND,
  F_WANT,
  F_MAXSEND,
  F_MAXWANT,
  F_NPUSH,
  F_NPOP,
  F_POPHASH,
  F_TAG,
  F_GETS,
  F_BACKEND,
  F_PROCS, /* a simple_rma_set_procs in this superstep: the count, 0: none */
  F_IDLE,  /* no thread of the node takes part: its collective fields are void */
  F
};
enum { TAG_PKT = 0x7a01, TAG_REPLY = 0x7a02 };

/* The node's state lives in its layer slot (src/base/sync.h). */
static simple__layer_key_t rma_key;
static void **rma_slot(simple__node_t *n) { return simple__layer_slot(n, &rma_key); }

static void free_state(simple__node_t *n) {
  rma_t *R = *rma_slot(n);
  if (!R) return;
  for (int t = 0; t < R->r; t++) {
    th_t *T = &R->th[t];
    for (int q = 0; q < R->nprocs && T->out; q++) free(T->out[q].p);
    for (int k = 0; k < R->P && T->rgets; k++) free(T->rgets[k].p);
    free(T->out);
    free(T->rgets);
    free(T->rgoff);
    gbuf_t *b[] = {&T->lgets, &T->tmp,  &T->regs,  &T->pushes,
                   &T->pops,  &T->reqs, &T->inbox, &T->inidx};
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) free(b[i]->p);
  }
  free(R->th);
  free(R->addr);
  free(R->size);
  free(R->used);
  free(R->newregs.p);
  free(R->a2a);
  free(R->sendsz);
  free(R->ready);
  free(R->stage_local.p);
  free(R->sendbuf.p);
  free(R->replybuf.p);
  simple__net_rma_close(R->net);
  free(R);
  *rma_slot(n) = NULL;
}

static int env_backend(void) {
  const char *e = getenv("SIMPLE_RMA");
  if (!e || !*e || strcmp(e, "twosided") == 0) return SIMPLE_RMA_TWOSIDED;
  if (strcmp(e, "onesided") == 0) return SIMPLE_RMA_ONESIDED;
  static atomic_flag warned = ATOMIC_FLAG_INIT;
  if (!atomic_flag_test_and_set(&warned))
    fprintf(stderr, "simple: SIMPLE_RMA='%s' is neither onesided nor twosided; using twosided\n",
            e);
  return SIMPLE_RMA_TWOSIDED;
}

static rma_t *make_state(simple__node_t *n) {
  rma_t *R = calloc(1, sizeof *R);
  if (!R) return NULL;
  R->r = n->threads;
  R->P = n->nodes;
  R->me = n->node;
  R->nprocs = n->nprocs;
  R->first = n->first_pid[n->node];
  R->backend = env_backend();
  R->active = R->nprocs;
  R->cap = 8;
  R->addr = calloc((size_t)R->cap * (size_t)R->nprocs, sizeof *R->addr);
  R->size = calloc((size_t)R->cap * (size_t)R->nprocs, sizeof *R->size);
  R->used = calloc((size_t)R->cap, 1);
  R->a2a = calloc(2 * (size_t)R->P * F, sizeof *R->a2a);
  R->sendsz = calloc(6 * (size_t)R->P, sizeof(size_t));
  R->ready = calloc((size_t)R->P, sizeof *R->ready);
  if (posix_memalign((void **)&R->th, SIMPLE__CACHE_LINE, sizeof(th_t) * (size_t)R->r) != 0)
    R->th = NULL;
  if (!R->addr || !R->size || !R->used || !R->a2a || !R->sendsz || !R->ready || !R->th) goto fail;
  memset(R->th, 0, sizeof(th_t) * (size_t)R->r);
  R->sendoff = R->sendsz + R->P;
  R->insz = R->sendoff + R->P;
  R->owe = R->insz + R->P;
  R->oweoff = R->owe + R->P;
  R->want = R->oweoff + R->P;
  for (int t = 0; t < R->r; t++) {
    R->th[t].out = calloc((size_t)R->nprocs, sizeof(gbuf_t));
    R->th[t].rgets = calloc((size_t)R->P, sizeof(gbuf_t));
    R->th[t].rgoff = calloc((size_t)R->P, sizeof(size_t));
    R->th[t].hit_slot = -1;
    if (!R->th[t].out || !R->th[t].rgets || !R->th[t].rgoff) goto fail;
  }
  return R;
fail:
  *rma_slot(n) = R;
  free_state(n);
  return NULL;
}

/* The node's state, made by the first thread that needs it (calls that are
 * not collective, such as a first bsmp_send, may come first). */
static void *create_state(simple__node_t *n) { return make_state(n); }
static rma_t *state(simple_t *s) {
  return simple__layer_state(s->node, rma_slot(s->node), create_state, free_state);
}

#define ENTER(s, R, T)                                  \
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB; \
  rma_t *R = state(s);                                  \
  if (!R) return SIMPLE_ERR_NOMEM;                      \
  th_t *T = &R->th[(s)->thread];                        \
  T->err[0] = '\0'

static int fail(th_t *T, int code, const char *fmt, ...) SIMPLE_PRINTF(3, 4);
static int fail(th_t *T, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(T->err, sizeof T->err, fmt, ap);
  va_end(ap);
  return code;
}

const char *simple_rma_error(simple_t *s) {
  if (!SIMPLE__IN_JOB(s)) return "";
  rma_t *R = __atomic_load_n((rma_t **)rma_slot(s->node), __ATOMIC_ACQUIRE);
  return R ? R->th[s->thread].err : "";
}

int simple_rma_backend(simple_t *s) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  rma_t *R = state(s);
  return R ? R->backend : env_backend();
}

int simple_rma_set_backend(simple_t *s, int backend) {
  ENTER(s, R, T);
  int bad = backend != SIMPLE_RMA_ONESIDED && backend != SIMPLE_RMA_TWOSIDED;
  unsigned f = simple__barrier_wait(&s->node->barrier, bad ? 1u : 0u);
  if (f & SIMPLE__BARRIER_FATAL) return SIMPLE_ERR_FATAL;
  if (f) {
    return bad ? fail(T, SIMPLE_ERR_ARG, "simple_rma_set_backend: unknown backend %d", backend)
               : SIMPLE_ERR_PEER;
  }
  if (s->thread == 0) R->backend = backend;
  f = simple__barrier_wait(&s->node->barrier, 0);
  return (f & SIMPLE__BARRIER_FATAL) ? SIMPLE_ERR_FATAL : 0;
}

int simple_rma_procs(simple_t *s) {
  if (!SIMPLE__IN_JOB(s)) return 0;
  rma_t *R = state(s);
  return R ? R->active : 0;
}

/* A processor left out by simple_rma_set_procs makes no call but sync. */
static int idle_call(simple_t *s, const rma_t *R, th_t *T, const char *call) {
  if (s->pid < R->active) return 0;
  return fail(T, SIMPLE_ERR_RANK,
              "%s: processor %d does not take part in the supersteps (only processors 0..%d do)",
              call, s->pid, R->active - 1);
}

int simple_rma_set_procs(simple_t *s, int nprocs) {
  ENTER(s, R, T);
  int rc = idle_call(s, R, T, "set_procs");
  if (rc) return rc;
  if (nprocs < 1 || nprocs > R->nprocs)
    return fail(T, SIMPLE_ERR_RANK,
                "set_procs: processor %d asked for %d processors, the job has %d", s->pid, nprocs,
                R->nprocs);
  T->procs_pending = nprocs;
  return 0;
}

/* ------------------------------------------------------------------------
 * Registration. */

/* The slot of the caller's latest effective registration of addr, or -1. */
static int find_reg(th_t *T, const void *addr) {
  /* A superstep usually names the same few areas again and again. */
  if (T->hit_slot >= 0 && T->hit_addr == addr) return T->hit_slot;
  const reg_t *g = (const reg_t *)T->regs.p;
  for (size_t i = NITEMS(T->regs, reg_t); i-- > 0;)
    if (g[i].addr == addr) {
      T->hit_addr = addr;
      T->hit_slot = g[i].slot;
      return g[i].slot;
    }
  return -1;
}

int simple_rma_push_reg(simple_t *s, const void *addr, size_t size) {
  ENTER(s, R, T);
  int rc = idle_call(s, R, T, "push_reg");
  if (rc) return rc;
  if (!addr && size)
    return fail(T, SIMPLE_ERR_NULL, "push_reg: processor %d registered NULL with size %zu", s->pid,
                size);
  push_t *p = gb_add(&T->pushes, sizeof *p);
  if (!p) return SIMPLE_ERR_NOMEM;
  p->addr = (uint64_t)(uintptr_t)addr;
  p->size = size;
  return 0;
}

/* Whether the i-th push of this superstep was popped in it already: its
 * pop is recorded as slot -(1 + i). O(pops of the superstep). */
static int push_popped(const th_t *T, size_t i) {
  const int *pops = (const int *)T->pops.p;
  for (size_t j = 0; j < NITEMS(T->pops, int); j++)
    if (pops[j] == -1 - (int)i) return 1;
  return 0;
}

int simple_rma_pop_reg(simple_t *s, const void *addr) {
  ENTER(s, R, T);
  int rc = idle_call(s, R, T, "pop_reg");
  if (rc) return rc;
  /* Calls take effect at the sync in call order: a pop after a push of
   * the same address in this superstep undoes that push (the latest one),
   * so the pair leaves the registrations as they were. */
  const push_t *pu = (const push_t *)T->pushes.p;
  for (size_t i = NITEMS(T->pushes, push_t); i-- > 0;) {
    if (pu[i].addr != (uint64_t)(uintptr_t)addr || push_popped(T, i)) continue;
    if (i > (size_t)INT32_MAX - 1)
      return fail(T, SIMPLE_ERR_COUNT, "pop_reg: too many registrations in one superstep");
    int *slot = gb_add(&T->pops, sizeof *slot);
    if (!slot) return SIMPLE_ERR_NOMEM;
    *slot = -1 - (int)i;
    return 0;
  }
  reg_t *g = (reg_t *)T->regs.p;
  for (size_t i = NITEMS(T->regs, reg_t); i-- > 0;) {
    if (g[i].addr != addr || g[i].popping) continue;
    int *slot = gb_add(&T->pops, sizeof *slot);
    if (!slot) return SIMPLE_ERR_NOMEM;
    *slot = g[i].slot;
    g[i].popping = 1;
    return 0;
  }
  return fail(T, SIMPLE_ERR_ARG,
              "pop_reg: processor %d popped address %p, which it has not registered (or"
              " already popped)",
              s->pid, addr);
}

/* Checks a transfer of n bytes at offset off of pid's copy of the area
 * that the caller registered at `area`; returns the slot or -(error). */
static int check_area(simple_t *s, rma_t *R, th_t *T, const char *call, int pid, const void *area,
                      size_t off, size_t n, const void *buf) {
  if (s->pid >= R->active) return -idle_call(s, R, T, call);
  if (pid < 0 || pid >= R->active) {
    return -fail(T, SIMPLE_ERR_RANK, "%s: processor %d named processor %d, outside 0..%d", call,
                 s->pid, pid, R->active - 1);
  }
  if (n && !buf)
    return -fail(T, SIMPLE_ERR_NULL, "%s: processor %d passed a NULL buffer for %zu bytes", call,
                 s->pid, n);
  const char *dir = call[0] == 'g' || call[2] == 'g' ? "from" : "to";
  int slot = find_reg(T, area);
  if (slot < 0)
    return -fail(T, SIMPLE_ERR_ARG,
                 "%s: processor %d %s processor %d: address %p is not registered on processor"
                 " %d (push_reg, then sync, before use)",
                 call, s->pid, dir, pid, area, s->pid);
  size_t sz = R->size[(size_t)slot * (size_t)R->nprocs + (size_t)pid];
  if (off > sz || n > sz - off)
    return -fail(T, SIMPLE_ERR_ARG,
                 "%s: processor %d %s processor %d: %zu bytes at offset %zu are outside the area"
                 " of %zu bytes that processor %d registered (registered at %p by processor %d)",
                 call, s->pid, dir, pid, n, off, sz, pid, area, s->pid);
  return slot;
}

static int put(simple_t *s, int pid, const void *src, void *dst, size_t off, size_t n, int hp) {
  ENTER(s, R, T);
  int slot = check_area(s, R, T, hp ? "hpput" : "put", pid, dst, off, n, src);
  if (slot < 0) return -slot;
  if (n == 0) return 0;
  unsigned char *d = (unsigned char *)R->addr[(size_t)slot * (size_t)R->nprocs + (size_t)pid];
  if (hp && pid >= R->first && pid < R->first + R->r) {
    memcpy(d + off, src, n);
    return 0;
  }
  rec_t *rec = gb_add(&T->out[pid], sizeof(rec_t) + PAD8(n));
  if (!rec) return fail(T, SIMPLE_ERR_NOMEM, "put: out of memory queueing %zu bytes", n);
  *rec = (rec_t){.kind = REC_PUT, .slot = (uint64_t)slot, .off = off, .len = n};
  memcpy(rec + 1, src, n);
  T->has_out = 1;
  return 0;
}

int simple_rma_put(simple_t *s, int pid, const void *src, void *dst, size_t offset, size_t nbytes) {
  return put(s, pid, src, dst, offset, nbytes, 0);
}

int simple_rma_hpput(simple_t *s, int pid, const void *src, void *dst, size_t offset,
                     size_t nbytes) {
  return put(s, pid, src, dst, offset, nbytes, 1);
}

static int get(simple_t *s, int pid, const void *src, size_t off, void *dst, size_t n, int hp) {
  ENTER(s, R, T);
  int slot = check_area(s, R, T, hp ? "hpget" : "get", pid, src, off, n, dst);
  if (slot < 0) return -slot;
  if (n == 0) return 0;
  const unsigned char *a =
      (const unsigned char *)R->addr[(size_t)slot * (size_t)R->nprocs + (size_t)pid];
  if (pid >= R->first && pid < R->first + R->r) {
    if (hp) {
      memcpy(dst, a + off, n);
      return 0;
    }
    size_t at = T->tmp.len;
    lget_t *g = gb_add(&T->lgets, sizeof *g);
    if (!g || !gb_add(&T->tmp, PAD8(n))) {
      if (g) T->lgets.len -= sizeof *g;
      return fail(T, SIMPLE_ERR_NOMEM, "get: out of memory queueing %zu bytes", n);
    }
    *g = (lget_t){.src = a + off, .dst = dst, .len = n, .tmp = at};
  } else {
    int k = simple_node_of(s, pid);
    rget_t *g = gb_add(&T->rgets[k], sizeof *g);
    if (!g) return fail(T, SIMPLE_ERR_NOMEM, "get: out of memory");
    *g = (rget_t){.dst = dst,
                  .len = n,
                  .t = (uint32_t)(pid - s->node->first_pid[k]),
                  .slot = (uint64_t)slot,
                  .off = off};
  }
  T->has_gets = 1;
  return 0;
}

int simple_rma_get(simple_t *s, int pid, const void *src, size_t offset, void *dst, size_t nbytes) {
  return get(s, pid, src, offset, dst, nbytes, 0);
}

int simple_rma_hpget(simple_t *s, int pid, const void *src, size_t offset, void *dst,
                     size_t nbytes) {
  return get(s, pid, src, offset, dst, nbytes, 1);
}

/* ------------------------------------------------------------------------
 * BSMP. */

int simple_bsmp_set_tagsize(simple_t *s, size_t *tagsize) {
  ENTER(s, R, T);
  if (!tagsize) return fail(T, SIMPLE_ERR_NULL, "set_tagsize: NULL argument");
  int rc = idle_call(s, R, T, "set_tagsize");
  if (rc) return rc;
  T->tag_pending = *tagsize;
  T->tag_set = 1;
  *tagsize = R->tagsize;
  return 0;
}

int simple_bsmp_send(simple_t *s, int pid, const void *tag, const void *payload, size_t nbytes) {
  ENTER(s, R, T);
  size_t ts = R->tagsize;
  int rc = idle_call(s, R, T, "send");
  if (rc) return rc;
  if (pid < 0 || pid >= R->active)
    return fail(T, SIMPLE_ERR_RANK, "send: processor %d sent to processor %d, outside 0..%d",
                s->pid, pid, R->active - 1);
  if ((ts && !tag) || (nbytes && !payload))
    return fail(T, SIMPLE_ERR_NULL, "send: processor %d passed a NULL %s", s->pid,
                ts && !tag ? "tag" : "payload");
  if (nbytes > SIZE_MAX / 2 || ts > SIZE_MAX / 4)
    return fail(T, SIMPLE_ERR_COUNT, "send: message too large");
  rec_t *rec = gb_add(&T->out[pid], sizeof(rec_t) + PAD8(ts) + PAD8(nbytes));
  if (!rec) return fail(T, SIMPLE_ERR_NOMEM, "send: out of memory queueing %zu bytes", nbytes);
  *rec = (rec_t){.kind = REC_SEND, .taglen = (uint32_t)ts, .len = nbytes};
  unsigned char *p = (unsigned char *)(rec + 1);
  if (ts) memcpy(p, tag, ts);
  if (nbytes) memcpy(p + PAD8(ts), payload, nbytes);
  T->has_out = 1;
  return 0;
}

/* An inbox entry: header, tag (padded), payload (padded). */
typedef struct {
  uint64_t len, taglen;
} msg_t;

static const msg_t *next_msg(const th_t *T) {
  if (T->inpos >= NITEMS(T->inidx, size_t)) return NULL;
  return (const msg_t *)(T->inbox.p + ((const size_t *)T->inidx.p)[T->inpos]);
}

int simple_bsmp_qsize(simple_t *s, size_t *nmessages, size_t *nbytes) {
  ENTER(s, R, T);
  size_t n = NITEMS(T->inidx, size_t), b = 0;
  for (size_t i = T->inpos; i < n; i++)
    b += ((const msg_t *)(T->inbox.p + ((const size_t *)T->inidx.p)[i]))->len;
  if (nmessages) *nmessages = n - T->inpos;
  if (nbytes) *nbytes = b;
  return 0;
}

int simple_bsmp_get_tag(simple_t *s, ptrdiff_t *status, void *tag) {
  ENTER(s, R, T);
  if (!status)
    return fail(T, SIMPLE_ERR_NULL, "get_tag: processor %d passed a NULL status", s->pid);
  const msg_t *m = next_msg(T);
  if (!m) {
    *status = -1;
    return 0;
  }
  if (m->taglen && !tag)
    return fail(T, SIMPLE_ERR_NULL, "get_tag: processor %d passed a NULL tag buffer", s->pid);
  *status = (ptrdiff_t)m->len;
  if (m->taglen) memcpy(tag, m + 1, m->taglen);
  return 0;
}

int simple_bsmp_move(simple_t *s, void *payload, size_t room) {
  ENTER(s, R, T);
  const msg_t *m = next_msg(T);
  if (!m) return fail(T, SIMPLE_ERR_ARG, "move: processor %d has no message left", s->pid);
  size_t n = m->len < room ? m->len : room;
  if (n && !payload)
    return fail(T, SIMPLE_ERR_NULL, "move: processor %d passed a NULL payload buffer", s->pid);
  if (n) memcpy(payload, (const unsigned char *)(m + 1) + PAD8(m->taglen), n);
  T->inpos++;
  return 0;
}

int simple_bsmp_hpmove(simple_t *s, const void **tag, const void **payload, ptrdiff_t *status) {
  ENTER(s, R, T);
  if (!tag || !payload || !status)
    return fail(T, SIMPLE_ERR_NULL, "hpmove: processor %d passed a NULL pointer", s->pid);
  const msg_t *m = next_msg(T);
  if (!m) {
    *status = -1;
    return 0;
  }
  *tag = m + 1;
  *payload = (const unsigned char *)(m + 1) + PAD8(m->taglen);
  *status = (ptrdiff_t)m->len;
  T->inpos++;
  return 0;
}

/* ------------------------------------------------------------------------
 * Sync. */

static int bar(simple_t *s, int rc) {
  unsigned f = simple__barrier_wait(&s->node->barrier, rc ? 1u : 0u);
  if (f & SIMPLE__BARRIER_FATAL) return SIMPLE_ERR_FATAL;
  return rc ? rc : f ? SIMPLE_ERR_PEER : 0;
}

/* A failure inside sync after other nodes may have moved on cannot be
 * reported without leaving them waiting: the job ends, with the reason. */
static void must(simple_t *s, int rc, const char *what) {
  if (rc) simple_abort(s, "simple_rma_sync: %s failed: %s", what, simple_strerror(rc));
}

static uint64_t hash_ints(const int *v, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint64_t)(unsigned)v[i]) * 1099511628211ull;
  return h;
}

static size_t round_cap(size_t need, size_t old) {
  if (need <= old) return old;
  need = (need + 63) / 64 * 64;
  return need < 2 * old ? 2 * old : need;
}

/* Threads of node k and the global rank of its first thread. */
#define RK(n, k) ((n)->threads_of[k])
#define FP(n, k) ((n)->first_pid[k])

static void set_err(rma_t *R, const char *fmt, ...) SIMPLE_PRINTF(2, 3);
static void set_err(rma_t *R, const char *fmt, ...) {
  if (R->err) return;
  R->err = SIMPLE_ERR_ARG;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(R->errmsg, sizeof R->errmsg, fmt, ap);
  va_end(ap);
}

/* Thread 0, between B1 and B2: checks the collective calls, sizes the
 * packets, exchanges counts, and gathers new registrations. */
static void plan(simple_t *s, rma_t *R, int node_gets, int node_out) {
  simple__node_t *n = s->node;
  int r = R->r, P = R->P, me = R->me;
  R->err = 0;
  R->errmsg[0] = '\0';
  R->any_gets = node_gets;
  R->remote_gets = 0;
  R->any_send = 0;
  R->incoming = 0;
  R->cur = R->backend;
  R->seq++;
  const th_t *T0 = &R->th[0];
  size_t npush = NITEMS(T0->pushes, push_t), npop = NITEMS(T0->pops, int);
  /* The threads of this node that take part: a prefix, since processors
   * 0..active-1 do. The others called nothing but sync. */
  int ract = R->active - R->first;
  if (ract > r) ract = r;
  if (ract < 0) ract = 0;
  R->idle = ract == 0;
  for (int u = 1; u < ract; u++) {
    const th_t *U = &R->th[u];
    if (NITEMS(U->pushes, push_t) != npush)
      set_err(R,
              "push_reg: processor %d pushed %zu registration(s) in this superstep, processor %d"
              " pushed %zu",
              R->first, npush, R->first + u, NITEMS(U->pushes, push_t));
    else if (NITEMS(U->pops, int) != npop)
      set_err(R,
              "pop_reg: processor %d popped %zu registration(s) in this superstep, processor"
              " %d popped %zu",
              R->first, npop, R->first + u, NITEMS(U->pops, int));
    else if (npop && memcmp(U->pops.p, T0->pops.p, npop * sizeof(int)) != 0)
      set_err(R,
              "pop_reg: processors %d and %d popped different registrations (pops must come"
              " in the same order everywhere)",
              R->first, R->first + u);
    if (U->tag_set != T0->tag_set || (U->tag_set && U->tag_pending != T0->tag_pending))
      set_err(R, "set_tagsize: processors %d and %d asked for different tag sizes", R->first,
              R->first + u);
    if (U->procs_pending != T0->procs_pending)
      set_err(R, "set_procs: processors %d and %d asked for different processor counts (%d, %d)",
              R->first, R->first + u, T0->procs_pending, U->procs_pending);
  }
  uint64_t procv = (uint64_t)T0->procs_pending;
  uint64_t tagv = T0->tag_set ? (uint64_t)T0->tag_pending + 1 : 0;
  uint64_t pophash = hash_ints((const int *)T0->pops.p, npop);
  int node_bad = R->err != 0;

  if (P > 1) {
    if (!R->net) must(s, simple__net_rma_open(n, &R->net), "opening the MPI side");
    uint64_t *snd = R->a2a, *rcv = R->a2a + (size_t)P * F;
    size_t maxsend = 0, maxwant = 0, total = 0, want_total = 0;
    for (int k = 0; k < P; k++) {
      size_t sec = 0, nreq = 0, want = 0;
      if (k != me) {
        for (int u = 0; u < r; u++) {
          th_t *U = &R->th[u];
          for (int t = 0; t < RK(n, k); t++) sec += U->out[FP(n, k) + t].len;
          const rget_t *g = (const rget_t *)U->rgets[k].p;
          U->rgoff[k] = want; /* replies come back in thread order */
          size_t ng = NITEMS(U->rgets[k], rget_t);
          nreq += ng;
          for (size_t i = 0; i < ng; i++) want += PAD8(g[i].len);
        }
      }
      size_t sz =
          sec || nreq ? 8 * (1 + (size_t)r * (size_t)RK(n, k)) + sec + nreq * sizeof(getreq_t) : 0;
      R->sendsz[k] = sz;
      R->sendoff[k] = total;
      total += PAD8(sz);
      R->want[k] = want;
      want_total += want;
      if (sz > maxsend) maxsend = sz;
      if (want > maxwant) maxwant = want;
      uint64_t *f = snd + (size_t)k * F;
      f[F_SEND] = sz;
      f[F_WANT] = want;
      f[F_MAXSEND] = maxsend; /* fixed below */
      f[F_NPUSH] = node_bad ? UINT64_MAX : npush;
      f[F_NPOP] = node_bad ? UINT64_MAX : npop;
      f[F_POPHASH] = pophash;
      f[F_TAG] = tagv;
      f[F_GETS] = 0; /* below */
      f[F_BACKEND] = (uint64_t)R->backend;
      f[F_PROCS] = procv;
      f[F_IDLE] = (uint64_t)R->idle;
    }
    for (int k = 0; k < P; k++) {
      snd[(size_t)k * F + F_GETS] = want_total > 0;
      snd[(size_t)k * F + F_MAXSEND] = maxsend;
      snd[(size_t)k * F + F_MAXWANT] = maxwant;
    }
    must(s, simple__net_rma_alltoall(R->net, snd, rcv, F), "the count exchange (MPI_Alltoall)");
    size_t needC = maxsend, needC2 = maxwant, owe = 0;
    int followed = 0; /* an idle node has adopted the calls of one taking part */
    for (int j = 0; j < P; j++) {
      const uint64_t *f = rcv + (size_t)j * F;
      if (j != me) {
        R->insz[j] = f[F_SEND];
        if (f[F_SEND]) R->incoming = 1;
        R->owe[j] = f[F_WANT];
        R->oweoff[j] = owe;
        owe += f[F_WANT];
      } else {
        R->insz[j] = R->owe[j] = 0;
        R->oweoff[j] = owe;
      }
      if (f[F_MAXSEND] > needC) needC = f[F_MAXSEND];
      if (f[F_MAXWANT] > needC2) needC2 = f[F_MAXWANT];
      if (f[F_GETS]) R->remote_gets = 1;
      if (f[F_BACKEND] != (uint64_t)R->backend) {
        /* Nodes that chose different backends would wait for each other
         * in different ways: this sync goes two-sided everywhere. */
        R->cur = SIMPLE_RMA_TWOSIDED;
        set_err(R, "set_backend: node %d uses backend %d, node %d backend %d", j, (int)f[F_BACKEND],
                me, R->backend);
      }
      if (f[F_IDLE]) {
        /* A node that takes no part agrees with anything. */
      } else if (R->idle) {
        /* This node takes no part: it follows the collective calls of
         * the nodes that do, and fails the sync as they do when they
         * disagree (it must never apply a change they refuse). */
        if (f[F_NPUSH] == UINT64_MAX || f[F_NPOP] == UINT64_MAX) {
          set_err(R, "push_reg/pop_reg/set_tagsize: the processors of node %d disagree", j);
        } else if (!followed) {
          followed = 1;
          npush = (size_t)f[F_NPUSH];
          npop = (size_t)f[F_NPOP];
          pophash = f[F_POPHASH];
          tagv = f[F_TAG];
          procv = f[F_PROCS];
        } else if (f[F_NPUSH] != npush || f[F_NPOP] != npop || f[F_POPHASH] != pophash ||
                   f[F_TAG] != tagv || f[F_PROCS] != procv) {
          set_err(R,
                  "push_reg/pop_reg/set_tagsize/set_procs: the nodes taking part disagree"
                  " (node %d and another)",
                  j);
        }
      } else if (f[F_PROCS] != procv) {
        set_err(R, "set_procs: nodes %d and %d ask for different processor counts (%llu, %llu)", j,
                me, (unsigned long long)f[F_PROCS], (unsigned long long)procv);
      } else if (f[F_NPUSH] == UINT64_MAX || f[F_NPOP] == UINT64_MAX) {
        if (!node_bad)
          set_err(R, "push_reg/pop_reg/set_tagsize: the processors of node %d disagree", j);
      } else if (f[F_NPUSH] != npush || f[F_NPOP] != npop || f[F_POPHASH] != pophash) {
        set_err(R,
                "push_reg/pop_reg: node %d pushed %llu and popped %llu registration(s) per"
                " processor in this superstep, node %d pushed %zu and popped %zu (or popped"
                " others)",
                j, (unsigned long long)f[F_NPUSH], (unsigned long long)f[F_NPOP], me, npush, npop);
      } else if (f[F_TAG] != tagv) {
        set_err(R, "set_tagsize: nodes %d and %d disagree on the tag size", j, me);
      }
    }
    /* Every node saw every node's maxima: the same capacities everywhere,
     * and the same verdict on whether any packet moves at all. */
    R->any_send = needC > 0;
    size_t C = round_cap(needC, R->C), C2 = round_cap(needC2, R->C2);
    if (C > SIZE_MAX / 2 / (size_t)P || C2 > SIZE_MAX / 2 / (size_t)P)
      simple_abort(s, "simple_rma_sync: staging of %zu + %zu bytes per node pair overflows", C, C2);
    R->C = C;
    R->C2 = C2;
    if (owe) R->any_gets = 1;
    size_t stage = (size_t)P * (C + C2);
    if (R->cur == SIMPLE_RMA_ONESIDED) {
      void *base;
      must(s, simple__net_rma_win_ensure(R->net, stage, &base), "creating the staging window");
      R->stage = base;
    } else {
      must(s, gb_reserve(&R->stage_local, stage ? stage : 64), "allocating the staging buffer");
      R->stage = R->stage_local.p;
    }
    must(s, gb_reserve(&R->sendbuf, total ? total : 64), "allocating the send buffer");
    must(s, gb_reserve(&R->replybuf, owe ? owe : 64), "allocating the reply buffer");
  }

  /* New registrations: every processor's (address, size) for each push. */
  R->regchange = !R->err && (npush || npop);
  R->tagchange = !R->err && tagv;
  R->procchange = !R->err && procv;
  R->newprocs = (int)procv;
  R->newtag = tagv ? (size_t)(tagv - 1) : 0;
  R->npush = R->err ? 0 : npush;
  R->quiet = !node_out && !R->any_gets && !R->any_send && !R->regchange && !R->tagchange &&
             !R->procchange && !R->err;
  if (R->npush) {
    size_t all = (size_t)R->nprocs * npush * sizeof(push_t);
    must(s, gb_reserve(&R->newregs, all), "allocating the registration table");
    unsigned char *mine = R->newregs.p + (size_t)R->first * npush * sizeof(push_t);
    /* Threads that take no part push nothing: (NULL, 0) stands for them. */
    for (int u = 0; u < r; u++) {
      unsigned char *at = mine + (size_t)u * npush * sizeof(push_t);
      if (u < ract)
        memcpy(at, R->th[u].pushes.p, npush * sizeof(push_t));
      else
        memset(at, 0, npush * sizeof(push_t));
    }
    if (P > 1) {
      size_t *counts = malloc(sizeof(size_t) * (size_t)P);
      if (!counts) must(s, SIMPLE_ERR_NOMEM, "the registration exchange");
      for (int k = 0; k < P; k++) counts[k] = (size_t)RK(n, k) * npush * sizeof(push_t);
      /* MPI forbids the send block inside the receive buffer: send a copy. */
      void *copy = malloc(counts[me] ? counts[me] : 1);
      if (!copy) must(s, SIMPLE_ERR_NOMEM, "the registration exchange");
      memcpy(copy, mine, counts[me]);
      must(s, simple__net_rma_allgatherv(R->net, me, copy, counts, R->newregs.p),
           "the registration exchange (MPI_Allgatherv)");
      free(copy);
      free(counts);
    }
  }
}

/* The nodes whose pair with this node thread t drives: index i among the
 * other nodes (counted from the next node up) with i = t mod r. */
#define FOR_HANDLED(R, t, k) \
  for (int i_ = (t), k = 0; i_ < (R)->P - 1 && ((k = ((R)->me + 1 + i_) % (R)->P), 1); i_ += (R)->r)

/* Packs the packet for node k: header (number of get requests, then the
 * byte size of each section, source thread u major, destination thread t
 * minor), the sections, the get requests. */
static void pack(simple__node_t *n, rma_t *R, int k, unsigned char *p) {
  int r = R->r, rk = RK(n, k);
  uint64_t *h = (uint64_t *)p;
  size_t nreq = 0;
  unsigned char *q = p + 8 * (1 + (size_t)r * (size_t)rk);
  for (int u = 0; u < r; u++)
    for (int t = 0; t < rk; t++) {
      const gbuf_t *b = &R->th[u].out[FP(n, k) + t];
      h[1 + (size_t)u * (size_t)rk + (size_t)t] = b->len;
      if (b->len) memcpy(q, b->p, b->len);
      q += b->len;
    }
  for (int u = 0; u < r; u++) {
    const rget_t *g = (const rget_t *)R->th[u].rgets[k].p;
    size_t ng = NITEMS(R->th[u].rgets[k], rget_t);
    for (size_t i = 0; i < ng; i++) {
      getreq_t req = {.t = g[i].t, .slot = g[i].slot, .off = g[i].off, .len = g[i].len};
      memcpy(q, &req, sizeof req);
      q += sizeof req;
    }
    nreq += ng;
  }
  h[0] = nreq;
}

static int lane_of(const simple__node_t *n, int a, int b) { return (a + b) % n->lanes; }

static int post(simple__node_t *n, th_t *T, int send, void *buf, size_t bytes, int peer, int tag,
                int lane) {
  simple__net_req_t *q = gb_add(&T->reqs, sizeof *q);
  if (!q) return SIMPLE_ERR_NOMEM;
  return send ? simple__net_isend(n, lane, buf, bytes, peer, tag, q)
              : simple__net_irecv(n, lane, buf, bytes, peer, tag, q);
}

static int wait_reqs(th_t *T) {
  int rc =
      simple__net_waitall((simple__net_req_t *)T->reqs.p, (int)NITEMS(T->reqs, simple__net_req_t));
  T->reqs.len = 0;
  return rc;
}

/* Moves this thread's share of the packets. */
static void exchange(simple_t *s, rma_t *R, th_t *T) {
  simple__node_t *n = s->node;
  int me = R->me;
  FOR_HANDLED(R, s->thread, k) {
    unsigned char *out = R->sendbuf.p + R->sendoff[k];
    if (R->sendsz[k]) pack(n, R, k, out);
    if (R->cur == SIMPLE_RMA_ONESIDED) {
      if (R->sendsz[k])
        must(s, simple__net_rma_put(R->net, k, out, R->sendsz[k], (size_t)me * R->C),
             "MPI_Put of a packet");
    } else {
      if (R->insz[k])
        must(s,
             post(n, T, 0, R->stage + (size_t)k * R->C, R->insz[k], k, TAG_PKT, lane_of(n, me, k)),
             "MPI_Irecv of a packet");
      if (R->sendsz[k])
        must(s, post(n, T, 1, out, R->sendsz[k], k, TAG_PKT, lane_of(n, me, k)),
             "MPI_Isend of a packet");
    }
  }
  if (R->cur != SIMPLE_RMA_ONESIDED) must(s, wait_reqs(T), "the packet exchange");
}

/* Serves the get requests in the packet from node j into the replies. */
static void serve(simple__node_t *n, rma_t *R, int j) {
  if (!R->insz[j]) return;
  const unsigned char *p = R->stage + (size_t)j * R->C;
  const uint64_t *h = (const uint64_t *)p;
  size_t nsec = (size_t)RK(n, j) * (size_t)R->r, at = 8 * (1 + nsec);
  for (size_t x = 0; x < nsec; x++) at += h[1 + x];
  unsigned char *rep = R->replybuf.p + R->oweoff[j];
  for (uint64_t i = 0; i < h[0]; i++) {
    getreq_t q;
    memcpy(&q, p + at + i * sizeof q, sizeof q);
    const unsigned char *a =
        (const unsigned char *)R->addr[q.slot * (size_t)R->nprocs + (size_t)R->first + q.t];
    memcpy(rep, a + q.off, q.len);
    rep += PAD8(q.len);
  }
}

static void apply(rma_t *R, th_t *T, int mypid, const unsigned char *p, size_t len) {
  const unsigned char *end = p + len;
  while (p < end) {
    rec_t h;
    memcpy(&h, p, sizeof h);
    p += sizeof h;
    if (h.kind == REC_PUT) {
      unsigned char *d = (unsigned char *)R->addr[h.slot * (size_t)R->nprocs + (size_t)mypid];
      memcpy(d + h.off, p, h.len);
      p += PAD8(h.len);
    } else {
      size_t bytes = sizeof(msg_t) + PAD8(h.taglen) + PAD8(h.len);
      size_t at = T->inbox.len;
      msg_t *m = gb_add(&T->inbox, bytes);
      size_t *ix = gb_add(&T->inidx, sizeof *ix);
      if (!m || !ix) simple_abort(NULL, "simple_rma_sync: out of memory delivering a message");
      m->len = h.len;
      m->taglen = h.taglen;
      memcpy(m + 1, p, PAD8(h.taglen) + PAD8(h.len));
      *ix = at;
      p += PAD8(h.taglen) + PAD8(h.len);
    }
  }
}

/* Applies everything aimed at the calling thread, in global rank order of
 * the sources. */
static void write_mine(simple_t *s, rma_t *R, th_t *T) {
  simple__node_t *n = s->node;
  int me = R->me, t = s->thread, r = R->r;
  T->inbox.len = T->inidx.len = 0;
  T->inpos = 0;
  for (int j = 0; j < R->P; j++) {
    if (j == me) {
      for (int u = 0; u < r; u++) {
        const gbuf_t *b = &R->th[u].out[s->pid];
        if (b->len) apply(R, T, s->pid, b->p, b->len);
      }
      continue;
    }
    if (!R->insz[j]) continue;
    const unsigned char *p = R->stage + (size_t)j * R->C;
    const uint64_t *h = (const uint64_t *)p;
    int rj = RK(n, j);
    size_t at = 8 * (1 + (size_t)rj * (size_t)r);
    for (int u = 0; u < rj; u++)
      for (int x = 0; x < r; x++) {
        size_t len = h[1 + (size_t)u * (size_t)r + (size_t)x];
        if (x == t && len) apply(R, T, s->pid, p + at, len);
        at += len;
      }
  }
}

/* Applies the registration changes of this sync (thread 0, all others
 * waiting in a barrier). */
static void update_regs(simple_t *s, rma_t *R) {
  int r = R->r, np = R->nprocs;
  if (R->tagchange) R->tagsize = R->newtag;
  if (R->procchange) {
    int grow = R->newprocs > R->active;
    R->active = R->newprocs;
    if (grow) {
      /* Processors that come back know none of the registrations made
       * while they sat out: every registration ends. */
      memset(R->used, 0, (size_t)R->cap);
      for (int u = 0; u < r; u++) {
        R->th[u].regs.len = 0;
        R->th[u].hit_slot = -1;
      }
      return;
    }
  }
  /* A node none of whose threads takes part keeps no registrations (nobody
   * may name its processors): they are dropped when it takes part again. */
  if (R->idle || !R->regchange) return;
  const th_t *T0 = &R->th[0];
  const int *pops = (const int *)T0->pops.p;
  size_t npop = NITEMS(T0->pops, int);
  /* Pops of live registrations free their slots; pops of this superstep's
   * pushes (negative) cancel those pushes below. */
  for (size_t i = 0; i < npop; i++)
    if (pops[i] >= 0) R->used[pops[i]] = 0;
  for (int u = 0; u < r; u++) {
    th_t *U = &R->th[u];
    reg_t *g = (reg_t *)U->regs.p;
    size_t m = 0, ng = NITEMS(U->regs, reg_t);
    for (size_t i = 0; i < ng; i++)
      if (R->used[g[i].slot]) g[m++] = g[i];
    U->regs.len = m * sizeof(reg_t);
    U->hit_slot = -1;
  }
  const push_t *all = (const push_t *)R->newregs.p;
  for (size_t i = 0; i < R->npush; i++) {
    if (push_popped(T0, i)) continue;
    int slot = 0;
    while (slot < R->cap && R->used[slot]) slot++;
    if (slot == R->cap) {
      int cap = R->cap * 2;
      const void **a = realloc(R->addr, sizeof *a * (size_t)cap * (size_t)np);
      if (a) R->addr = a;
      size_t *z = realloc(R->size, sizeof *z * (size_t)cap * (size_t)np);
      if (z) R->size = z;
      unsigned char *us = realloc(R->used, (size_t)cap);
      if (us) R->used = us;
      if (!a || !z || !us) simple_abort(s, "simple_rma_sync: out of memory for registrations");
      memset(R->used + R->cap, 0, (size_t)(cap - R->cap));
      R->cap = cap;
    }
    R->used[slot] = 1;
    for (int q = 0; q < np; q++) {
      const push_t *e = &all[(size_t)q * R->npush + i];
      R->addr[(size_t)slot * (size_t)np + (size_t)q] = (const void *)(uintptr_t)e->addr;
      R->size[(size_t)slot * (size_t)np + (size_t)q] = (size_t)e->size;
    }
    for (int u = 0; u < r; u++) {
      reg_t *g = gb_add(&R->th[u].regs, sizeof *g);
      if (!g) simple_abort(s, "simple_rma_sync: out of memory for registrations");
      *g = (reg_t){.addr = (const void *)(uintptr_t)all[(size_t)(R->first + u) * R->npush + i].addr,
                   .slot = slot};
    }
  }
}

int simple_rma_sync(simple_t *s) {
  ENTER(s, R, T);
  simple__node_t *n = s->node;
  int me = R->me, P = R->P, rc;
  /* B1: every thread's superstep is over. */
  unsigned f = simple__barrier_wait(&n->barrier, (T->has_gets ? 1u : 0u) | (T->has_out ? 2u : 0u));
  if (f & SIMPLE__BARRIER_FATAL) return SIMPLE_ERR_FATAL;
  if (s->thread == 0) plan(s, R, (int)(f & 1u), (int)(f & 2u));
  if ((rc = bar(s, 0)) != 0) return rc; /* B2 */
  if (R->quiet) {
    /* An empty superstep: B2 was the barrier. Nobody reads another
     * thread's queues, which are empty, so a thread may start its next
     * superstep while others are still here. Only last superstep's
     * messages go. */
    T->inbox.len = T->inidx.len = 0;
    T->inpos = 0;
    T->lgets.len = T->tmp.len = T->pushes.len = T->pops.len = 0;
    T->tag_set = T->has_gets = T->has_out = T->procs_pending = 0;
    return 0;
  }
  int onesided = R->cur == SIMPLE_RMA_ONESIDED;
  if (P > 1) {
    exchange(s, R, T);
    /* A node that receives nothing need not wait for its packets: its
     * writes read only queues of the node, and the closing barrier keeps
     * every queue alive until the handlers have packed it. */
    if (onesided && R->any_send) {
      if ((rc = bar(s, 0)) != 0) return rc;
      if (s->thread == 0) must(s, simple__net_rma_barrier(R->net), "MPI_Barrier");
      if ((rc = bar(s, 0)) != 0) return rc;
    } else if (R->incoming) {
      if ((rc = bar(s, 0)) != 0) return rc;
    }
  }
  if (R->any_gets) {
    /* Reads: every get sees the memory as the computation left it. */
    lget_t *g = (lget_t *)T->lgets.p;
    for (size_t i = 0; i < NITEMS(T->lgets, lget_t); i++)
      memcpy(T->tmp.p + g[i].tmp, g[i].src, g[i].len);
    if (P > 1) {
      FOR_HANDLED(R, s->thread, k) {
        serve(n, R, k);
        unsigned char *rep = R->replybuf.p + R->oweoff[k];
        unsigned char *in = R->stage + (size_t)P * R->C + (size_t)k * R->C2;
        if (onesided) {
          if (R->owe[k])
            must(s,
                 simple__net_rma_put(R->net, k, rep, R->owe[k],
                                     (size_t)P * R->C + (size_t)me * R->C2),
                 "MPI_Put of get replies");
        } else {
          if (R->want[k])
            must(s, post(n, T, 0, in, R->want[k], k, TAG_REPLY, lane_of(n, me, k)),
                 "MPI_Irecv of get replies");
          if (R->owe[k])
            must(s, post(n, T, 1, rep, R->owe[k], k, TAG_REPLY, lane_of(n, me, k)),
                 "MPI_Isend of get replies");
        }
      }
    }
  }
  /* Brw: no write before every read of the node is done. The barrier
   * among nodes that completes one-sided replies involves every node as
   * soon as one node gets from another. */
  int reply_barrier = P > 1 && onesided && R->remote_gets;
  if (R->any_gets || reply_barrier) {
    if ((rc = bar(s, 0)) != 0) return rc;
  }
  if (reply_barrier) {
    if (s->thread == 0) must(s, simple__net_rma_barrier(R->net), "MPI_Barrier");
    if ((rc = bar(s, 0)) != 0) return rc;
  }
  /* Writes. */
  write_mine(s, R, T);
  if (R->any_gets) {
    lget_t *g = (lget_t *)T->lgets.p;
    for (size_t i = 0; i < NITEMS(T->lgets, lget_t); i++)
      memcpy(g[i].dst, T->tmp.p + g[i].tmp, g[i].len);
    /* Each thread lands its own remote gets' results too, after the puts
     * aimed at it: a get's result wins over a put to the same place on
     * both backends (the handler threads used to copy them out while the
     * owners applied their puts, and which landed last depended on
     * timing). Two-sided, the replies of node k are in once its handler
     * has waited for them: it says so in ready[k] (no node barrier; the
     * handler applies its own puts while the replies travel). */
    if (P > 1 && !onesided) {
      must(s, wait_reqs(T), "the reply exchange");
      int any = 0;
      FOR_HANDLED(R, s->thread, k) {
        atomic_store_explicit(&R->ready[k], R->seq, memory_order_release);
        any = 1;
      }
      if (any) FOR_HANDLED(R, s->thread, k) simple__wake_all(&R->ready[k], &R->ready_sleepers);
    }
    for (int k = 0; k < P && T->has_gets; k++) {
      size_t ng = NITEMS(T->rgets[k], rget_t);
      if (k == me || !ng) continue;
      if (!onesided) {
        unsigned v;
        while ((v = atomic_load_explicit(&R->ready[k], memory_order_acquire)) != R->seq)
          if (simple__wait_while(&R->ready[k], v, &R->ready_sleepers) != 0) return SIMPLE_ERR_FATAL;
      }
      const unsigned char *in = R->stage + (size_t)P * R->C + (size_t)k * R->C2 + T->rgoff[k];
      const rget_t *q = (const rget_t *)T->rgets[k].p;
      for (size_t i = 0; i < ng; i++) {
        memcpy(q[i].dst, in, q[i].len);
        in += PAD8(q[i].len);
      }
    }
  }
  if (R->regchange || R->tagchange || R->procchange || R->err) {
    if ((rc = bar(s, 0)) != 0) return rc;
    if (s->thread == 0) {
      if (R->err) {
        for (int u = 0; u < R->r; u++) {
          reg_t *g = (reg_t *)R->th[u].regs.p;
          for (size_t i = 0; i < NITEMS(R->th[u].regs, reg_t); i++) g[i].popping = 0;
        }
      } else {
        update_regs(s, R);
      }
    }
  }
  int err = R->err;
  if (err) snprintf(T->err, sizeof T->err, "sync: %s", R->errmsg);
  if ((rc = bar(s, 0)) != 0) return rc; /* Bend */
  /* The queues of this superstep are spent. */
  if (T->has_out)
    for (int q = 0; q < R->nprocs; q++) T->out[q].len = 0;
  if (T->has_gets)
    for (int k = 0; k < P; k++) T->rgets[k].len = 0;
  T->lgets.len = T->tmp.len = T->pushes.len = T->pops.len = 0;
  T->tag_set = T->has_gets = T->has_out = T->procs_pending = 0;
  return err;
}
