/* The end of a superstep (simple_rma_sync): the plan, the packets between
 * nodes, the reads, the writes and the registrations; the steps are in
 * rma_impl.h's opening comment. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/net.h"
#include "rma/rma_impl.h"
#include "xchg/xchg.h"

/* ------------------------------------------------------------------------
 * Sync. */

/* A failure inside sync after other nodes may have moved on cannot be
 * reported without leaving them waiting: the job ends, with the reason. */
static void must(simple_t *s, int rc, const char *what) {
  if (rc) simple_abort(s, "simple_rma_sync: %s failed: %s", what, simple_strerror(rc));
}

/* The one-sided backend's staging window, at least `bytes` long on every
 * node (thread 0, every node at once, with the same bytes): made anew when
 * the one there is smaller. R->stage is this node's part of it. */
static int win_ensure(rma_t *R, size_t bytes) {
  if (!R->win || R->win_bytes < bytes) {
    simple__win_free(R->win);
    R->win = NULL;
    R->win_bytes = 0;
    void *base = NULL;
    int rc = simple__win_create_on(R->comm, bytes, &base, &R->win);
    if (rc) return rc;
    R->win_bytes = bytes;
    R->win_base = base;
  }
  R->stage = R->win_base;
  return 0;
}

/* Every thread of every node: once the node's threads are all here,
 * thread 0 waits for the other nodes in an MPI barrier (once every node's
 * puts are flushed, they are complete at their targets; the window sync
 * makes them visible here), then the node's threads wait for thread 0. */
static int node_barrier(simple_t *s, rma_t *R) {
  int rc = simple__sync_rc(s, 0);
  if (rc) return rc;
  if (s->thread == 0) {
    rc = simple__comm_barrier(R->comm);
    must(s, rc || !R->win ? rc : simple__win_sync(R->win), "MPI_Barrier");
  }
  return simple__sync_rc(s, 0);
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

/* The collective calls of a superstep (push_reg, pop_reg, set_tagsize,
 * set_procs), which every processor must make alike: what the node's
 * first thread asked for, as the nodes compare it. */
typedef struct {
  size_t npush, npop;
  uint64_t pophash; /* the popped registrations, in order */
  uint64_t tagv;    /* the new tag size + 1; 0: none asked for */
  uint64_t procv;   /* the new processor count; 0: none asked for */
} calls_t;

/* The calls of the node's ract taking part threads (a prefix: processors
 * 0..active-1 take part), compared with thread 0's; a difference sets
 * R->err. */
static calls_t node_calls(rma_t *R, int ract) {
  const th_t *T0 = &R->th[0];
  calls_t c = {NITEMS(T0->pushes, push_t), NITEMS(T0->pops, int),
               hash_ints((const int *)T0->pops.p, NITEMS(T0->pops, int)),
               T0->tag_set ? (uint64_t)T0->tag_pending + 1 : 0, (uint64_t)T0->procs_pending};
  for (int u = 1; u < ract; u++) {
    const th_t *U = &R->th[u];
    if (NITEMS(U->pushes, push_t) != c.npush)
      set_err(R,
              "push_reg: processor %d pushed %zu registration(s) in this superstep, processor %d"
              " pushed %zu",
              R->first, c.npush, R->first + u, NITEMS(U->pushes, push_t));
    else if (NITEMS(U->pops, int) != c.npop)
      set_err(R,
              "pop_reg: processor %d popped %zu registration(s) in this superstep, processor"
              " %d popped %zu",
              R->first, c.npop, R->first + u, NITEMS(U->pops, int));
    else if (c.npop && memcmp(U->pops.p, T0->pops.p, c.npop * sizeof(int)) != 0)
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
  return c;
}

/* This node's frame for each node k (F words in snd): the packet it sends
 * k (a header, every thread's puts for k's threads, its get requests),
 * the replies it wants from k, its calls (void when the node's threads
 * disagree: node_bad), and the maxima over all k that size the staging.
 * Fills R's send sizes and offsets (total: their padded sum) and wants. */
static void frames_out(rma_t *R, const simple__node_t *n, const calls_t *c, int node_bad,
                       uint64_t *snd, size_t *total) {
  int r = R->r, P = R->P, me = R->me;
  size_t maxsend = 0, maxwant = 0, want_total = 0;
  *total = 0;
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
    R->sendoff[k] = *total;
    *total += PAD8(sz);
    R->want[k] = want;
    want_total += want;
    if (sz > maxsend) maxsend = sz;
    if (want > maxwant) maxwant = want;
    uint64_t *f = snd + (size_t)k * F;
    f[F_SEND] = sz;
    f[F_WANT] = want;
    f[F_NPUSH] = node_bad ? UINT64_MAX : c->npush;
    f[F_NPOP] = node_bad ? UINT64_MAX : c->npop;
    f[F_POPHASH] = c->pophash;
    f[F_TAG] = c->tagv;
    f[F_BACKEND] = (uint64_t)R->backend;
    f[F_PROCS] = c->procv;
    f[F_IDLE] = (uint64_t)R->idle;
  }
  for (int k = 0; k < P; k++) {
    snd[(size_t)k * F + F_GETS] = want_total > 0;
    snd[(size_t)k * F + F_MAXSEND] = maxsend;
    snd[(size_t)k * F + F_MAXWANT] = maxwant;
  }
}

/* Every node's frame for this node (rcv): the packets coming and the
 * replies owed (R's sizes and offsets; *owe their sum), the job's maxima
 * (*needC, *needC2: every node sees them all, so the staging is sized
 * alike everywhere), and the verdict on the calls: nodes that take part
 * must agree; an idle node adopts the calls of the first that takes part
 * (in *c), since it must never apply a change they refuse. A difference
 * sets R->err; a node on another backend makes this sync two-sided
 * everywhere. */
static void frames_in(rma_t *R, const uint64_t *rcv, calls_t *c, int node_bad, size_t *needC,
                      size_t *needC2, size_t *owe) {
  int P = R->P, me = R->me, followed = 0;
  *owe = 0;
  for (int j = 0; j < P; j++) {
    /* This node's own frame (j == me) sends and wants nothing. */
    const uint64_t *f = rcv + (size_t)j * F;
    R->insz[j] = f[F_SEND];
    if (f[F_SEND]) R->incoming = 1;
    R->owe[j] = f[F_WANT];
    R->oweoff[j] = *owe;
    *owe += f[F_WANT];
    if (f[F_MAXSEND] > *needC) *needC = f[F_MAXSEND];
    if (f[F_MAXWANT] > *needC2) *needC2 = f[F_MAXWANT];
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
        *c = (calls_t){(size_t)f[F_NPUSH], (size_t)f[F_NPOP], f[F_POPHASH], f[F_TAG], f[F_PROCS]};
      } else if (f[F_NPUSH] != c->npush || f[F_NPOP] != c->npop || f[F_POPHASH] != c->pophash ||
                 f[F_TAG] != c->tagv || f[F_PROCS] != c->procv) {
        set_err(R,
                "push_reg/pop_reg/set_tagsize/set_procs: the nodes taking part disagree"
                " (node %d and another)",
                j);
      }
    } else if (f[F_PROCS] != c->procv) {
      set_err(R, "set_procs: nodes %d and %d ask for different processor counts (%llu, %llu)", j,
              me, (unsigned long long)f[F_PROCS], (unsigned long long)c->procv);
    } else if (f[F_NPUSH] == UINT64_MAX || f[F_NPOP] == UINT64_MAX) {
      if (!node_bad)
        set_err(R, "push_reg/pop_reg/set_tagsize: the processors of node %d disagree", j);
    } else if (f[F_NPUSH] != c->npush || f[F_NPOP] != c->npop || f[F_POPHASH] != c->pophash) {
      set_err(R,
              "push_reg/pop_reg: node %d pushed %llu and popped %llu registration(s) per"
              " processor in this superstep, node %d pushed %zu and popped %zu (or popped"
              " others)",
              j, (unsigned long long)f[F_NPUSH], (unsigned long long)f[F_NPOP], me, c->npush,
              c->npop);
    } else if (f[F_TAG] != c->tagv) {
      set_err(R, "set_tagsize: nodes %d and %d disagree on the tag size", j, me);
    }
  }
}

/* The buffers of the exchange among nodes: the staging (P regions of C
 * for packets and of C2 for replies, in the window where the sync is
 * one-sided), the packets sent (total) and the replies owed (owe). */
static void grow_buffers(simple_t *s, rma_t *R, size_t needC, size_t needC2, size_t total,
                         size_t owe) {
  int P = R->P;
  size_t C = round_cap(needC, R->C), C2 = round_cap(needC2, R->C2);
  if (C > SIZE_MAX / 2 / (size_t)P || C2 > SIZE_MAX / 2 / (size_t)P)
    simple_abort(s, "simple_rma_sync: staging of %zu + %zu bytes per node pair overflows", C, C2);
  R->C = C;
  R->C2 = C2;
  size_t stage = (size_t)P * (C + C2);
  if (R->cur == SIMPLE_RMA_ONESIDED) {
    must(s, win_ensure(R, stage), "creating the staging window");
  } else {
    must(s, gb_reserve(&R->stage_local, stage ? stage : 64), "allocating the staging buffer");
    R->stage = R->stage_local.p;
  }
  must(s, gb_reserve(&R->sendbuf, total ? total : 64), "allocating the send buffer");
  must(s, gb_reserve(&R->replybuf, owe ? owe : 64), "allocating the reply buffer");
}

/* The new registrations: every processor's (address, size) for each of
 * the npush pushes, this node's from its threads (the ract taking part;
 * (NULL, 0) stands for the others), the other nodes' by an allgather. */
static void new_registrations(simple_t *s, rma_t *R, int ract, size_t npush) {
  simple__node_t *n = s->node;
  int r = R->r, P = R->P, me = R->me;
  size_t each = npush * sizeof(push_t); /* one processor's */
  must(s, gb_reserve(&R->newregs, (size_t)R->nprocs * each), "allocating the registration table");
  unsigned char *mine = R->newregs.p + (size_t)R->first * each;
  for (int u = 0; u < ract; u++) memcpy(mine + (size_t)u * each, R->th[u].pushes.p, each);
  memset(mine + (size_t)ract * each, 0, (size_t)(r - ract) * each);
  if (P == 1) return;
  /* The counts, the displacements, then a copy of this node's block: MPI
   * forbids the send block inside the receive buffer. */
  size_t *counts = malloc(sizeof(size_t) * 2 * (size_t)P + (size_t)r * each);
  if (!counts) must(s, SIMPLE_ERR_NOMEM, "the registration exchange");
  size_t *displs = counts + P, at = 0;
  for (int k = 0; k < P; k++) {
    counts[k] = (size_t)RK(n, k) * each;
    displs[k] = at;
    at += counts[k];
  }
  memcpy(displs + P, mine, counts[me]);
  must(s, simple__comm_allgatherv(R->comm, displs + P, counts, displs, R->newregs.p),
       "the registration exchange (MPI_Allgatherv)");
  free(counts);
}

/* Thread 0, between B1 and B2: checks the collective calls, sizes the
 * packets, exchanges counts (one MPI_Alltoall of F words per node pair),
 * and gathers new registrations. */
static void plan(simple_t *s, rma_t *R, int node_gets, int node_out) {
  simple__node_t *n = s->node;
  int P = R->P;
  R->err = R->remote_gets = R->any_send = R->incoming = 0;
  R->errmsg[0] = '\0';
  R->any_gets = node_gets;
  R->cur = R->backend;
  R->seq++;
  /* The threads of this node that take part: a prefix, since processors
   * 0..active-1 do. The others called nothing but sync. */
  int ract = R->active - R->first;
  if (ract > R->r) ract = R->r;
  if (ract < 0) ract = 0;
  R->idle = ract == 0;
  calls_t c = node_calls(R, ract);
  int node_bad = R->err != 0;

  if (P > 1) {
    if (!R->comm) must(s, simple__comm_dup(n, &R->comm), "opening the MPI side");
    uint64_t *snd = R->a2a, *rcv = R->a2a + (size_t)P * F;
    size_t total, owe;
    frames_out(R, n, &c, node_bad, snd, &total);
    must(s, simple__comm_alltoall_u64(R->comm, snd, rcv, F), "the count exchange (MPI_Alltoall)");
    size_t needC = snd[F_MAXSEND], needC2 = snd[F_MAXWANT];
    frames_in(R, rcv, &c, node_bad, &needC, &needC2, &owe);
    /* Every node saw every node's maxima: the same capacities everywhere,
     * and the same verdict on whether any packet moves at all. */
    R->any_send = needC > 0;
    if (owe) R->any_gets = 1;
    grow_buffers(s, R, needC, needC2, total, owe);
  }

  R->regchange = !R->err && (c.npush || c.npop);
  R->tagchange = !R->err && c.tagv;
  R->procchange = !R->err && c.procv;
  R->newprocs = (int)c.procv;
  R->newtag = c.tagv ? (size_t)(c.tagv - 1) : 0;
  R->npush = R->err ? 0 : c.npush;
  R->quiet = !node_out && !R->any_gets && !R->any_send && !R->regchange && !R->tagchange &&
             !R->procchange && !R->err;
  if (R->npush) new_registrations(s, R, ract, R->npush);
}

/* The exchanges of a sync, as plans for the exchange engine (src/xchg),
 * which decides the drivers (one per lane: nobody has node-local work to
 * overlap), the order and the lanes: the packets (tag PKT; the driver that
 * sends node k's packet packs it), then the get replies (tag REPLY; the
 * driver that sends node k's replies serves the requests in k's packet).
 * Sizes are the plan's, the same at both ends from the count exchange. No
 * error marks: the count exchange has already given every node every
 * node's verdict (R->err) before any packet moves, and a sync with an
 * error still moves its packets; an MPI failure ends the job (must). */
static size_t pkt_out_bytes(void *R, int k) { return ((rma_t *)R)->sendsz[k]; }
static size_t pkt_in_bytes(void *R, int k) { return ((rma_t *)R)->insz[k]; }
static size_t rep_out_bytes(void *R, int k) { return ((rma_t *)R)->owe[k]; }
static size_t rep_in_bytes(void *R, int k) { return ((rma_t *)R)->want[k]; }

/* Packs the packet for node k at its place in the send buffer: header
 * (number of get requests, then the byte size of each section, source
 * thread u major, destination thread t minor), the sections, the get
 * requests. */
static const void *pkt_out(void *ctx, int k, int d) {
  rma_t *R = ctx;
  int r = R->r, rk = RK(R->n, k);
  unsigned char *p = R->sendbuf.p + R->sendoff[k], *q = p + 8 * (1 + (size_t)r * (size_t)rk);
  uint64_t *h = (uint64_t *)p;
  size_t nreq = 0;
  (void)d;
  for (int u = 0; u < r; u++)
    for (int t = 0; t < rk; t++) {
      const gbuf_t *b = &R->th[u].out[FP(R->n, k) + t];
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
  return p;
}

/* Serves the get requests in the packet from node j into its replies. */
static const void *rep_out(void *ctx, int j, int d) {
  rma_t *R = ctx;
  unsigned char *replies = R->replybuf.p + R->oweoff[j], *rep = replies;
  (void)d;
  if (!R->insz[j]) return replies;
  const unsigned char *p = R->stage + (size_t)j * R->C;
  const uint64_t *h = (const uint64_t *)p;
  size_t nsec = (size_t)RK(R->n, j) * (size_t)R->r, at = 8 * (1 + nsec);
  for (size_t x = 0; x < nsec; x++) at += h[1 + x];
  for (uint64_t i = 0; i < h[0]; i++) {
    getreq_t q;
    memcpy(&q, p + at + i * sizeof q, sizeof q);
    const unsigned char *a =
        (const unsigned char *)R->addr[q.slot * (size_t)R->nprocs + (size_t)R->first + q.t];
    memcpy(rep, a + q.off, q.len);
    rep += PAD8(q.len);
  }
  return replies;
}

static void *pkt_in(void *ctx, int k, int d, int *unpack) {
  rma_t *R = ctx;
  (void)d;
  *unpack = 0;
  return R->stage + (size_t)k * R->C;
}
static void *rep_in(void *ctx, int k, int d, int *unpack) {
  rma_t *R = ctx;
  (void)d;
  *unpack = 0;
  return R->stage + (size_t)R->P * R->C + (size_t)k * R->C2;
}

static simple__xchg_t plan_of(rma_t *R, int replies) {
  simple__xchg_t x = {.n = R->n,
                      .tag = replies ? TAG_REPLY : TAG_PKT,
                      .drivers = simple__xchg_drivers(R->n),
                      .chunks = 1,
                      .ctx = R,
                      .out_bytes = replies ? rep_out_bytes : pkt_out_bytes,
                      .in_bytes = replies ? rep_in_bytes : pkt_in_bytes,
                      .out = replies ? rep_out : pkt_out,
                      .in = replies ? rep_in : pkt_in};
  return x;
}

/* This thread's share of exchange x, if it drives. One-sided: its puts at
 * byte disp of the peers' staging windows, complete at this end on return
 * (the put path of the engine: the staging window is this layer's, and the
 * target learns of completion from the MPI_Barrier after, not from a
 * receive). Two-sided: every receive posted, then every send (packing as
 * it goes), the requests left in T->reqs for wait_reqs. */
static void move(simple_t *s, rma_t *R, th_t *T, const simple__xchg_t *x, size_t disp,
                 const char *what) {
  int d = s->thread;
  if (d >= x->drivers) return;
  if (R->cur == SIMPLE_RMA_ONESIDED) {
    must(s, simple__xchg_put(x, d, R->win, disp), what);
    return;
  }
  size_t at = NITEMS(T->reqs, simple__net_req_t);
  size_t room =
      at + (size_t)simple__xchg_post_count(x, d, 0) + (size_t)simple__xchg_post_count(x, d, 1);
  must(s, gb_reserve(&T->reqs, room * sizeof(simple__net_req_t)), what);
  simple__net_req_t *q = (simple__net_req_t *)T->reqs.p;
  int nreq = (int)at, rc = simple__xchg_post(x, d, 0, q, &nreq);
  if (!rc) rc = simple__xchg_post(x, d, 1, q, &nreq);
  T->reqs.len = (size_t)nreq * sizeof *q;
  must(s, rc, what);
}

static int wait_reqs(th_t *T) {
  int rc =
      simple__net_waitall((simple__net_req_t *)T->reqs.p, (int)NITEMS(T->reqs, simple__net_req_t));
  T->reqs.len = 0;
  return rc;
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
      size_t body = PAD8(h.taglen) + PAD8(h.len), at = T->inbox.len;
      msg_t *m = gb_add(&T->inbox, sizeof(msg_t) + body);
      size_t *ix = gb_add(&T->inidx, sizeof *ix);
      if (!m || !ix) simple_abort(NULL, "simple_rma_sync: out of memory delivering a message");
      *m = (msg_t){.len = h.len, .taglen = h.taglen};
      memcpy(m + 1, p, body);
      *ix = at;
      p += body;
    }
  }
}

/* Applies everything aimed at the calling thread, in global rank order of
 * the sources. */
static void write_mine(simple_t *s, rma_t *R, th_t *T) {
  simple__node_t *n = s->node;
  int me = R->me, t = s->thread, r = R->r;
  T->inbox.len = T->inidx.len = T->inpos = 0;
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

/* Applies the registration changes of this sync, or, when the sync
 * failed, undoes the pops it asked for (thread 0, all others waiting in a
 * barrier). */
static void update_regs(simple_t *s, rma_t *R) {
  int r = R->r, np = R->nprocs;
  if (R->err) {
    for (int u = 0; u < r; u++) {
      reg_t *g = (reg_t *)R->th[u].regs.p;
      for (size_t i = 0; i < NITEMS(R->th[u].regs, reg_t); i++) g[i].popping = 0;
    }
    return;
  }
  if (R->tagchange) R->tagsize = R->newtag;
  /* Processors that come back know none of the registrations made while
   * they sat out: every registration ends (every slot freed, every
   * thread's list emptied below), and this superstep's pushes with them. */
  int end_all = R->procchange && R->newprocs > R->active;
  if (R->procchange) R->active = R->newprocs;
  /* A node none of whose threads takes part keeps no registrations (nobody
   * may name its processors): they are dropped when it takes part again. */
  if (!end_all && (R->idle || !R->regchange)) return;
  if (end_all) memset(R->used, 0, (size_t)R->cap);
  const th_t *T0 = &R->th[0];
  const int *pops = (const int *)T0->pops.p;
  size_t npop = end_all ? 0 : NITEMS(T0->pops, int);
  /* Pops of live registrations free their slots; pops of this superstep's
   * pushes (negative) cancel those pushes below. */
  for (size_t i = 0; i < npop; i++)
    if (pops[i] >= 0) R->used[pops[i]] = 0;
  /* Every thread keeps the registrations whose slots live on. */
  for (int u = 0; u < r; u++) {
    th_t *U = &R->th[u];
    reg_t *g = (reg_t *)U->regs.p;
    size_t m = 0, ng = NITEMS(U->regs, reg_t);
    for (size_t i = 0; i < ng; i++)
      if (R->used[g[i].slot]) g[m++] = g[i];
    U->regs.len = m * sizeof(reg_t);
    U->hit_slot = -1;
  }
  if (end_all) return;
  const push_t *all = (const push_t *)R->newregs.p;
  for (size_t i = 0; i < R->npush; i++) {
    if (simple__rma_push_popped(T0, i)) continue;
    int slot = 0;
    while (slot < R->cap && R->used[slot]) slot++;
    if (slot == R->cap) {
      /* Running out of memory here ends the job: the old blocks need no
       * keeping. */
      int cap = R->cap * 2;
      R->addr = realloc(R->addr, sizeof *R->addr * (size_t)cap * (size_t)np);
      R->size = realloc(R->size, sizeof *R->size * (size_t)cap * (size_t)np);
      R->used = realloc(R->used, (size_t)cap);
      if (!R->addr || !R->size || !R->used)
        simple_abort(s, "simple_rma_sync: out of memory for registrations");
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

/* The calling thread's queues of the superstep are spent. */
static void spend(rma_t *R, th_t *T) {
  if (T->has_out)
    for (int q = 0; q < R->nprocs; q++) T->out[q].len = 0;
  if (T->has_gets)
    for (int k = 0; k < R->P; k++) T->rgets[k].len = 0;
  T->lgets.len = T->tmp.len = T->pushes.len = T->pops.len = 0;
  T->tag_set = T->has_gets = T->has_out = T->procs_pending = 0;
}

/* The packets among nodes: they land at region me (of C bytes) of the
 * destination's staging. A node that receives nothing need not wait for
 * its packets: its writes read only queues of the node, and the closing
 * barrier keeps every queue alive until the drivers have packed it. */
static int packets(simple_t *s, rma_t *R, th_t *T, const simple__xchg_t *pkts, int onesided) {
  move(s, R, T, pkts, (size_t)R->me * R->C, "the packet exchange");
  if (!onesided) must(s, wait_reqs(T), "the packet exchange");
  if (onesided && R->any_send) return node_barrier(s, R);
  return R->incoming ? simple__sync_rc(s, 0) : 0;
}

/* The calling thread lands its own remote gets' results, after the puts
 * aimed at it: a get's result wins over a put to the same place on both
 * backends (the driving threads used to copy them out while the owners
 * applied their puts, and which landed last depended on timing).
 * Two-sided, the replies of node k are in once the driver that receives
 * them (simple__xchg_post_driver) has waited for its requests: it says so
 * in ready[d] (no node barrier; the driver applies its own puts while the
 * replies travel). */
static int land_gets(simple_t *s, rma_t *R, th_t *T, const simple__xchg_t *reps, int onesided) {
  int P = R->P;
  if (P > 1 && !onesided) {
    must(s, wait_reqs(T), "the reply exchange");
    if (s->thread < reps->drivers) {
      atomic_store_explicit(&R->ready[s->thread], R->seq, memory_order_release);
      simple__wake_all(&R->ready[s->thread], &R->ready_sleepers);
    }
  }
  for (int k = 0; k < P && T->has_gets; k++) {
    size_t ng = NITEMS(T->rgets[k], rget_t);
    if (k == R->me || !ng) continue;
    if (!onesided) {
      atomic_uint *ready = &R->ready[simple__xchg_post_driver(reps, k, 0, 0)];
      unsigned v;
      while ((v = atomic_load_explicit(ready, memory_order_acquire)) != R->seq)
        if (simple__wait_while(ready, v, &R->ready_sleepers) != 0) return SIMPLE_ERR_FATAL;
    }
    const unsigned char *in = R->stage + (size_t)P * R->C + (size_t)k * R->C2 + T->rgoff[k];
    const rget_t *q = (const rget_t *)T->rgets[k].p;
    for (size_t i = 0; i < ng; i++) {
      memcpy(q[i].dst, in, q[i].len);
      in += PAD8(q[i].len);
    }
  }
  return 0;
}

int simple_rma_sync(simple_t *s) {
  ENTER(s, R, T);
  simple__node_t *n = s->node;
  int me = R->me, P = R->P, rc;
  /* B1: every thread's superstep is over. */
  unsigned f = simple__barrier_wait(&n->barrier, (T->has_gets ? 1u : 0u) | (T->has_out ? 2u : 0u));
  if (f & SIMPLE__BARRIER_FATAL) return SIMPLE_ERR_FATAL;
  if (s->thread == 0) plan(s, R, (int)(f & 1u), (int)(f & 2u));
  if ((rc = simple__sync_rc(s, 0)) != 0) return rc; /* B2 */
  if (R->quiet) {
    /* An empty superstep: B2 was the barrier. Nobody reads another
     * thread's queues, which are empty, so a thread may start its next
     * superstep while others are still here. Only last superstep's
     * messages go. */
    T->inbox.len = T->inidx.len = T->inpos = 0;
    spend(R, T);
    return 0;
  }
  int onesided = R->cur == SIMPLE_RMA_ONESIDED;
  simple__xchg_t pkts = plan_of(R, 0), reps = plan_of(R, 1);
  if (P > 1 && (rc = packets(s, R, T, &pkts, onesided)) != 0) return rc;
  const lget_t *lg = (const lget_t *)T->lgets.p; /* its gets inside the node */
  if (R->any_gets) {
    /* Reads: every get sees the memory as the computation left it. */
    for (size_t i = 0; i < NITEMS(T->lgets, lget_t); i++)
      memcpy(T->tmp.p + lg[i].tmp, lg[i].src, lg[i].len);
    /* Replies land after the P packet regions, at region me (of C2). Each
     * driver serves the requests of the nodes it sends replies to. */
    if (P > 1) move(s, R, T, &reps, (size_t)P * R->C + (size_t)me * R->C2, "the reply exchange");
  }
  /* Brw: no write before every read of the node is done. The barrier
   * among nodes that completes one-sided replies involves every node as
   * soon as one node gets from another. */
  int reply_barrier = P > 1 && onesided && R->remote_gets;
  if (reply_barrier && (rc = node_barrier(s, R)) != 0) return rc;
  if (!reply_barrier && R->any_gets && (rc = simple__sync_rc(s, 0)) != 0) return rc;
  /* Writes. */
  write_mine(s, R, T);
  if (R->any_gets) {
    for (size_t i = 0; i < NITEMS(T->lgets, lget_t); i++)
      memcpy(lg[i].dst, T->tmp.p + lg[i].tmp, lg[i].len);
    if ((rc = land_gets(s, R, T, &reps, onesided)) != 0) return rc;
  }
  if (R->regchange || R->tagchange || R->procchange || R->err) {
    if ((rc = simple__sync_rc(s, 0)) != 0) return rc;
    if (s->thread == 0) update_regs(s, R);
  }
  int err = R->err;
  if (err) snprintf(T->err, sizeof T->err, "sync: %s", R->errmsg);
  if ((rc = simple__sync_rc(s, 0)) != 0) return rc; /* Bend */
  spend(R, T);
  return err;
}
