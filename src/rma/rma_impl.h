/* Internal to src/rma: the state of one-sided communication in BSP
 * supersteps (registration, put/get, sync, BSMP), shared by its files:
 * rma_state.c (the node's state, backend and processor count),
 * rma_putget.c (registration, put, get), rma_bsmp.c (BSMP) and
 * rma_sync.c (the superstep's end). See include/simple/rma.h for the semantics and costs, and
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
 *   B2   the packets cross as one exchange of the node-pair engine
 *        (src/xchg: it picks the driving threads, their order and lanes;
 *        a driver packs the packets it sends): MPI_Put + MPI_Win_flush
 *        into the destination's staging window (one-sided, then one
 *        MPI_Barrier), or MPI_Isend/MPI_Irecv (two-sided);
 *   B3   reads: every thread its own gets inside the node; the get
 *        replies cross as a second exchange, whose drivers serve the
 *        requests of the nodes they reply to (only when some thread did a
 *        get);
 *   Brw  writes: every thread applies the puts and messages aimed at
 *        itself, source by source in global rank order (so puts to one
 *        place are applied deterministically and never race), and the
 *        get results;
 *   Bend registrations and tag size change (one more barrier if any).
 */
#ifndef SIMPLE_RMA_RMA_IMPL_H
#define SIMPLE_RMA_RMA_IMPL_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/sync.h"
#include "net/net_comm.h"
#include "net/net_win.h"
#include "run/job.h"
#include "simple/rma.h"
#include "xchg/tags.h"

/* ------------------------------------------------------------------------
 * Growable byte buffers, reused from superstep to superstep. */
typedef struct {
  unsigned char *p;
  size_t len, cap;
} gbuf_t;

static inline int gb_reserve(gbuf_t *b, size_t need) {
  if (need <= b->cap) return 0;
  size_t c = b->cap ? b->cap : 256;
  while (c < need) c = c > SIZE_MAX / 2 ? need : c * 2;
  void *p = realloc(b->p, c);
  if (!p) return SIMPLE_ERR_NOMEM;
  b->p = p;
  b->cap = c;
  return 0;
}

static inline void *gb_add(gbuf_t *b, size_t n) {
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
  uint32_t t, pad;
  uint64_t slot, off;
} rget_t;

typedef struct { /* a get inside the node */
  const void *src;
  void *dst;
  size_t len, tmp;
} lget_t;

typedef struct {
  const void *addr;
  int slot, popping;
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
  simple__node_t *n; /* the node, for the exchange plans' callbacks */
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
  /* The MPI side, made by thread 0 at the first sync among several nodes
   * (every node at once) and freed at close: the layer's own communicator
   * (the count and registration exchanges, the one-sided barrier) and the
   * one-sided backend's staging window, of win_bytes, made anew larger
   * when a sync needs more (rarely: capacities round up). */
  simple__comm_t *comm;
  simple__win_t *win;
  unsigned char *win_base; /* this node's part of the window */
  size_t win_bytes;
  int err;          /* SIMPLE_ERR_ARG when collective calls disagreed */
  char errmsg[320]; /* ... and why */
  int any_gets;     /* this node reads for gets: its own, or serves others' */
  int remote_gets;  /* some node gets from another: one more round */
  int any_send, regchange, tagchange, procchange;
  int newprocs;
  unsigned seq;       /* syncs so far (thread 0 counts them in plan) */
  atomic_uint *ready; /* [P] two-sided: = seq once driver d's replies are in */
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
/* The packets and the get replies of a superstep (src/xchg/tags.h). */
enum { TAG_PKT = SIMPLE__TAG_RMA_PKT, TAG_REPLY = SIMPLE__TAG_RMA_REPLY };

/* An inbox entry: header, tag (padded), payload (padded). */
typedef struct {
  uint64_t len, taglen;
} msg_t;

/* The calling thread's node's state, made on first use (NULL: out of
 * memory). */
rma_t *simple__rma_state(simple_t *s);

/* The entry of a call: the state R and the thread's T, or an error. */
#define ENTER(s, R, T)                                  \
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB; \
  rma_t *R = simple__rma_state(s);                      \
  if (!R) return SIMPLE_ERR_NOMEM;                      \
  th_t *T = &R->th[(s)->thread];                        \
  T->err[0] = '\0'

/* ENTER for a call that a processor left out by simple_rma_set_procs may
 * not make (simple__rma_idle_call). */
#define ENTER_ACTIVE(s, R, T, call) \
  ENTER(s, R, T);                   \
  if ((s)->pid >= R->active) return simple__rma_idle_call(s, R, T, call)

/* Records the thread's error message for simple_rma_error; returns code. */
int simple__rma_fail(th_t *T, int code, const char *fmt, ...) SIMPLE_PRINTF(3, 4);
/* A processor left out by simple_rma_set_procs makes no call but sync:
 * SIMPLE_ERR_RANK (with a message naming call) for one, else 0. */
int simple__rma_idle_call(simple_t *s, const rma_t *R, th_t *T, const char *call);
/* Whether push i of thread T is popped again in the same superstep. */
int simple__rma_push_popped(const th_t *T, size_t i);

#endif
