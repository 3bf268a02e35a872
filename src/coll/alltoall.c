/* simple_alltoall and simple_alltoallv over every thread of the job: paper
 * 000's multithreaded transpose.
 *
 * Every thread publishes its buffers (and, for the v form, its four count
 * and displacement arrays, in its slot's inline data); then the node's
 * threads split the work with no further synchronization:
 *
 *   drivers   threads 0..D-1, as src/xchg splits an all-pairs exchange
 *             (simple__xchg_split: D = min(P - 1, max(1, L - 1)), L its
 *             lanes, one when threads share cores). The P - 1 steps of
 *             src/xchg's schedule (simple__xchg_step: pairwise XOR for a
 *             power-of-two P, else shifted) are dealt round-robin: driver
 *             l takes steps l+1, l+1+D, ... Both ends of a transfer handle
 *             it at the same step st, so both use lane l = (st - 1) % D,
 *             and each lane is driven by one thread per node (thread l).
 *             On one lane a node sends to each other node at most once per
 *             call and receives from each at most once, so the single tag
 *             (src/xchg/tags.h) cannot mismatch within a call; across
 *             calls MPI's non-overtaking order per (communicator, source,
 *             tag) keeps successive calls apart (the closing barrier
 *             orders the threads' posts). On a node of one thread every
 *             message has its own place in the caller's buffers, and the
 *             engine keeps the steps of small messages in flight together
 *             (xchg.h: distinct).
 *   copiers   the other threads (r - D of them; all threads when P = 1)
 *             move the node-local blocks (thread i to thread j of this
 *             node) in shared memory, straight from the sender's buffer to
 *             the receiver's, the r*r blocks split evenly among them. A
 *             node of one thread has no copier: its driver copies its own
 *             block once its first transfers are posted.
 *
 * Large blocks (regular form, 1 MiB and up: choose.c) cross nodes as
 * one message per block instead: the driver posts a receive for every
 * block (i -> u) from node `from` straight into thread u's recv, and a send
 * for every block (u -> j) to node `to` straight from thread u's send (from
 * the stage, in place), in the i-major order below on both ends, so that
 * MPI's order matches them. No pack and no unpack copy: measured on the
 * virtual cluster (2 x 2, alternating runs), 1 MiB per pair 2.71 -> 2.38 ms
 * and 4 MiB 11.8 -> 9.7 ms, equal at 256 KiB; but at 64 KiB per pair the
 * four messages took 182-184 us against 83-102 for one packed message of
 * 256 KiB (Open MPI's TCP transport moves one large message faster than
 * several eager ones), so smaller blocks are packed (choose.c gives the
 * crossover and its measurements: 1 MiB since node-pair messages go in
 * segments). The choice depends
 * only on count and type, the same on every thread of every node, so both
 * ends of a transfer agree on the messages (the v form's counts are not
 * known at both ends without trusting the caller's consistency, so it
 * always packs).
 *
 * Otherwise the message from node a to node b carries every block
 * (i -> j), i on a, j on b, in "i-major" order: all of thread i's blocks
 * for b's threads in rank order, then thread i+1's... The sender packs it
 * from its threads' send buffers into its driver's region of the node
 * room (r_a r_b memcpys), the receiver unpacks from its driver's region
 * straight into its threads' recv buffers. A node of one thread needs neither: it sends
 * from (or receives into) its own buffer when the blocks for (from) that
 * node lie contiguously there in rank order, as they always do for the
 * regular form. Zero-byte node-pair messages are not sent (both ends know
 * the size: the sender from scounts, the receiver from rcounts).
 *
 * In place (SIMPLE_IN_PLACE as send; the v form then uses rcounts/rdispls
 * for both directions, as MPI): recv holds the outgoing blocks and is
 * overwritten, so everything is staged first: every thread packs its own
 * outgoing blocks (the node-local ones too, its block to itself excepted:
 * that one is already where it belongs) into the per-destination-node
 * message areas of the room, a barrier, then drivers send from there
 * and copiers unpack the local area. All threads of the job must pass
 * SIMPLE_IN_PLACE, or none; a node whose threads disagree still completes
 * its transfers (other nodes must not hang) with undefined contents, and
 * returns SIMPLE_ERR_ARG on the threads whose choice differs from thread
 * 0's, SIMPLE_ERR_PEER on the others.
 *
 * Memory, reused from call to call: thread 0's plan in the node scratch
 * (simple__node_scratch, by call parity: it is written before the
 * publish), a table of per-node message sizes, stage offsets and driver
 * region offsets; the messages in src/xchg's room, shared with the other
 * exchanges and written only after the publish: the stage (in place: the
 * node's whole outgoing volume) or the drivers' out regions (the largest
 * message each packs), then the drivers' in regions (the largest message
 * each unpacks). Where every node-pair message is one segment (63 KiB)
 * and some driver has two steps or more, a region per peer each way
 * instead (up to WINDOW_ROOM in all), so that the engine keeps a driver's
 * steps in flight together (xchg.h: distinct): a round trip for all of
 * them rather than one per step. Thread 0 plans before the publish in the regular form;
 * in the v form the sizes depend on every thread's counts, so the counts
 * are published first and the plan in a second publish.
 *
 * Barriers: regular 2 (publish, finish), v 3 (2 on one node); in place
 * one more. The closing barrier also carries the drivers' MPI errors to
 * the whole node.
 */
#include <stdint.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/slot_views.h"
#include "net/net.h"
#include "simple/coll.h"

#define ALIGN ((size_t)SIMPLE__CACHE_LINE)

/* The v form's arrays of one thread (slot_views.h: in its slot's aux
 * words). In place, sc/sd are the thread's rcounts/rdispls. */
typedef simple__sv_varrays_t varrays_t;

typedef struct {
  simple__node_t *n;
  const simple__slot_t *slots; /* the call's arguments; NULL while thread 0 plans a regular call */
  const int *first_pid;        /* [P + 1] */
  int r, me, P, node, D;
  int v;        /* the v form */
  int in_place; /* the node stages everything (thread 0 passed SIMPLE_IN_PLACE) */
  int direct;   /* one message per block between nodes (regular form, large blocks) */
  size_t count; /* regular form: elements per block */
  size_t es;
  unsigned char *room; /* the messages (src/xchg's room) */
  const size_t *tab;   /* thread 0's table (its plan's) */
  int win;             /* the table's T_WIN: a region per peer (distinct) */
  /* The call's signature (coll.h), in the tag of every node-pair message
   * (src/xchg). */
  unsigned sig;
} a2a_t;

/* Table entries (size_t), after thread 0's plan. */
#define T_OUT(c, k)   ((size_t)(k))                      /* bytes this node sends to node k */
#define T_IN(c, k)    ((size_t)(c)->P + (size_t)(k))     /* bytes it receives from node k */
#define T_STAGE(c, k) (2 * (size_t)(c)->P + (size_t)(k)) /* in place: message to k */
#define T_DOUT(c, l)  (3 * (size_t)(c)->P + (size_t)(l)) /* driver l's out region */
#define T_DIN(c, l)   (3 * (size_t)(c)->P + (size_t)(c)->D + (size_t)(l)) /* its in region */
/* Windowed (T_WIN 1): a region for the message to and from each node k
 * instead of the drivers'. */
#define T_POUT(c, k) (3 * (size_t)(c)->P + 2 * (size_t)(c)->D + (size_t)(k))
#define T_PIN(c, k)  (4 * (size_t)(c)->P + 2 * (size_t)(c)->D + (size_t)(k))
#define T_WIN(c)     (5 * (size_t)(c)->P + 2 * (size_t)(c)->D)
#define T_ENTRIES(c) (T_WIN(c) + 1)

/* The most room the per-peer regions of a windowed exchange may take,
 * both ways together: beyond, the node's messages are large enough in
 * all that a round trip per step is a small part of their time. */
#define WINDOW_ROOM ((size_t)8 << 20)

/* ------------------------------------------------------------------------
 * The layout of thread u's buffers (u on this node, j and i global ranks). */

static const varrays_t *va(const a2a_t *c, int u) { return simple__sv_varrays(&c->slots[u]); }
static size_t sc(const a2a_t *c, int u, int j) { return c->v ? va(c, u)->sc[j] : c->count; }
static size_t sd(const a2a_t *c, int u, int j) {
  return c->v ? va(c, u)->sd[j] : (size_t)j * c->count;
}
static size_t rc(const a2a_t *c, int u, int i) { return c->v ? va(c, u)->rc[i] : c->count; }
static size_t rd(const a2a_t *c, int u, int i) {
  return c->v ? va(c, u)->rd[i] : (size_t)i * c->count;
}

static int is_in_place(const a2a_t *c, int u) { return c->slots[u].send == SIMPLE_IN_PLACE; }

/* Where thread u's outgoing blocks lie: its send buffer, or its recv in
 * place; NULL for a thread in place on a node that does not stage (a
 * refused mixed call: its blocks are not read, as others write its recv). */
static const unsigned char *src_of(const a2a_t *c, int u) {
  if (!is_in_place(c, u)) return c->slots[u].send;
  return c->in_place ? c->slots[u].recv : NULL;
}
static unsigned char *dst_of(const a2a_t *c, int u) { return c->slots[u].recv; }

/* A node of one thread sends its message to node k straight from its send
 * buffer (out 1; never in place: then everything is staged), and receives
 * node k's message straight into its recv buffer (out 0). */
static int direct(const a2a_t *c, int out, int k, size_t *base) {
  if (c->r != 1 || (out && c->in_place)) return 0;
  if (!c->v) {
    *base = (size_t)c->first_pid[k] * c->count;
    return 1;
  }
  const varrays_t *a = va(c, 0);
  size_t total;
  return simple__coll_contiguous(out ? a->sc : a->rc, out ? a->sd : a->rd, c->first_pid[k],
                                 c->first_pid[k + 1], base, &total);
}

/* ------------------------------------------------------------------------
 * Sizes, overflow-checked (src/base): 0 or SIMPLE_ERR_COUNT. */

/* Bytes thread u sends to the threads of node k. */
static int row_bytes(const a2a_t *c, int u, int k, size_t *out) {
  size_t t = 0;
  if (!c->v) {
    *out = 0;
    return simple__size_mul((size_t)(c->first_pid[k + 1] - c->first_pid[k]) * c->es, c->count, out);
  }
  for (int j = c->first_pid[k]; j < c->first_pid[k + 1]; j++)
    if (simple__size_add(&t, sc(c, u, j))) return SIMPLE_ERR_COUNT;
  return simple__size_mul(t, c->es, out);
}

/* Bytes this node sends to node k (out) and receives from it (in). */
static int node_bytes(const a2a_t *c, int k, size_t *out, size_t *in) {
  size_t o = 0, t = 0, row;
  for (int u = 0; u < c->r; u++)
    if (row_bytes(c, u, k, &row) || simple__size_add(&o, row)) return SIMPLE_ERR_COUNT;
  if (!c->v) {
    *out = *in = o; /* r_k r count es both ways */
    return 0;
  }
  for (int u = 0; u < c->r; u++)
    for (int i = c->first_pid[k]; i < c->first_pid[k + 1]; i++)
      if (simple__size_add(&t, rc(c, u, i))) return SIMPLE_ERR_COUNT;
  *out = o;
  return simple__size_mul(t, c->es, in);
}

/* Thread 0: the room's size, and the table when tab is not NULL: the
 * same computation twice (size, then contents), so that the table needs
 * no room of its own while it is computed. */
static int plan(const a2a_t *c, size_t *tab, size_t *total) {
  size_t at = 0, o, in, base, most = 0, peers = 0;
  for (int k = 0; k < c->P; k++) {
    if (node_bytes(c, k, &o, &in)) return SIMPLE_ERR_COUNT;
    if (tab) {
      tab[T_OUT(c, k)] = o;
      tab[T_IN(c, k)] = in;
      tab[T_STAGE(c, k)] = at;
    }
    if (k != c->node) {
      if (o > most) most = o;
      if (in > most) most = in;
      if (simple__size_add(&peers, c->in_place ? 0 : o) || simple__size_add(&peers, in) ||
          simple__size_add(&peers, 2 * ALIGN))
        peers = SIZE_MAX;
    }
    /* In place, the stage's area for k. */
    if (c->in_place && (simple__size_align(&o, ALIGN) || simple__size_add(&at, o)))
      return SIMPLE_ERR_COUNT;
  }
  /* Windowed: every message one segment, some driver with two steps or
   * more, and the regions within WINDOW_ROOM. */
  int win = !c->direct && c->D < c->P - 1 && most <= SIMPLE__XCHG_SEG_BYTES && peers <= WINDOW_ROOM;
  if (tab) tab[T_WIN(c)] = (size_t)win;
  for (int k = 0; k < c->P && win; k++) {
    if (k == c->node) continue;
    size_t x;
    node_bytes(c, k, &o, &in); /* checked above */
    if (tab) tab[T_POUT(c, k)] = at;
    if (!c->in_place && !direct(c, 1, k, &x) &&
        (simple__size_align(&o, ALIGN) || simple__size_add(&at, o)))
      return SIMPLE_ERR_COUNT;
    if (tab) tab[T_PIN(c, k)] = at;
    if (!direct(c, 0, k, &x) && (simple__size_align(&in, ALIGN) || simple__size_add(&at, in)))
      return SIMPLE_ERR_COUNT;
  }
  for (int l = 0; l < c->D && !win; l++) {
    size_t mo = 0, mi = 0;
    for (int st = l + 1; st < c->P; st += c->D) {
      int to, from;
      simple__xchg_step(c->n, st, &to, &from);
      if (tab) {
        o = tab[T_OUT(c, to)];
        in = tab[T_IN(c, from)];
      } else {
        size_t x;
        if (node_bytes(c, to, &o, &x) || node_bytes(c, from, &x, &in)) return SIMPLE_ERR_COUNT;
      }
      if (!c->direct && !c->in_place && !direct(c, 1, to, &base) && o > mo) mo = o;
      if (!c->direct && !direct(c, 0, from, &base) && in > mi) mi = in;
    }
    if (simple__size_align(&mo, ALIGN) || simple__size_align(&mi, ALIGN)) return SIMPLE_ERR_COUNT;
    if (tab) tab[T_DOUT(c, l)] = at;
    if (simple__size_add(&at, mo)) return SIMPLE_ERR_COUNT;
    if (tab) tab[T_DIN(c, l)] = at;
    if (simple__size_add(&at, mi)) return SIMPLE_ERR_COUNT;
  }
  *total = at;
  return 0;
}

/* Thread 0: takes the room, writes the plan (its table: T_ENTRIES
 * words); *out NULL when the call needs neither (one node, not in place;
 * or one message per block). */
static int make_plan(simple_t *s, const a2a_t *c, simple__coll_plan_t **out) {
  *out = NULL;
  /* A regular call on a node of one thread, not in place, moves every
   * message straight from send and into recv (direct()), of sizes known
   * from the layout (msg_bytes): nothing to plan, ~730 instructions a
   * call fewer (callgrind, 8-byte blocks on 2 x 1). */
  int one_thread_plain = !c->v && c->r == 1;
  if (!c->in_place && (c->D == 0 || c->direct || one_thread_plain)) return 0;
  size_t total;
  int err = plan(c, NULL, &total);
  if (!err) err = simple__coll_plan(s, total, T_ENTRIES(c), out);
  if (!err) plan(c, (*out)->tab, &total);
  return err;
}

/* After the publish that handed it out: the plan's parts. */
static void take_plan(a2a_t *c, const simple__coll_plan_t *p) {
  c->room = p->room;
  c->tab = p->tab;
  c->win = c->tab[T_WIN(c)] != 0;
}

/* ------------------------------------------------------------------------
 * Moving blocks. */

/* Packs this node's message to node k (i-major) into out. */
static void pack(const a2a_t *c, int k, unsigned char *out) {
  size_t off = 0;
  for (int u = 0; u < c->r; u++) {
    const unsigned char *src = src_of(c, u);
    for (int j = c->first_pid[k]; j < c->first_pid[k + 1]; j++) {
      size_t b = sc(c, u, j) * c->es;
      if (b && src) memcpy(out + off, src + sd(c, u, j) * c->es, b);
      off += b;
    }
  }
}

/* Unpacks node k's message into this node's recv buffers. */
static void unpack(const a2a_t *c, int k, const unsigned char *in) {
  size_t off = 0;
  for (int i = c->first_pid[k]; i < c->first_pid[k + 1]; i++)
    for (int u = 0; u < c->r; u++) {
      size_t b = rc(c, u, i) * c->es;
      if (b) memcpy(dst_of(c, u) + rd(c, u, i) * c->es, in + off, b);
      off += b;
    }
}

/* In place, before the barrier: the calling thread copies its outgoing
 * blocks into every node's message area, at its own place in it (after the
 * blocks of the node's lower threads). Its block to itself stays put. */
static void stage_own(const a2a_t *c) {
  int u = c->me, self = c->first_pid[c->node] + u, ip = is_in_place(c, u);
  const unsigned char *src = src_of(c, u);
  if (!src) return;
  for (int k = 0; k < c->P; k++) {
    size_t off = c->tab[T_STAGE(c, k)], row = 0;
    for (int w = 0; w < u; w++) {
      row_bytes(c, w, k, &row); /* checked by the plan */
      off += row;
    }
    for (int j = c->first_pid[k]; j < c->first_pid[k + 1]; j++) {
      size_t b = sc(c, u, j) * c->es;
      if (b && !(ip && j == self)) memcpy(c->room + off, src + sd(c, u, j) * c->es, b);
      off += b;
    }
  }
}

/* The node-local blocks i -> j numbered b in [lo, hi) of the node's r r:
 * in place from the staged local message, whose blocks are i-major (b =
 * i r + j); otherwise straight from i's buffer, j-major (b = j r + i), so
 * that with a copier per thread (one node) each fills its own recv and
 * leaves its lines in the cache of the thread that reads them next. 2
 * threads, 1 MiB blocks, a copy and then a read of the own recv: 191-209
 * us filled by its owner against 217-236 us by the senders (the copy
 * alone 138-141 us either way); simple-bench coll -N 1 -t 2, four
 * alternating runs: alltoall(v) of 4-32 KiB blocks 0.93-0.95 of the time,
 * 256 KiB-4 MiB 0.99-1.00. */
static void local_blocks(const a2a_t *c, int lo, int hi) {
  int r = c->r, first = c->first_pid[c->node];
  size_t off = 0;
  const unsigned char *stage = NULL;
  if (c->in_place) {
    stage = c->room + c->tab[T_STAGE(c, c->node)];
    for (int b = 0; b < lo; b++) off += sc(c, b / r, first + b % r) * c->es;
  }
  for (int b = lo; b < hi; b++) {
    int i = stage ? b / r : b % r, j = stage ? b % r : b / r;
    size_t bytes = sc(c, i, first + j) * c->es;
    if (!bytes) continue; /* an empty block's buffers may be NULL */
    unsigned char *dst = dst_of(c, j) + rd(c, j, first + i) * c->es;
    if (stage) {
      if (!(i == j && is_in_place(c, i))) memcpy(dst, stage + off, bytes);
      off += bytes;
    } else {
      const unsigned char *src = src_of(c, i);
      if (src) memcpy(dst, src + sd(c, i, first + j) * c->es, bytes);
    }
  }
}

/* Where the block thread u sends to global rank j lies: its send buffer,
 * or in place the stage (i-major: u's blocks for j's node follow those of
 * the node's lower threads). A thread in place on a node that does not
 * stage (a refused mixed call) sends from its recv: the contents are
 * undefined then, but the peer gets the message it waits for. */
static const unsigned char *block_src(const a2a_t *c, int u, int k, int j) {
  size_t b = c->count * c->es;
  if (c->in_place) {
    int rk = c->first_pid[k + 1] - c->first_pid[k];
    return c->room + c->tab[T_STAGE(c, k)] +
           ((size_t)u * (size_t)rk + (size_t)(j - c->first_pid[k])) * b;
  }
  const unsigned char *src = src_of(c, u);
  return (src ? src : dst_of(c, u)) + (size_t)j * b;
}

/* ------------------------------------------------------------------------
 * The exchange as src/xchg's engine asks for it (ctx: the a2a_t). */

/* The bytes of the message to or from node k: the plan's table entry, or
 * on a node without a plan (one_thread_plain) what the plan would have
 * written (node_bytes; no overflow: the call's total was checked). */
static size_t msg_bytes(const a2a_t *c, size_t entry, int k) {
  if (c->tab) return c->tab[entry];
  size_t out = 0, in = 0;
  node_bytes(c, k, &out, &in);
  return entry == T_OUT(c, k) ? out : in;
}
static size_t x_out_bytes(void *ctx, int k) {
  const a2a_t *c = ctx;
  return msg_bytes(c, T_OUT(c, k), k);
}
static size_t x_in_bytes(void *ctx, int k) {
  const a2a_t *c = ctx;
  return msg_bytes(c, T_IN(c, k), k);
}

/* The message to node k: the stage in place, a one-thread node's own
 * buffer when contiguous, else packed into driver d's out region. */
static const void *x_out(void *ctx, int k, int d) {
  const a2a_t *c = ctx;
  size_t base;
  if (c->in_place) return c->room + c->tab[T_STAGE(c, k)];
  if (direct(c, 1, k, &base)) return src_of(c, 0) + base * c->es;
  unsigned char *o = c->room + c->tab[c->win ? T_POUT(c, k) : T_DOUT(c, d)];
  pack(c, k, o);
  return o;
}

/* The message from node k: straight into a one-thread node's recv when
 * contiguous, else into driver d's in region, unpacked after. */
static void *x_in(void *ctx, int k, int d, int *unpack) {
  const a2a_t *c = ctx;
  size_t base;
  *unpack = !direct(c, 0, k, &base);
  return *unpack ? c->room + c->tab[c->win ? T_PIN(c, k) : T_DIN(c, d)]
                 : dst_of(c, 0) + base * c->es;
}

static void x_unpack(void *ctx, int k, const void *msg) { unpack(ctx, k, msg); }

/* Direct calls: every block of a node pair its own message, i-major on
 * both ends: block i from node k is (its (i / r)-th thread -> thread i % r),
 * block i to k is (thread i / r_k -> k's (i % r_k)-th thread). */
static int x_blocks(void *ctx, int k, int out) {
  const a2a_t *c = ctx;
  (void)out;
  return c->r * (c->first_pid[k + 1] - c->first_pid[k]);
}

static void *x_block(void *ctx, int k, int out, int i, size_t *bytes) {
  const a2a_t *c = ctx;
  size_t b = c->count * c->es;
  *bytes = b;
  if (!out) return dst_of(c, i % c->r) + (size_t)(c->first_pid[k] + i / c->r) * b;
  int rk = c->first_pid[k + 1] - c->first_pid[k];
  return (void *)block_src(c, i / rk, k, c->first_pid[k] + i % rk);
}

static void x_local(void *ctx) {
  const a2a_t *c = ctx;
  local_blocks(c, 0, c->r * c->r);
}

static a2a_t init(simple_t *s, int v, size_t count, simple_type_t type, unsigned sig) {
  simple__node_t *n = s->node;
  return (a2a_t){.n = n,
                 .first_pid = n->first_pid,
                 .r = n->threads,
                 .me = s->thread,
                 .P = n->nodes,
                 .node = n->node,
                 .D = simple__xchg_split(n, 0).drivers,
                 .v = v,
                 .count = count,
                 .es = simple_type_size(type),
                 .sig = sig};
}

/* Everything after the plan is known: the exchange itself. */
static simple__xchg_t a2a_xchg(a2a_t *c, int bad);

static int exchange(simple_t *s, a2a_t *c) {
  int r = c->r, me = c->me, rc = 0, bad = 0, mine_bad = is_in_place(c, me) != c->in_place;
  for (int u = 0; u < r; u++) bad |= is_in_place(c, u) != c->in_place;
  if (c->in_place) {
    stage_own(c);
    rc = simple__node_finish(s); /* every outgoing block staged before any recv is written */
    if (rc) return rc;
  }
  if (me < c->D) {
    simple__xchg_t x = a2a_xchg(c, 0);
    rc = simple__xchg_drive(&x, me, r == 1);
  } else {
    int copiers = r - c->D, ci = me - c->D;
    long long blocks = (long long)r * r;
    local_blocks(c, (int)(blocks * ci / copiers), (int)(blocks * (ci + 1) / copiers));
  }
  /* Another node's signature seen by a driver: SIMPLE_ERR_ARG on every
   * thread of the node. */
  rc = simple__coll_net_rc(s, rc, rc == SIMPLE_ERR_ARG);
  return rc || !bad ? rc : mine_bad ? SIMPLE_ERR_ARG : SIMPLE_ERR_PEER;
}

/* Error mode (src/xchg): the sizes of this node's messages, without the
 * table (never built then). Regular: r r_k n es both ways. v: from the
 * count arrays the node's threads published; a thread that passed none
 * counts as moving nothing (if the other nodes expected blocks from or
 * for it, the verdict cannot reach them: a documented limitation). */
static size_t bad_bytes(const a2a_t *c, int k, int out) {
  int rk = c->first_pid[k + 1] - c->first_pid[k];
  if (!c->v) return (size_t)c->r * (size_t)rk * c->count * c->es;
  size_t t = 0;
  for (int u = 0; u < c->r; u++) {
    const varrays_t *a = va(c, u);
    const size_t *cn = out ? a->sc : a->rc;
    for (int j = c->first_pid[k]; j < c->first_pid[k + 1] && cn; j++) t += cn[j];
  }
  return t * c->es;
}
static size_t x_bad_out(void *ctx, int k) { return bad_bytes(ctx, k, 1); }
static size_t x_bad_in(void *ctx, int k) { return bad_bytes(ctx, k, 0); }

/* The exchange engine's description of this alltoall: the data's
 * callbacks, or in error mode (bad) only the sizes its marks stand for. */
static simple__xchg_t a2a_xchg(a2a_t *c, int bad) {
  simple__xchg_t x = {
      .n = c->n, .tag = SIMPLE__TAG_ALLTOALL, .drivers = c->D, .ctx = c, .sig = c->sig};
  if (bad) {
    x.out_bytes = x_bad_out;
    x.in_bytes = x_bad_in;
    x.bad = 1;
  } else {
    x.out_bytes = x_out_bytes;
    x.in_bytes = x_in_bytes;
    x.out = x_out;
    x.in = x_in;
    x.unpack = x_unpack;
    x.local = x_local;
    /* Each message in memory of its own: on a node of one thread, in
     * the regular form, straight from send (or the stage, in place) and
     * into recv at its peer's place (direct()); or in the plan's region
     * for its peer (windowed). */
    x.distinct = (!c->v && c->r == 1) || c->win;
    if (c->direct) x.block = x_block;
  }
  if (c->direct) x.blocks = x_blocks;
  return x;
}

/* The verdict when this node found an error in the call (rc, returned):
 * its drivers still run their steps of the exchange, in error mode (a mark
 * where each message would go, what comes drained), so that every other
 * node, which waits on them, hears of it and returns SIMPLE_ERR_PEER. The
 * v form's drivers read the other threads' arrays: a barrier keeps those
 * threads in the call until they are done. */
static int exchange_bad(simple_t *s, a2a_t *c, int rc) {
  if (rc == SIMPLE_ERR_FATAL || c->P < 2 || (!c->v && c->count == 0) || !c->es) return rc;
  if (c->me < c->D) {
    simple__xchg_t x = a2a_xchg(c, 1);
    simple__xchg_drive(&x, c->me, 0);
  }
  int rc2 = c->v ? simple__node_finish(s) : 0;
  return rc2 ? rc2 : rc;
}

/* One node, all of a thread's blocks within its slot (p n <= SIMPLE__SV_A2A_CAP):
 * every thread copies its outgoing blocks into its slot before the publish
 * barrier and then takes its block from every slot. One barrier instead of
 * two (nobody writes into another thread's buffer), and in place needs no
 * staging: the outgoing blocks are already copied out. The decision depends
 * only on count and type, the same on every thread, so all threads take
 * the same path. The in-place choice rides in the slot's data before the
 * blocks, so that a reader touches only the lines it copies from. Cost:
 * b + 2 p n/B. */
static int alltoall_inline(simple_t *s, const void *out, void *recv, size_t count,
                           simple_type_t type, int err) {
  int r = s->node->threads, me = s->thread, in_place = out == recv, rc;
  size_t bytes = count * simple_type_size(type);
  simple__slot_t *mine = simple__node_my_slot(s);
  simple__sv_a2a_put(mine, in_place);
  if (!err && bytes) memcpy(simple__sv_a2a_blocks(mine), out, (size_t)r * bytes);
  const simple__slot_t *slots =
      simple__node_publish(s, in_place ? SIMPLE_IN_PLACE : out, recv, NULL, count, err, &rc);
  if (!slots) return rc;
  /* In place is all or nothing, as on the general path. */
  int first = simple__sv_a2a_in_place(&slots[0]);
  for (int u = 0; u < r; u++)
    if (simple__sv_a2a_in_place(&slots[u]) != first)
      return in_place != first ? SIMPLE_ERR_ARG : SIMPLE_ERR_PEER;
  for (int u = 0; u < r && bytes; u++)
    memcpy((unsigned char *)recv + (size_t)u * bytes,
           simple__sv_a2a_blocks(&slots[u]) + (size_t)me * bytes, bytes);
  return 0;
}

static int alltoall_(simple_t *s, const void *send, void *recv, size_t count, simple_type_t type) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  /* A malformed SIMPLE_COLL_ALG, the same in every process: every thread
   * refuses alike, nothing crosses. */
  if (simple__coll_choose_status()) return SIMPLE_ERR_ARG;
  simple__node_t *n = s->node;
  unsigned sig = s->sig; /* before the publish clears it */
  int in_place = send == SIMPLE_IN_PLACE;
  size_t total = 0;
  int err = simple__check_buffer(NULL, 0, type);
  if (!err) err = simple__size_mul((size_t)n->nprocs, count, &total);
  if (!err && !in_place) err = simple__check_buffer(send, total, type);
  if (!err) err = simple__check_buffer(recv, total, type);
  if (n->nodes == 1 && count <= SIMPLE__SV_A2A_CAP &&
      (size_t)n->nprocs * count * simple_type_size(type) <= SIMPLE__SV_A2A_CAP)
    return alltoall_inline(s, in_place ? recv : send, recv, count, type, err);
  a2a_t c = init(s, 0, count, type, sig);
  c.in_place = in_place;
  /* From count and type alone, as on every node (one with an error too). */
  c.direct = c.P > 1 && total <= SIZE_MAX / (c.es ? c.es : 1) &&
             simple__coll_choose(SIMPLE__COLL_ALLTOALL, c.n, count * c.es) == SIMPLE__ALG_DIRECT;
  simple__coll_plan_t *pln = NULL;
  /* Thread 0 knows the whole layout already: the count is the same
   * everywhere, and so (by contract) is the in-place choice. */
  if (!err && s->thread == 0 && count) err = make_plan(s, &c, &pln);
  int rc;
  const simple__slot_t *slots = simple__node_publish(s, send, recv, pln, count, err, &rc);
  if (!slots) return exchange_bad(s, &c, rc);
  if (count == 0) return 0; /* the same everywhere: nothing moves */
  c.slots = slots;
  c.in_place = is_in_place(&c, 0);
  if (slots[0].ptr) take_plan(&c, slots[0].ptr);
  return exchange(s, &c);
}

int simple_alltoall(simple_t *s, const void *send, void *recv, size_t count, simple_type_t type) {
  SIMPLE__COLL_CHECK(s, "alltoall", count, type, -1, -1);
  return simple__coll_verdict(s, alltoall_(s, send, recv, count, type));
}

/* One node of at most SIMPLE__SV_A2AV_THREADS threads, every thread's outgoing blocks
 * within its slot: each thread packs them before the publish barrier and
 * takes its blocks from every slot after it; nobody reads another thread's
 * buffer or arrays, so no closing barrier (one barrier instead of two;
 * three in place). Block j sits at a fixed place, a fixed offset + j * stride with
 * stride = SIMPLE__SV_A2AV_CAP / p, so that a receiver knows where its block is before
 * it has the sender's header, and fetches the header's line and the
 * block's lines at once (with offsets read from the header, the block's
 * lines came only after the header's: 64-byte blocks took 0.13 us where
 * the regular alltoall took 0.07). The header holds each block's size (16
 * bits; the last entry is SIMPLE__SV_A2AV_NONE when the thread did not pack: a block
 * larger than the stride) and the thread's in-place choice. Whether every
 * thread packed is read from the slots, the same verdict everywhere. */

/* Packs the blocks of src (NULL: a thread with an error) into the slot's
 * data when each fits its place, else marks it as not packed. */
static void pack_v(simple__slot_t *slot, const void *src, int in_place, const size_t *sc,
                   const size_t *sd, int p, simple_type_t type) {
  size_t es = simple_type_size(type), stride = SIMPLE__SV_A2AV_CAP / (size_t)p;
  uint16_t size[SIMPLE__SV_A2AV_THREADS + 1] = {0};
  int packed = src != NULL;
  for (int j = 0; j < p && packed; j++) {
    if (sc[j] > stride / es) packed = 0;
    size[j] = (uint16_t)(sc[j] * es);
  }
  size[p] = packed ? 0 : SIMPLE__SV_A2AV_NONE;
  simple__sv_a2av_put(slot, size, p, in_place);
  for (int j = 0; j < p && packed; j++)
    if (sc[j])
      memcpy(simple__sv_a2av_block(slot, j, p), (const unsigned char *)src + sd[j] * es,
             sc[j] * es);
}

/* After the publish: when every thread packed, copies this thread's block
 * from every slot (at most the bytes its rcounts expect) and returns the
 * call's code, or -1 for 0; else 0: the blocks move the general way. In
 * place is all or nothing here too (SIMPLE_ERR_ARG on the threads whose
 * choice differs from thread 0's, SIMPLE_ERR_PEER on the others). */
static int unpack_v(const simple__slot_t *slots, int me, void *recv, const size_t *rc,
                    const size_t *rd, int p, simple_type_t type) {
  size_t es = simple_type_size(type);
  for (int i = 0; i < p; i++)
    if (simple__sv_a2av_size(&slots[i], p) == SIMPLE__SV_A2AV_NONE) return 0;
  int first = simple__sv_a2av_in_place(&slots[0]), bad = 0;
  for (int i = 0; i < p; i++) {
    size_t bytes = simple__sv_a2av_size(&slots[i], me), want = rc[i] * es;
    if (bytes > want) bytes = want;
    if (bytes)
      memcpy((unsigned char *)recv + rd[i] * es, simple__sv_a2av_block(&slots[i], me, p), bytes);
    if (simple__sv_a2av_in_place(&slots[i]) != first) bad = 1;
  }
  if (bad) return simple__sv_a2av_in_place(&slots[me]) != first ? SIMPLE_ERR_ARG : SIMPLE_ERR_PEER;
  return -1;
}

static int alltoallv_(simple_t *s, const void *send, const size_t *scounts, const size_t *sdispls,
                      void *recv, const size_t *rcounts, const size_t *rdispls,
                      simple_type_t type) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  simple__node_t *n = s->node;
  unsigned sig = s->sig; /* before the publish clears it */
  int p = n->nprocs, in_place = send == SIMPLE_IN_PLACE;
  if (in_place) {
    scounts = rcounts;
    sdispls = rdispls;
  }
  size_t sext = 0, rext = 0, es = simple_type_size(type);
  int err = simple__check_buffer(NULL, 0, type);
  if (!err && (!scounts || !sdispls || !rcounts || !rdispls)) err = SIMPLE_ERR_NULL;
  if (!err && !in_place && !(err = simple__size_extent(scounts, sdispls, 0, p, &sext)) &&
      sext > SIZE_MAX / es)
    err = SIMPLE_ERR_COUNT;
  if (!err && !(err = simple__size_extent(rcounts, rdispls, 0, p, &rext)) && rext > SIZE_MAX / es)
    err = SIMPLE_ERR_COUNT;
  /* An error in the arrays themselves makes the sizes untrustworthy: the
   * node then sends no error marks (its published n says so). */
  int arrays_bad = err != 0;
  if (!err && !in_place) err = simple__check_buffer(send, sext, type);
  if (!err) err = simple__check_buffer(recv, rext, type);
  varrays_t mine = {scounts, sdispls, rcounts, rdispls};
  simple__sv_varrays_put(simple__node_my_slot(s), &mine);
  int packs = n->nodes == 1 && p <= SIMPLE__SV_A2AV_THREADS;
  if (packs)
    pack_v(simple__node_my_slot(s), err ? NULL : (in_place ? recv : send), in_place, scounts,
           sdispls, p, type);
  int rc;
  const simple__slot_t *slots =
      simple__node_publish(s, send, recv, NULL, (size_t)arrays_bad, err, &rc);
  if (!slots) {
    a2a_t c = init(s, 1, 0, type, sig);
    c.slots = simple__node_slots(s);
    for (int u = 0; u < c.r; u++)
      if (c.slots[u].n) return rc; /* sizes unknown: no marks (docs/api.md) */
    return exchange_bad(s, &c, rc);
  }
  if (packs) {
    int done = unpack_v(slots, s->thread, recv, rcounts, rdispls, p, type);
    if (done) return done < 0 ? 0 : done;
  }
  /* The node's message sizes need every thread's counts: thread 0 takes
   * the room and plans now, and hands them out with a second publish. The
   * first call's slots stay valid until everyone has passed the closing
   * barrier. */
  a2a_t c = init(s, 1, 0, type, sig);
  c.slots = slots;
  c.in_place = is_in_place(&c, 0);
  if (c.in_place || c.D > 0) { /* else one node, not in place: no plan */
    simple__coll_plan_t *pln = NULL;
    err = s->thread == 0 ? make_plan(s, &c, &pln) : 0;
    const simple__slot_t *second = simple__node_publish(s, NULL, NULL, pln, 0, err, &rc);
    if (!second) return exchange_bad(s, &c, rc);
    take_plan(&c, second[0].ptr);
  }
  return exchange(s, &c);
}

int simple_alltoallv(simple_t *s, const void *send, const size_t *scounts, const size_t *sdispls,
                     void *recv, const size_t *rcounts, const size_t *rdispls, simple_type_t type) {
  simple__coll_vargs_t va = {0, {scounts, sdispls, rcounts, rdispls}};
  SIMPLE__COLL_CHECK_V(s, "alltoallv", type, -1, &va);
  return simple__coll_verdict(s,
                              alltoallv_(s, send, scounts, sdispls, recv, rcounts, rdispls, type));
}
