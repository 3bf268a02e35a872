/* The exchange engine of src/xchg driven directly, under every job layout:
 * node a sends node k a message of a size that depends on (a, k), zero
 * for some pairs (empty pairs travel as nothing), with bytes that name
 * (a, k, offset); received straight into place for even k and through the
 * driver's room and the unpack callback for odd k; then again as one
 * message per block, a pair having 0, 1 or 2 blocks. Every received byte
 * is compared with the closed form, and the job counts the pairs that
 * arrived (every ordered pair of distinct nodes exactly once). Drivers are
 * those src/xchg splits (shared cores included); the other threads only
 * take part in the counting. Then the same messages posted
 * (simple__xchg_post, two-sided) and put into a window (simple__xchg_put,
 * one-sided), cut in two chunks each, by one driver per lane
 * (simple__xchg_drivers): every byte checked again, and the drivers the
 * engine's callbacks saw compared with simple__xchg_post_driver. Last,
 * posted messages of up to 200 KB, cut into segments: every byte checked,
 * and the requests against simple__xchg_post_count and its bound. Links
 * the static library: the engine is internal. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "xchg/xchg.h"

#define MAXP  8
#define ROOM  2048 /* bytes of a message at most */
#define BLOCK 64

typedef struct {
  simple_t *s;
  simple__node_t *n;
  unsigned char out[MAXP][ROOM], in[MAXP][ROOM], room[ROOM];
  int arrived;
} ctx_t;

static size_t msg_bytes(int a, int k) { return (size_t)((a * 7 + k * 3) % 5) * 300; }
static unsigned char byte_of(int a, int k, size_t i) {
  return (unsigned char)(a * 31 + k * 17 + (int)i);
}
static int nblocks(int a, int k) { return (a + 2 * k) % 3; }

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
  for (size_t i = 0; i < msg_bytes(c->n->node, k); i++) c->out[k][i] = byte_of(c->n->node, k, i);
  return c->out[k];
}
static void check_msg(ctx_t *c, int k, const unsigned char *m) {
  simple_t *s = c->s;
  for (size_t i = 0; i < msg_bytes(k, c->n->node); i++) CHECK_EQ(m[i], byte_of(k, c->n->node, i));
  c->arrived++;
}
static void *c_in(void *ctx, int k, int d, int *unpack) {
  ctx_t *c = ctx;
  (void)d;
  *unpack = k % 2;
  return *unpack ? c->room : c->in[k];
}
static void c_unpack(void *ctx, int k, const void *msg) { check_msg(ctx, k, msg); }

static int c_blocks(void *ctx, int k, int out) {
  ctx_t *c = ctx;
  return out ? nblocks(c->n->node, k) : nblocks(k, c->n->node);
}
static void *c_block(void *ctx, int k, int out, int i, size_t *bytes) {
  ctx_t *c = ctx;
  *bytes = BLOCK * (size_t)(i + 1);
  if (!out) return c->in[k] + (size_t)i * BLOCK * 2;
  unsigned char *at = c->out[k] + (size_t)i * BLOCK * 2;
  for (size_t j = 0; j < *bytes; j++) at[j] = byte_of(c->n->node, k, (size_t)i * 1000 + j);
  return at;
}

/* The posted and put exchanges: node-shared buffers (one process per
 * node), filled before and checked after, and which drivers the engine
 * handed each peer's messages to (bit d). */
static unsigned char sh_out[MAXP][ROOM], sh_in[MAXP][ROOM];
static _Atomic unsigned sh_sent[MAXP], sh_got[MAXP];
static simple__win_t *sh_win;
static unsigned char *sh_base;

static size_t p_out_bytes(void *ctx, int k) { return msg_bytes(((simple__node_t *)ctx)->node, k); }
static size_t p_in_bytes(void *ctx, int k) { return msg_bytes(k, ((simple__node_t *)ctx)->node); }
static const void *p_out(void *ctx, int k, int d) {
  (void)ctx;
  atomic_fetch_or(&sh_sent[k], 1u << d);
  return sh_out[k];
}
static void *p_in(void *ctx, int k, int d, int *unpack) {
  (void)ctx;
  *unpack = 0;
  atomic_fetch_or(&sh_got[k], 1u << d);
  return sh_in[k];
}

/* The drivers post_driver names for the chunks of k's messages. */
static unsigned named(const simple__xchg_t *x, int k, int out) {
  unsigned m = 0;
  size_t b = out ? msg_bytes(x->n->node, k) : msg_bytes(k, x->n->node);
  for (int ch = 0; ch < x->chunks && b; ch++) m |= 1u << simple__xchg_post_driver(x, k, out, ch);
  return m;
}

static void reset_shared(simple_t *s) {
  simple__node_t *n = s->node;
  CHECK_OK(simple_barrier(s)); /* every thread done with the last check */
  if (simple_thread(s) == 0) {
    for (int k = 0; k < n->nodes; k++) {
      for (size_t i = 0; i < msg_bytes(n->node, k); i++) sh_out[k][i] = byte_of(n->node, k, i);
      memset(sh_in[k], 0, ROOM);
      atomic_store(&sh_sent[k], 0);
      atomic_store(&sh_got[k], 0);
    }
  }
  CHECK_OK(simple_barrier(s));
}

static void check_shared(simple_t *s, const simple__xchg_t *x, int put) {
  simple__node_t *n = s->node;
  for (int k = 0; k < n->nodes; k++) {
    if (k == n->node) continue;
    const unsigned char *m = put ? sh_base + (size_t)k * ROOM : sh_in[k];
    for (size_t i = 0; i < msg_bytes(k, n->node); i++) CHECK_EQ(m[i], byte_of(k, n->node, i));
    CHECK_EQ(atomic_load(&sh_sent[k]), named(x, k, 1));
    if (!put) CHECK_EQ(atomic_load(&sh_got[k]), named(x, k, 0));
  }
}

/* A posted exchange of two chunks per message, one driver per lane, the
 * node as the callbacks' context. */
static simple__xchg_t posted(simple__node_t *n, size_t (*out_bytes)(void *, int),
                             size_t (*in_bytes)(void *, int), const void *(*out)(void *, int, int),
                             void *(*in)(void *, int, int, int *)) {
  simple__xchg_t x = {.n = n,
                      .tag = SIMPLE__TAG_ALLTOALL,
                      .drivers = simple__xchg_drivers(n),
                      .chunks = 2,
                      .ctx = n,
                      .out_bytes = out_bytes,
                      .in_bytes = in_bytes,
                      .out = out,
                      .in = in};
  return x;
}

static void posted_and_put(simple_t *s) {
  simple__node_t *n = s->node;
  int P = n->nodes, me = simple_thread(s);
  if (P > MAXP) return;
  simple__xchg_t x = posted(n, p_out_bytes, p_in_bytes, p_out, p_in);
  CHECK(P > 1 ? x.drivers >= 1 && x.drivers <= simple_threads(s) : x.drivers == 0);

  /* Two-sided: every receive posted, then every send; the driver waits. */
  reset_shared(s);
  if (me < x.drivers) {
    simple__net_req_t req[4 * MAXP];
    int nreq = 0;
    CHECK_OK(simple__xchg_post(&x, me, 0, req, &nreq));
    CHECK_OK(simple__xchg_post(&x, me, 1, req, &nreq));
    CHECK(nreq <= 4 * MAXP);
    CHECK_OK(simple__net_waitall(req, nreq));
  }
  CHECK_OK(simple_barrier(s));
  check_shared(s, &x, 0);

  /* One-sided: into region `node` of every peer's window, complete at the
   * target after a barrier among the nodes and a window sync. */
  reset_shared(s);
  if (me == 0) {
    void *base = NULL;
    CHECK_OK(simple__win_create(n, (size_t)P * ROOM, &base, &sh_win));
    sh_base = base;
  }
  CHECK_OK(simple_barrier(s));
  if (me < x.drivers) {
    CHECK_OK(simple__xchg_put(&x, me, sh_win, (size_t)n->node * ROOM));
    /* A bad node puts nothing: its verdict cannot travel with puts. */
    simple__xchg_t bad = x;
    bad.bad = 1;
    CHECK_RC(simple__xchg_put(&bad, me, sh_win, 0), SIMPLE_ERR_PEER);
  }
  CHECK_OK(simple_barrier(s));
  if (me == 0) CHECK_OK(simple__win_sync(sh_win));
  CHECK_OK(simple_barrier(s));
  check_shared(s, &x, 1);
  CHECK_OK(simple_barrier(s));
  if (me == 0) {
    simple__win_free(sh_win);
    sh_win = NULL;
  }
  CHECK_OK(simple_barrier(s));
}

/* Posted messages above the segment size (src/xchg cuts every chunk into
 * SIMPLE__XCHG_SEG_BYTES pieces, a request each): 0, 100003 or 200006
 * bytes by pair, two chunks each, so that chunks take 1 to 2 segments and
 * some pairs none. The requests posted must be those
 * simple__xchg_post_count names, within simple__xchg_post_bound. */
static size_t big_bytes(int a, int k) { return (size_t)((a + 2 * k) % 3) * 100003; }
static unsigned char *big_out[MAXP], *big_in[MAXP];
static size_t b_out_bytes(void *ctx, int k) { return big_bytes(((simple__node_t *)ctx)->node, k); }
static size_t b_in_bytes(void *ctx, int k) { return big_bytes(k, ((simple__node_t *)ctx)->node); }
static const void *b_out(void *ctx, int k, int d) {
  (void)ctx;
  (void)d;
  return big_out[k];
}
static void *b_in(void *ctx, int k, int d, int *unpack) {
  (void)ctx;
  (void)d;
  *unpack = 0;
  return big_in[k];
}

static void posted_segments(simple_t *s) {
  simple__node_t *n = s->node;
  int P = n->nodes, me = simple_thread(s), a = n->node;
  if (P > MAXP) return;
  simple__xchg_t x = posted(n, b_out_bytes, b_in_bytes, b_out, b_in);
  if (me == 0)
    for (int k = 0; k < P; k++) {
      CHECK((big_out[k] = malloc(big_bytes(a, k) + 1)) &&
            (big_in[k] = calloc(1, big_bytes(k, a) + 1)));
      for (size_t i = 0; i < big_bytes(a, k); i++) big_out[k][i] = byte_of(a, k, i);
    }
  CHECK_OK(simple_barrier(s));
  if (me < x.drivers) {
    size_t sent = 0, got = 0;
    for (int k = 0; k < P; k++)
      if (k != a) sent += big_bytes(a, k), got += big_bytes(k, a);
    int nin = simple__xchg_post_count(&x, me, 0), nout = simple__xchg_post_count(&x, me, 1);
    CHECK((size_t)nin <= simple__xchg_post_bound(n, 2, got));
    CHECK((size_t)nout <= simple__xchg_post_bound(n, 2, sent));
    simple__net_req_t *req = malloc((size_t)(nin + nout + 1) * sizeof *req);
    CHECK(req != NULL);
    int nreq = 0;
    CHECK_OK(simple__xchg_post(&x, me, 0, req, &nreq));
    CHECK_EQ(nreq, nin);
    CHECK_OK(simple__xchg_post(&x, me, 1, req, &nreq));
    CHECK_EQ(nreq, nin + nout);
    CHECK_OK(simple__net_waitall(req, nreq));
    free(req);
  }
  CHECK_OK(simple_barrier(s));
  for (int k = 0; k < P; k++)
    for (size_t i = (size_t)me; k != a && i < big_bytes(k, a); i += (size_t)simple_threads(s))
      CHECK_EQ(big_in[k][i], byte_of(k, a, i));
  CHECK_OK(simple_barrier(s));
  if (me == 0)
    for (int k = 0; k < P; k++) {
      free(big_out[k]);
      free(big_in[k]);
    }
  CHECK_OK(simple_barrier(s));
}

static void body(simple_t *s, void *arg) {
  (void)arg;
  simple__node_t *n = s->node;
  int P = n->nodes;
  CHECK(P <= MAXP);
  simple__xchg_split_t sp = simple__xchg_split(n, 0);
  CHECK(P > 1 ? sp.drivers >= 1 : sp.drivers == 0);
  static _Thread_local ctx_t c;
  memset(&c, 0, sizeof c);
  c.s = s;
  c.n = n;
  simple__xchg_t x = {.n = n,
                      .tag = SIMPLE__TAG_ALLTOALL,
                      .drivers = sp.drivers,
                      .ctx = &c,
                      .out_bytes = c_out_bytes,
                      .in_bytes = c_in_bytes,
                      .out = c_out,
                      .in = c_in,
                      .unpack = c_unpack};
  int me = simple_thread(s);
  /* One message per pair. */
  if (me < sp.drivers) {
    CHECK_OK(simple__xchg_drive(&x, me, 0));
    /* Messages received in place are checked here: the steps this driver
     * ran are those of its lane. */
    for (int st = me + 1; st < P; st += sp.drivers) {
      int to, from;
      simple__xchg_step(n, st, &to, &from);
      if (from % 2 == 0 && msg_bytes(from, n->node)) check_msg(&c, from, c.in[from]);
      if (msg_bytes(from, n->node) == 0) c.arrived++; /* an empty pair arrives as nothing */
    }
  }
  long long got = c.arrived, total = 0;
  CHECK_OK(simple_allreduce(s, &got, &total, 1, SIMPLE_INT64, SIMPLE_SUM));
  CHECK_EQ(total, (long long)P * (P - 1));

  /* One message per block. */
  x.blocks = c_blocks;
  x.block = c_block;
  memset(c.in, 0, sizeof c.in);
  if (me < sp.drivers) {
    CHECK_OK(simple__xchg_drive(&x, me, 0));
    for (int st = me + 1; st < P; st += sp.drivers) {
      int to, from;
      simple__xchg_step(n, st, &to, &from);
      for (int i = 0; i < nblocks(from, n->node); i++)
        for (size_t j = 0; j < BLOCK * (size_t)(i + 1); j++)
          CHECK_EQ(c.in[from][(size_t)i * BLOCK * 2 + j],
                   byte_of(from, n->node, (size_t)i * 1000 + j));
    }
  }
  CHECK_OK(simple_barrier(s));
  posted_and_put(s);
  posted_segments(s);
}

TEST_MAIN(body)
