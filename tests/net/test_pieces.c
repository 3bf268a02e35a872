/* Transfers from and into pieces (net.h: simple__net_isend_pieces,
 * simple__net_irecv_pieces) driven directly by thread 0 of every node,
 * around a ring of the nodes (one node: to itself). A message of TOTAL
 * bytes, byte i of it seq(from, i), leaves from pieces of every shape
 * (lines apart, a stretch, lines back to back, one line, short lines)
 * and lands in pieces of other shapes, whole and cut into segments of
 * several sizes, so that a segment starts or ends inside a line, covers
 * whole lines, or lies inside one line. Every byte of the receive pieces
 * is checked against seq, every byte around them against its fill.
 * Links the static library: src/net is internal. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "net/net.h"
#include "net/net_comm.h"

#define FILL 0xee

/* Byte i of node from's message: no period shorter than the message. */
static unsigned char seq(int from, size_t i) {
  return (unsigned char)((i * 131u + i / 251u + (size_t)from * 7u) & 0xff);
}

/* Piece shapes: offset in the side's buffer, line bytes, lines, stride
 * (lines 0: one stretch). */
typedef struct {
  size_t at, bytes, lines, stride;
} shape_t;

static const shape_t send_shapes[] = {
    {3, 300, 7, 517},   /* lines apart */
    {4000, 123, 0, 0},  /* a stretch */
    {4200, 64, 5, 64},  /* lines back to back */
    {4600, 200, 1, 0},  /* one line */
    {5000, 33, 40, 50}, /* short lines */
};
static const shape_t recv_shapes[] = {
    {10, 1000, 0, 0},    /* a stretch */
    {1100, 97, 29, 131}, /* lines apart */
    {5000, 250, 0, 0},   /* a stretch */
};
#define NSEND (sizeof send_shapes / sizeof send_shapes[0])
#define NRECV (sizeof recv_shapes / sizeof recv_shapes[0])
#define TOTAL 4063 /* both lists' bytes */
#define BUF   8192

static void pieces_of(const shape_t *sh, size_t n, unsigned char *buf, simple__net_piece_t *p) {
  for (size_t i = 0; i < n; i++)
    p[i] = (simple__net_piece_t){buf + sh[i].at, sh[i].bytes, sh[i].lines, sh[i].stride};
}

/* Calls f(offset in the buffer, byte of the message) for every byte of
 * the pieces, in message order; returns the bytes. */
static size_t walk(const shape_t *sh, size_t n, void (*f)(void *, size_t, size_t), void *arg) {
  size_t i = 0;
  for (size_t k = 0; k < n; k++) {
    size_t lines = sh[k].lines ? sh[k].lines : 1;
    for (size_t l = 0; l < lines; l++)
      for (size_t b = 0; b < sh[k].bytes; b++) f(arg, sh[k].at + l * sh[k].stride + b, i++);
  }
  return i;
}

typedef struct {
  unsigned char *buf, *covered;
  int from;
  simple_t *s;
} walk_t;

static void fill_byte(void *arg, size_t off, size_t i) {
  walk_t *w = arg;
  w->buf[off] = seq(w->from, i);
}

static void check_byte(void *arg, size_t off, size_t i) {
  walk_t *w = arg;
  simple_t *s = w->s;
  CHECK_EQ(w->buf[off], seq(w->from, i));
  w->covered[off] = 1;
}

static void ring(simple_t *s, simple__comm_t *c, int me, int P) {
  int to = (me + 1) % P, from = (me + P - 1) % P;
  static unsigned char sbuf[BUF], rbuf[BUF], covered[BUF];
  simple__net_piece_t sp[NSEND], rp[NRECV];
  pieces_of(send_shapes, NSEND, sbuf, sp);
  pieces_of(recv_shapes, NRECV, rbuf, rp);
  CHECK_EQ(simple__net_piece_bytes(&sp[0]), 2100);
  CHECK_EQ(simple__net_piece_bytes(&sp[3]), 200);
  memset(sbuf, 0x5a, sizeof sbuf);
  walk_t w = {sbuf, NULL, me, s};
  CHECK_EQ(walk(send_shapes, NSEND, fill_byte, &w), TOTAL);
  /* Whole, then in segments: 1000 (cuts inside lines of both sides),
   * 301, 64, 7 (inside one line, and several short lines). */
  size_t segs[] = {TOTAL, 1000, 301, 64, 7};
  for (size_t z = 0; z < sizeof segs / sizeof segs[0]; z++) {
    size_t seg = segs[z], n = (TOTAL + seg - 1) / seg;
    simple__net_req_t *req = malloc(2 * n * sizeof *req);
    CHECK(req != NULL);
    memset(rbuf, FILL, sizeof rbuf);
    for (size_t k = 0; k < n; k++) {
      size_t len = TOTAL - k * seg < seg ? TOTAL - k * seg : seg;
      CHECK_OK(simple__net_irecv_pieces(c, rp, NRECV, k * seg, len, from, 5, &req[k]));
    }
    for (size_t k = 0; k < n; k++) {
      size_t len = TOTAL - k * seg < seg ? TOTAL - k * seg : seg;
      CHECK_OK(simple__net_isend_pieces(c, sp, NSEND, k * seg, len, to, 5, &req[n + k]));
    }
    CHECK_OK(simple__net_waitall(req, (int)(2 * n)));
    free(req);
    memset(covered, 0, sizeof covered);
    walk_t r = {rbuf, covered, from, s};
    CHECK_EQ(walk(recv_shapes, NRECV, check_byte, &r), TOTAL);
    for (size_t i = 0; i < BUF; i++)
      if (!covered[i]) CHECK_EQ(rbuf[i], FILL);
  }
}

static void body(simple_t *s, void *arg) {
  (void)arg;
  simple__node_t *n = s->node;
  if (s->thread == 0) {
    simple__comm_t *c = NULL;
    CHECK_OK(simple__comm_dup(n, &c));
    ring(s, c, n->node, n->nodes);
    simple__comm_free(&c);
  }
  CHECK_OK(simple_barrier(s));
}

TEST_MAIN(body)
