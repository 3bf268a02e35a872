/* The exchange engine's windowed steps (simple__xchg_drive with distinct:
 * each peer's messages in memory of their own, so that a driver keeps
 * several steps in flight), under every job layout and on 34 nodes of one
 * thread, where a driver's 33 steps overrun the window of 32 in flight.
 * Node a sends node k a message of a size that depends on (a, k): empty
 * for some pairs, up to 12 KB for most, 70001 bytes (above a segment: the
 * window drains and the step goes alone, in segments between hosts) for
 * others; received straight into place for even k, through a region of
 * k's own and the unpack callback for odd k. Every received byte is
 * compared with the closed form and the job counts the pairs that arrived
 * (every ordered pair of distinct nodes exactly once). Then the verdicts:
 * node 0 in error mode (sending marks, draining what it is sent) while
 * the others keep their windows, every driver returning SIMPLE_ERR_PEER;
 * node 0 with another signature, every driver returning SIMPLE_ERR_ARG;
 * and after both, a good exchange again, checked byte by byte: what the
 * failed ones sent was all taken, nothing of theirs is matched by later
 * receives. Links the static library: the engine is internal. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "xchg/xchg.h"

#define LARGE 70001

static size_t msg_bytes(int a, int k) {
  if ((a + k) % 4 == 3) return LARGE;
  return (size_t)((a * 7 + k * 3) % 5) * 3001;
}
static unsigned char byte_of(int a, int k, size_t i, int salt) {
  return (unsigned char)(a * 31 + k * 17 + (int)i + salt * 101);
}

typedef struct {
  simple__node_t *n;
  int salt;
  unsigned char **out, **in, **region; /* per peer */
} ctx_t;

static size_t c_out_bytes(void *ctx, int k) {
  ctx_t *c = ctx;
  return msg_bytes(c->n->node, k);
}
static size_t c_in_bytes(void *ctx, int k) {
  ctx_t *c = ctx;
  return msg_bytes(k, c->n->node);
}
static const void *c_out(void *ctx, int k, int d) {
  ctx_t *c = ctx;
  (void)d;
  for (size_t i = 0; i < msg_bytes(c->n->node, k); i++)
    c->out[k][i] = byte_of(c->n->node, k, i, c->salt);
  return c->out[k];
}
static void *c_in(void *ctx, int k, int d, int *unpack) {
  ctx_t *c = ctx;
  (void)d;
  *unpack = k % 2;
  return *unpack ? c->region[k] : c->in[k];
}
static void c_unpack(void *ctx, int k, const void *msg) {
  ctx_t *c = ctx;
  memcpy(c->in[k], msg, msg_bytes(k, c->n->node));
}

/* Every byte from every other node (thread 0), then the count of the
 * pairs (every thread). */
static void check_all(simple_t *s, ctx_t *c) {
  int a = c->n->node, P = c->n->nodes;
  long long got = 0, total = 0;
  for (int k = 0; k < P && simple_thread(s) == 0; k++) {
    if (k == a) continue;
    size_t b = msg_bytes(k, a), i = 0;
    while (i < b && c->in[k][i] == byte_of(k, a, i, c->salt)) i++;
    CHECK_EQ(i, b);
    got++;
  }
  CHECK_OK(simple_allreduce(s, &got, &total, 1, SIMPLE_INT64, SIMPLE_SUM));
  CHECK_EQ(total, (long long)P * (P - 1));
}

/* What driver d of this node returns when node 0 fails (code; bad: in
 * error mode, which fails every driver of its own node): the code where
 * one of d's steps receives a message (not empty: an empty one is not
 * sent) from node 0, or on node 0 from another node; 0 elsewhere. */
static int verdict_of(simple__node_t *n, int d, int drivers, int code, int bad) {
  if (n->node == 0 && bad) return code;
  for (int st = d + 1; st < n->nodes; st += drivers) {
    int to, from;
    simple__xchg_step(n, st, &to, &from);
    if ((from == 0 || n->node == 0) && msg_bytes(from, n->node)) return code;
  }
  return 0;
}

static int drive(ctx_t *c, int d, int bad, unsigned sig, int drivers) {
  simple__xchg_t x = {.n = c->n,
                      .tag = SIMPLE__TAG_ALLTOALL,
                      .drivers = drivers,
                      .ctx = c,
                      .out_bytes = c_out_bytes,
                      .in_bytes = c_in_bytes,
                      .bad = bad,
                      .sig = sig};
  if (!bad) {
    x.out = c_out;
    x.in = c_in;
    x.unpack = c_unpack;
    x.distinct = 1;
  }
  return simple__xchg_drive(&x, d, 0);
}

static void body(simple_t *s, void *arg) {
  (void)arg;
  simple__node_t *n = s->node;
  int P = n->nodes, me = simple_thread(s);
  simple__xchg_split_t sp = simple__xchg_split(n, 0);
  /* One node's data, shared by its drivers (each fills and reads only its
   * own steps' peers). */
  static ctx_t c;
  if (me == 0) {
    c = (ctx_t){.n = n};
    CHECK((c.out = calloc((size_t)P, sizeof *c.out)) && (c.in = calloc((size_t)P, sizeof *c.in)) &&
          (c.region = calloc((size_t)P, sizeof *c.region)));
    for (int k = 0; k < P; k++)
      CHECK((c.out[k] = malloc(LARGE)) && (c.in[k] = malloc(LARGE)) &&
            (c.region[k] = malloc(LARGE)));
  }
  CHECK_OK(simple_barrier(s));
  int drives = me < sp.drivers, base = 7;

  for (int round = 0; round < 2; round++) {
    if (me == 0) {
      c.salt = round;
      for (int k = 0; k < P; k++) memset(c.in[k], 0, LARGE);
    }
    CHECK_OK(simple_barrier(s));
    if (drives) CHECK_OK(drive(&c, me, 0, (unsigned)base, sp.drivers));
    CHECK_OK(simple_barrier(s));
    check_all(s, &c);
    CHECK_OK(simple_barrier(s));
  }
  if (P > 1) {
    /* Node 0 in error mode: marks where its messages would go. */
    if (drives)
      CHECK_RC(drive(&c, me, n->node == 0, (unsigned)base, sp.drivers),
               verdict_of(n, me, sp.drivers, SIMPLE_ERR_PEER, 1));
    CHECK_OK(simple_barrier(s));
    /* Node 0 with another signature: every node sees a message of
     * another call. */
    if (drives)
      CHECK_RC(drive(&c, me, 0, (unsigned)base + (n->node == 0), sp.drivers),
               verdict_of(n, me, sp.drivers, SIMPLE_ERR_ARG, 0));
    CHECK_OK(simple_barrier(s));
  }
  /* Still in step. */
  if (me == 0) {
    c.salt = 5;
    for (int k = 0; k < P; k++) memset(c.in[k], 0, LARGE);
  }
  CHECK_OK(simple_barrier(s));
  if (drives) CHECK_OK(drive(&c, me, 0, (unsigned)base, sp.drivers));
  CHECK_OK(simple_barrier(s));
  check_all(s, &c);
  if (me == 0) {
    for (int k = 0; k < P; k++) {
      free(c.out[k]);
      free(c.in[k]);
      free(c.region[k]);
    }
    free(c.out);
    free(c.in);
    free(c.region);
  }
  CHECK_OK(simple_barrier(s));
}

TEST_MAIN(body)
