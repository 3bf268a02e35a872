/* The node-pair exchange engine (xchg.h): drivers run their steps of the
 * all-pairs schedule for a client's exchange. */
#include "xchg/xchg.h"

#include <stdint.h>

/* An exchange's tags: the one its messages and marks go with, and
 * the one its receives and drains ask for (-1: any, when the tag carries
 * the signature). */
static int out_tag(const simple__xchg_t *x) { return simple__xchg_out_tag(x->n, x->sig, x->tag); }
static int in_tag(const simple__xchg_t *x) { return x->sig ? -1 : x->tag; }

/* The segment size between this node and `peer`, the same at both ends:
 * SIMPLE__XCHG_SEG_BYTES between hosts, where it keeps every segment
 * under the TCP transport's eager limit; between nodes on one host
 * (MPI's shared-memory transport, which moves a large message in one
 * copy) SIMPLE__XCHG_ONE_HOST_SEG: cut in 63 KiB, such messages took 1.4x
 * as long (simple-bench coll -N 2 -t 1 on one host, bcast and exscan of
 * 256 KiB-4 MiB: 0.67-0.70 of MPI's collective, 0.97-1.00 whole). Two
 * loads and a compare, and two more on one host. */
static size_t pair_seg(simple__node_t *n, int peer) {
  if (peer < 0 || n->host_of[peer] != n->host_of[n->node]) return SIMPLE__XCHG_SEG_BYTES;
  const simple__xchg_lanes_t *L = *simple__layer_slot(n, &simple__xchg_key);
  return L->one_host_seg;
}

int simple__xchg_between_hosts(simple__node_t *n, int peer) {
  return pair_seg(n, peer) == SIMPLE__XCHG_SEG_BYTES;
}

/* Segments of a message in segments of `seg` bytes: an empty message is
 * one (a zero-byte message, or a mark). No overflow for any size (a
 * failed call's sizes may be near SIZE_MAX). */
static size_t segments(size_t bytes, size_t seg) {
  return bytes <= seg ? 1 : bytes / seg + (bytes % seg != 0);
}
static size_t seg_len(size_t bytes, size_t k, size_t seg) {
  size_t at = k * seg;
  return bytes - at < seg ? bytes - at : seg;
}

/* Where a message leaves from or lands: sbuf or rbuf, or (pieces set)
 * the concatenation of the pieces (simple__net_isend_pieces,
 * simple__net_irecv_pieces). */
typedef struct {
  const simple__net_piece_t *piece;
  int n;
} pieces_t;

/* The send or receive of bytes [off, off + len) of a message leaving
 * from sbuf or landing at rbuf or, when p is set, in its pieces. */
static int send_at(simple__comm_t *c, const void *sbuf, const pieces_t *p, size_t off, size_t len,
                   int dest, int tag, simple__net_req_t *q) {
  if (p) return simple__net_isend_pieces(c, p->piece, p->n, off, len, dest, tag, q);
  return simple__net_isend(c, (const unsigned char *)sbuf + off, len, dest, tag, q);
}
static int recv_at(simple__comm_t *c, void *rbuf, const pieces_t *p, size_t off, size_t len,
                   int src, int in, simple__net_req_t *q) {
  if (p) return simple__net_irecv_pieces(c, p->piece, p->n, off, len, src, in, q);
  return simple__net_irecv(c, (unsigned char *)rbuf + off, len, src, in, q);
}

/* The segment size of a message of `bytes` between this node and `peer`,
 * whose segments are at most seg = pair_seg (a multiple of 64). Both ends
 * cut a message alike from its size.
 *
 * A message of n->segment_whole bytes or more (SIMPLE_SEGMENT_WHOLE, 8 MiB
 * by default; 0: none) goes whole: one MPI message (in pieces of 1 GiB,
 * one MPI count, beyond that), whose rendezvous round trip is small
 * against its transfer, where 63 KiB segments cost each a message's
 * overhead. Below it the segments win: they need no handshake (under the
 * eager limit MPI sends them whether or not the receiver is in an MPI
 * call), where a whole message waits for its receiver to answer the
 * rendezvous and to take each fragment, which a receiver busy elsewhere
 * (its other threads on the same core, a combine, a copy) delays. On the
 * AMD EPYC VM (2 cores, 32 MiB of L3), one program switching the threshold
 * between blocks of 10 calls on both nodes at once (medians of 15 paired
 * blocks; time with whole messages from 8 MiB over the time with whole
 * ones from 512 KiB; runs of 9 collectives, 1 and 4 MiB a thread): 2 x 1,
 * the host's fast state, 0.54-0.88 every row (four runs); its slow one
 * (three runs), exchanges both ways 0.73-0.96 (allreduce, allgather,
 * alltoall), one way 0.94-1.24 at 1 MiB and 0.78-1.44 at 4 MiB (bcast,
 * reduce, scan, exscan, gather, scatter); 2 x 2 (six runs), 1 MiB
 * 0.55-1.22, 45 of 54 rows below 1 (median 0.80), 4 MiB 0.68-1.15, 35 of
 * 54 below 1 (median 0.98). The 2D FFT (two redistributions, node-pair
 * messages of 1-4 MiB; one program alternating blocks, both orders): 2 x 2
 * natural 512 x 512 0.97, 1024 x 1024 0.94, transposed 512 0.87, 1024
 * 0.95; 2 x 1 natural 512 0.87. Segments also won with the 16 MiB
 * node-pair messages of natural 2048 x 2048 on 2 x 2 (0.94, against whole
 * messages sent one MPI message per large piece: xchg.h's parts), but
 * there a handshake is a small part of the transfer, so from 8 MiB
 * messages go whole, as they do best on the hosts and networks where a
 * handshake costs less. On an earlier host of the same cloud whole
 * messages won from 512 KiB (simple-bench coll --rounds 3, medians of two
 * runs, us, segments against whole from 512 KiB: 2 x 1, bcast 4 MiB 845 ->
 * 712, scatter 4 MiB 1117 -> 969, exscan 4 MiB 802 -> 710, alltoall 1 MiB
 * 342 -> 301, allgather 4 MiB 1415 -> 1258, allreduce 1 MiB (two exchanges
 * of 512 KiB) 355 -> 278; 2 x 2, allreduce 4 MiB 2361 -> 2124, scatter 4
 * MiB 2118 -> 1831, gather 4 MiB 2113 -> 1965. At 256 KiB whole lost (2 x
 * 1: gather 46 -> 56, exscan 49 -> 55), and one way at 512 KiB too (2 x 2,
 * scatter and gather of 256 KiB a thread: 87-91 -> 104-108, three runs);
 * both ways at 512 KiB it won by more (the allreduce above, 377 -> 275 in
 * three runs against whole from 1 MiB)): where a handshake is cheap
 * against a segment's overhead, as there or on a network whose MPI moves
 * large messages by RDMA (UCX on InfiniBand) rather than through sockets,
 * a lower SIMPLE_SEGMENT_WHOLE pays; simple-bench coll measures it.
 *
 * A message that goes one way only (one_way: the step sends or receives,
 * not both: a tree's edge, a rooted exchange) goes whole from twice that
 * size. Its segments keep the link busy while the receiver takes them,
 * where the rendezvous leaves it idle for a round trip with nothing
 * coming the other way; on the earlier host, 2 x 2 (simple-bench coll
 * --rounds 3, two runs each, us) whole against in segments: scatter of
 * 256 KiB a thread (one message of 512 KiB) 130 against 112, gather 129
 * against 121; one way from 2 MiB whole won (2 x 2, scatter and gather
 * of 1 MiB a thread: 583-610 against 639-647; 2 x 1, 4 MiB: bcast 860
 * against 1009, scatter 1095 against 1332), at 1 MiB (2 x 1) neither
 * consistently. Both ends of a message must agree that it goes one way
 * (move's caller says so: a rooted exchange, and a step of a schedule
 * that only sends or only receives, xchg.h), so that they cut it alike.
 *
 * Below that, a message of up to EVEN_SEGMENTS segments goes in as many
 * as seg gives, of equal size rounded up to 64 bytes (so a multiple of
 * every type's size), the last one shorter; a larger one in segments of
 * seg. Equal segments share the work where a short last one would add a
 * round of its own: on the virtual cluster 2 x 2 (simple-bench coll
 * --rounds 3, three alternating runs against segments of seg and a
 * remainder) a scatter of 32 KiB a thread (two segments of 32 KiB against
 * 63 + 1 KiB) took 0.87 of the time, allreduce of 256 KiB 0.86, bcast,
 * scan and exscan of 256 KiB 0.93, allgather of 32 KiB 1.08; on 2 x 1,
 * the rows of 1 MiB (17 segments) 1.05-1.08, hence the bound. The same
 * number of segments: ceil(bytes / per) = ceil(bytes / seg) for seg >=
 * per >= bytes / ns. Cost: pair_seg's, and a load and two compares for a
 * message above a segment. */
#define EVEN_SEGMENTS 8
static size_t msg_seg(simple__node_t *n, size_t bytes, int peer, int one_way) {
  size_t seg = pair_seg(n, peer);
  if (bytes <= seg) return seg;
  if (n->segment_whole && (one_way ? bytes / 2 : bytes) >= n->segment_whole)
    return SIMPLE__XCHG_ONE_HOST_SEG;
  if (bytes / seg >= EVEN_SEGMENTS) return seg;
  size_t ns = bytes / seg + (bytes % seg != 0);
  size_t per = bytes / ns + (bytes % ns != 0);
  return (per + 63) & ~(size_t)63;
}

/* Segments in flight each way. */
#define MOVE_WINDOW 8

/* The tag of segment k of ns: a signature's tag flags the last one
 * (SIMPLE__TAG_SIG_LAST), so that a receiver in error mode can drain the
 * message without knowing its size. */
static int seg_tag(int out, size_t k, size_t ns) {
  return k + 1 == ns && (out & SIMPLE__TAG_SIG_BASE) ? out | SIMPLE__TAG_SIG_LAST : out;
}
static int is_last_seg(int got) {
  return (got & (SIMPLE__TAG_SIG_BASE | SIMPLE__TAG_SIG_LAST)) ==
         (SIMPLE__TAG_SIG_BASE | SIMPLE__TAG_SIG_LAST);
}
/* A received tag without the last segment's flag. */
static int tag_body(int got) {
  return got & SIMPLE__TAG_SIG_BASE ? got & ~SIMPLE__TAG_SIG_LAST : got;
}

/* What a node in error mode drained from src, a message with tag `got`,
 * against the call its thread reruns on a guess of the other nodes' call
 * (s->guess: src/coll/check.c, where the node's threads' calls move
 * different messages among nodes). A message of another call means the
 * guess was wrong: the nodes' messages are out of step (this call would
 * take the next one's, and the calls after it would succeed on other
 * calls' data), which no verdict can mend, so the job ends at once. Error
 * path only: a thread-local load and a compare. */
static void check_guess(simple__node_t *n, int src, int got) {
  simple_t *s = simple_self();
  if (!s || !s->guess || !(got & SIMPLE__TAG_SIG_BASE) ||
      tag_body(got) == tag_body(simple__xchg_sig_tag(n, s->guess)))
    return;
  simple_abort(s,
               "node %d reran a collective on a guess of the other nodes' call (the warning"
               " above), and node %d sent it a message of another call: the nodes' messages are"
               " out of step; ending the job",
               n->node, src);
}

/* The `left` marks of a peer's MOVE_WINDOW that follow the ones its
 * receiver had posted for, taken with the marks' tag (nothing else from
 * src can match it before them). */
static int drain_marks(simple__comm_t *c, int src, int tag, size_t left) {
  int rc = 0;
  for (; left && !rc; left--) rc = simple__net_drain(c, src, tag, NULL, NULL);
  return rc;
}

/* A message of one segment each way in flight (move_one's halves, also
 * the windowed steps of simple__xchg_drive). */
typedef struct {
  simple__net_req_t rq, sq;
  int recv, sent; /* posted */
} one_t;

/* The receive from src (-1: none) posted first, then the send to dest
 * (-1: none). Returns the first error; what it did post is in *o. */
static int one_post(simple__comm_t *c, const void *sbuf, const pieces_t *spieces, size_t sbytes,
                    int dest, void *rbuf, const pieces_t *rpieces, size_t rbytes, int src, int out,
                    int in, one_t *o) {
  int rc = 0;
  o->recv = o->sent = 0;
  if (src >= 0) o->recv = !(rc = recv_at(c, rbuf, rpieces, 0, rbytes, src, in, &o->rq));
  if (!rc && dest >= 0)
    o->sent = !(rc = send_at(c, sbuf, spieces, 0, sbytes, dest, seg_tag(out, 0, 1), &o->sq));
  return rc;
}

/* Waits for what one_post posted (rc: its error): a mark from src sets
 * *marked and drains the rest of the sender's window, a message whose tag
 * is not `out` sets *differs. Returns the first error. */
static int one_land(simple__comm_t *c, one_t *o, int rc, int src, size_t rbytes, int out, int in,
                    simple__xchg_arrived_fn *arrived, void *aarg, int *marked, int *differs) {
  int mark_tag = in, mark = 0;
  if (o->recv) {
    int got = out, w = simple__net_wait_tag(&o->rq, &got);
    if (w == SIMPLE__NET_MARK) {
      mark_tag = got; /* the first of the sender's MOVE_WINDOW marks */
      mark = *marked = 1;
    } else if (w && !rc) {
      rc = w;
    } else if (!w && tag_body(got) != out) {
      *differs = 1;
    } else if (!w && arrived && !rc && !*marked && !*differs) {
      arrived(aarg, 0, rbytes);
    }
  }
  if (o->sent) {
    int w = simple__net_waitall(&o->sq, 1);
    if (w && !rc) rc = w;
  }
  if (!rc && mark) rc = drain_marks(c, src, mark_tag, MOVE_WINDOW - 1);
  return rc;
}

/* move() for messages of one segment each way, not in error mode: the
 * small messages of most collectives, the same steps as the windowed loop
 * without its bookkeeping and without looking up the pair's segment size
 * (no pair's is below SIMPLE__XCHG_SEG_BYTES); about 140 instructions a
 * call fewer (callgrind, 8-byte bcast on 2 x 1). The hook, if set (a node
 * of one thread copying its own alltoall block), runs once the send is
 * posted, as in the loop: 64-byte alltoall on 2 x 1 (virtual cluster,
 * clock marks inside the call, four runs each) ~40 ns a call fewer from
 * the exchange's entry to the first receive posted and after the last
 * wait. */
static int move_one(simple__comm_t *c, const void *sbuf, const pieces_t *spieces, size_t sbytes,
                    int dest, void *rbuf, const pieces_t *rpieces, size_t rbytes, int src, int out,
                    int in, void (*hook)(void *), void *arg, simple__xchg_arrived_fn *arrived,
                    void *aarg, int *marked, int *differs) {
  one_t o;
  int rc = one_post(c, sbuf, spieces, sbytes, dest, rbuf, rpieces, rbytes, src, out, in, &o);
  if (hook) hook(arg);
  return one_land(c, &o, rc, src, rbytes, out, in, arrived, aarg, marked, differs);
}

/* One message each way between this node and its partners on c (dest or
 * src -1: none), in segments of at most the pair's size (msg_seg), up to
 * MOVE_WINDOW in flight each way: sbuf's (or spieces', when set) sbytes
 * go to dest with tag `out`, src's rbytes come into rbuf (or rpieces,
 * when set) with tag `in` (-1: any). `hook` (if set) runs once while the
 * first segments fly. `arrived` (if set) is called with each received
 * segment's offset and length as it lands, in order, while the later ones
 * fly, until a mark or another tag; a segment whose tag is not `out` sets
 * *differs.
 *
 * Error mode (marks) reads and writes nothing, and each end's message
 * size may be another than the partner's (a node whose threads disagreed
 * reruns the call most of them made, which may not be the other nodes'):
 * so nothing in it depends on the size, but whether it is 0. A node in
 * error mode sends MOVE_WINDOW marks for a message of any size but 0 (for
 * an empty one, one mark: an empty receive cannot tell a mark from the
 * data); a receiver whose first segment came as a mark takes the marks of
 * the window it had posted and drains the rest of the MOVE_WINDOW (with
 * the marks' tag: nothing else can match). A node in error mode drains
 * what src sends: MOVE_WINDOW marks if the first message is one (one for
 * an empty message), else segments up to the one whose tag flags the last
 * (seg_tag; without a signature, where the sizes cannot differ, as many as
 * its own size gives). Drains block: the partner has posted its sends by
 * then. Cost on success: a compare per segment sent and a mask per
 * segment received. Returns the first MPI error; every posted request is
 * waited for. */
static int move(simple__node_t *n, simple__comm_t *c, const void *sbuf, const pieces_t *spieces,
                size_t sbytes, int dest, void *rbuf, const pieces_t *rpieces, size_t rbytes,
                int src, int out, int in, int marks, int one_way, void (*hook)(void *), void *arg,
                simple__xchg_arrived_fn *arrived, void *aarg, int *marked, int *differs) {
  if (!marks && sbytes <= SIMPLE__XCHG_SEG_BYTES && rbytes <= SIMPLE__XCHG_SEG_BYTES)
    return move_one(c, sbuf, spieces, sbytes, dest, rbuf, rpieces, rbytes, src, out, in, hook, arg,
                    arrived, aarg, marked, differs);
  size_t sseg = msg_seg(n, sbytes, dest, one_way), rseg = msg_seg(n, rbytes, src, one_way);
  size_t ns = dest >= 0 ? segments(sbytes, sseg) : 0, nr = src >= 0 ? segments(rbytes, rseg) : 0;
  size_t sp = 0, sd = 0, rp = 0, rd = 0; /* segments posted, done */
  size_t marks_left = 0;                 /* marks still to drain after the window */
  int mark_tag = in, seen_mark = 0, rc = 0;
  simple__net_req_t sq[MOVE_WINDOW], rq[MOVE_WINDOW];
  if (marks && dest >= 0 && sbytes) ns = MOVE_WINDOW;
  while (sd < sp || rd < rp || (!rc && (sp < ns || rp < nr))) {
    /* The receives first, so that their buffers are ready when the data
     * comes. */
    for (; !rc && !marks && rp < nr && rp - rd < MOVE_WINDOW; rp++)
      rc = recv_at(c, rbuf, rpieces, rp * rseg, seg_len(rbytes, rp, rseg), src, in,
                   &rq[rp % MOVE_WINDOW]);
    for (; !rc && sp < ns && sp - sd < MOVE_WINDOW; sp++)
      rc = marks ? simple__net_mark(c, dest, out, &sq[sp % MOVE_WINDOW])
                 : send_at(c, sbuf, spieces, sp * sseg, seg_len(sbytes, sp, sseg), dest,
                           seg_tag(out, sp, ns), &sq[sp % MOVE_WINDOW]);
    if (hook) {
      hook(arg);
      hook = NULL;
    }
    for (size_t k = 0; marks && !rc && rp < nr && k < MOVE_WINDOW; k++, rp++, rd++) {
      int was_mark = 0, got = in;
      rc = simple__net_drain(c, src, in, &was_mark, &got);
      if (!rc && !was_mark) check_guess(n, src, got);
      if (rp == 0 && was_mark)
        nr = rbytes ? MOVE_WINDOW : 1; /* the partner failed too */
      else if (rp == 0 && in < 0 && got & SIMPLE__TAG_SIG_BASE)
        nr = SIZE_MAX;
      if (!was_mark && is_last_seg(got)) nr = rp + 1;
    }
    if (rd < rp) {
      int got = out, w = simple__net_wait_tag(&rq[rd % MOVE_WINDOW], &got);
      if (w == SIMPLE__NET_MARK) {
        if (!seen_mark) { /* the marks posted for: rd .. rp */
          marks_left = MOVE_WINDOW - (rp - rd);
          mark_tag = got;
          seen_mark = 1;
        }
        *marked = 1;
        nr = rp; /* the window posted holds the sender's first marks */
      } else if (w && !rc) {
        rc = w;
      } else if (!w && tag_body(got) != out) {
        *differs = 1;
      } else if (!w && arrived && !rc && !*marked && !*differs) {
        arrived(aarg, rd * rseg, seg_len(rbytes, rd, rseg));
      }
      rd++;
    }
    if (sd < sp) {
      int w = simple__net_waitall(&sq[sd++ % MOVE_WINDOW], 1);
      if (w && !rc) rc = w;
    }
  }
  if (!rc) rc = drain_marks(c, src, mark_tag, marks_left);
  if (hook) hook(arg);
  return rc;
}

/* Waits for req[0..m) of a step, the receives among them first (nr of
 * them): a mark sets *marked, a message whose tag is not this node's sets
 * *differs. Returns the first MPI error, every request waited for. */
static int step_wait(const simple__xchg_t *x, simple__net_req_t *req, int nr, int m, int *marked,
                     int *differs) {
  int rc = 0, tag = out_tag(x);
  for (int j = 0; j < m; j++) {
    int got = tag, w = j < nr && x->sig ? simple__net_wait_tag(&req[j], &got)
                                        : simple__net_waitall(&req[j], 1);
    if (w == SIMPLE__NET_MARK)
      *marked = 1;
    else if (w && !rc)
      rc = w;
    else if (!w && got != tag)
      *differs = 1;
  }
  return rc;
}

/* One step, one message per block: waves of at most SIMPLE__XCHG_WAVE
 * blocks each way. */
static int step_blocks(const simple__xchg_t *x, int d, int to, int from, int *also_local,
                       int *marked, int *differs) {
  simple__comm_t *c = simple__xchg_lane(x->n, d);
  int ns = x->blocks(x->ctx, to, 1), nr = x->blocks(x->ctx, from, 0), rc = 0;
  int tag = out_tag(x), want = in_tag(x);
  for (int w = 0; (w < ns || w < nr) && !rc; w += SIMPLE__XCHG_WAVE) {
    simple__net_req_t req[2 * SIMPLE__XCHG_WAVE];
    int m = 0;
    for (int i = w; i < nr && i < w + SIMPLE__XCHG_WAVE && !rc && !x->bad; i++) {
      size_t b;
      void *at = x->block(x->ctx, from, 0, i, &b);
      if (!(rc = simple__net_irecv(c, at, b, from, want, &req[m]))) m++;
    }
    int recvs = m;
    for (int i = w; i < ns && i < w + SIMPLE__XCHG_WAVE && !rc; i++) {
      size_t b = 0;
      const void *at = x->bad ? NULL : x->block(x->ctx, to, 1, i, &b);
      rc = x->bad ? simple__net_mark(c, to, tag, &req[m])
                  : simple__net_isend(c, at, b, to, tag, &req[m]);
      if (!rc) m++;
    }
    for (int i = w; i < nr && i < w + SIMPLE__XCHG_WAVE && !rc && x->bad; i++)
      rc = simple__net_drain(c, from, want, NULL, NULL);
    if (*also_local) {
      x->local(x->ctx);
      *also_local = 0;
    }
    int rc2 = step_wait(x, req, recvs, m, marked, differs);
    if (!rc) rc = rc2;
  }
  return rc;
}

/* The node-local work of a node without a copying thread, once. */
static void local_once(void *arg) {
  const simple__xchg_t *x = arg;
  x->local(x->ctx);
}

/* One step, one message each way (in segments: move). */
static int step_pair(const simple__xchg_t *x, int d, int to, int from, int *also_local, int *marked,
                     int *differs) {
  simple__comm_t *c = simple__xchg_lane(x->n, d);
  size_t ob = x->out_bytes(x->ctx, to), ib = x->in_bytes(x->ctx, from);
  int unpack = 0, mark = 0, differ = 0;
  void (*hook)(void *) = *also_local ? local_once : NULL;
  *also_local = 0;
  /* In error mode (no hook then: simple__xchg_drive) a mark where each
   * segment would go, and whatever comes taken: no buffer, the verdict
   * SIMPLE_ERR_PEER whatever comes. */
  void *in = ib && !x->bad ? x->in(x->ctx, from, d, &unpack) : NULL;
  const void *out = ob && !x->bad ? x->out(x->ctx, to, d) : NULL;
  /* Cut as going both ways whatever the sizes: a node that sends nothing
   * this step may receive a message whose sender also receives one, and
   * both ends must cut it alike (msg_seg). */
  int rc = move(x->n, c, out, NULL, ob, ob ? to : -1, in, NULL, ib, ib ? from : -1, out_tag(x),
                in_tag(x), x->bad, 0, hook, (void *)x, NULL, NULL, &mark, &differ);
  /* A mark, or another node's signature: the message is not unpacked. */
  if (mark || differ) unpack = 0;
  *marked |= mark;
  *differs |= differ && x->sig;
  if (!rc && unpack) x->unpack(x->ctx, from, in);
  return rc;
}

/* Steps of one driver in flight at once (drive_window). */
#define STEP_WINDOW SIMPLE__XCHG_WAVE

/* A step of drive_window in flight: its messages (one segment each way),
 * its posting's error, and where the one from `from` landed. */
typedef struct {
  one_t o;
  int rc;
  int from; /* -1: nothing comes */
  size_t ib;
  int unpack;
  void *in;
} step_t;

/* Waits for step f, then hands its message to the client's unpack (as
 * step_pair does). */
static int step_land(const simple__xchg_t *x, simple__comm_t *c, step_t *f, int *marked,
                     int *differs) {
  int mark = 0, differ = 0;
  int rc =
      one_land(c, &f->o, f->rc, f->from, f->ib, out_tag(x), in_tag(x), NULL, NULL, &mark, &differ);
  *marked |= mark;
  *differs |= differ && x->sig;
  if (!rc && f->unpack && !mark && !differ) x->unpack(x->ctx, f->from, f->in);
  return rc;
}

/* Before the driver first waits: the node-local work, while the first
 * transfers fly. */
static void local_before_wait(const simple__xchg_t *x, int *also_local) {
  if (!*also_local) return;
  x->local(x->ctx);
  *also_local = 0;
}

/* Driver d's steps, up to STEP_WINDOW of them in flight, for a client that
 * gives each peer's messages memory of their own (x->distinct): a step
 * whose messages are one segment each way (at most SIMPLE__XCHG_SEG_BYTES,
 * so one MPI message at both ends) is posted without waiting for the
 * steps before it; a larger one waits for those in flight and then goes
 * alone (step_pair, in segments). A driver's k steps of small messages
 * then take about one round trip instead of k: with one driver a node (a
 * node of one thread, or threads sharing cores) that is P - 1 round trips
 * on P nodes. Every message is the one the sequential order sends: one
 * per node pair each way, the same tag, size and cut (a receive names its
 * source, so which step's message it takes does not depend on the order
 * of the posts); only the order of the waits differs. An error mark from
 * a node in error mode (which drives its steps one by one) is taken as
 * move_one takes it. Cost: two requests and a compare a step, as step_pair;
 * up to 2 STEP_WINDOW messages of up to 63 KiB in flight each way. */
static int drive_window(const simple__xchg_t *x, int d, int *also_local, int *marked,
                        int *differs) {
  simple__comm_t *c = simple__xchg_lane(x->n, d);
  step_t fl[STEP_WINDOW];
  int head = 0, count = 0, rc = 0, out = out_tag(x), in = in_tag(x);
  for (int st = d + 1; st < x->n->nodes && !rc; st += x->drivers) {
    int to, from;
    simple__xchg_step(x->n, st, &to, &from);
    size_t ob = x->out_bytes(x->ctx, to), ib = x->in_bytes(x->ctx, from);
    int small = ob <= SIMPLE__XCHG_SEG_BYTES && ib <= SIMPLE__XCHG_SEG_BYTES;
    if (count == STEP_WINDOW || (!small && count)) local_before_wait(x, also_local);
    /* The window full: its oldest step lands; a large step: all of them. */
    for (; count == STEP_WINDOW || (!small && count); count--, head = (head + 1) % STEP_WINDOW) {
      int w = step_land(x, c, &fl[head], marked, differs);
      if (w && !rc) rc = w;
    }
    if (rc) break;
    if (!small) {
      rc = step_pair(x, d, to, from, also_local, marked, differs);
      continue;
    }
    step_t *f = &fl[(head + count++) % STEP_WINDOW];
    f->from = ib ? from : -1;
    f->ib = ib;
    f->unpack = 0;
    f->in = ib ? x->in(x->ctx, from, d, &f->unpack) : NULL;
    const void *msg = ob ? x->out(x->ctx, to, d) : NULL;
    rc = f->rc = one_post(c, msg, NULL, ob, ob ? to : -1, f->in, NULL, ib, f->from, out, in, &f->o);
  }
  if (count) local_before_wait(x, also_local);
  for (; count; count--, head = (head + 1) % STEP_WINDOW) {
    int w = step_land(x, c, &fl[head], marked, differs);
    if (w && !rc) rc = w;
  }
  return rc;
}

int simple__xchg_drive(const simple__xchg_t *x, int d, int also_local) {
  int rc = 0, marked = 0, differs = 0;
  if (x->bad) also_local = 0;
  /* Two steps or more: windowed where the client allows it. */
  if (x->distinct && !x->blocks && !x->bad && d + 1 + x->drivers < x->n->nodes)
    rc = drive_window(x, d, &also_local, &marked, &differs);
  else
    for (int st = d + 1; st < x->n->nodes && !rc; st += x->drivers) {
      int to, from;
      simple__xchg_step(x->n, st, &to, &from);
      rc = x->blocks ? step_blocks(x, d, to, from, &also_local, &marked, &differs)
                     : step_pair(x, d, to, from, &also_local, &marked, &differs);
    }
  if (also_local && x->local) x->local(x->ctx);
  return rc ? rc : marked || x->bad ? SIMPLE_ERR_PEER : differs ? SIMPLE_ERR_ARG : 0;
}

int simple__xchg_sendrecv_each(simple__node_t *n, int lane, const void *sbuf, size_t sbytes,
                               int dest, void *rbuf, size_t rbytes, int src, int tag, int *bad,
                               unsigned sig, simple__xchg_arrived_fn *arrived, void *arg) {
  int marked = 0, differs = 0;
  int rc = move(n, simple__xchg_lane(n, lane), sbuf, NULL, sbytes, dest, rbuf, NULL, rbytes, src,
                simple__xchg_out_tag(n, sig, tag), -1, *bad, (dest < 0) != (src < 0), NULL, NULL,
                *bad ? NULL : arrived, arg, &marked, &differs);
  if (!*bad) *bad = marked ? 1 : differs && !rc ? SIMPLE__XCHG_SIG_DIFFERS : 0;
  return rc;
}

int simple__xchg_sendrecv(simple__node_t *n, int lane, const void *sbuf, size_t sbytes, int dest,
                          void *rbuf, size_t rbytes, int src, int tag, int *bad, unsigned sig) {
  return simple__xchg_sendrecv_each(n, lane, sbuf, sbytes, dest, rbuf, rbytes, src, tag, bad, sig,
                                    NULL, NULL);
}

/* Chunk ch of C of an m-byte message: cache-line aligned cuts. */
static void chunk(size_t m, int C, int ch, size_t *lo, size_t *len) {
  size_t per = (m / (size_t)C + SIMPLE__CACHE_LINE - 1) & ~(size_t)(SIMPLE__CACHE_LINE - 1);
  size_t a = per * (size_t)ch, b = per * (size_t)(ch + 1);
  if (a > m) a = m;
  if (b > m || ch == C - 1) b = m;
  *lo = a;
  *len = b - a;
}

/* The parts of a whole item [lo, lo + len) that go as messages of their
 * own (simple__xchg_t's parts): their sizes in *part (np of them), NULL
 * where the item goes as before (no parts, a part below
 * SIMPLE_SEGMENT_PIECES bytes, or more messages than the item's share of
 * simple__xchg_post_bound, 1 + len / SIMPLE__XCHG_SEG_BYTES, less the
 * verdict's token where one goes first). Returns the messages: the
 * non-empty parts that overlap the item. Cost: one pass over the
 * message's parts (r r_k of a redistribution's). */
static size_t item_parts(const simple__xchg_t *x, int k, int d, int out, size_t lo, size_t len,
                         int token, const size_t **part, int *np) {
  *part = NULL;
  size_t least = x->n->segment_pieces;
  if (!x->parts || !least) return 0;
  const size_t *p;
  int m = x->parts(x->ctx, k, d, out, &p);
  size_t count = 0, at = 0;
  for (int j = 0; j < m; at += p[j], j++) {
    if (p[j] == 0) continue;
    if (p[j] < least) return 0;
    if (at < lo + len && at + p[j] > lo) count++;
  }
  if (count < 2 || count + (size_t)token > 1 + len / SIMPLE__XCHG_SEG_BYTES) return 0;
  *part = p;
  *np = m;
  return count;
}

/* Item i of simple__xchg_post's exchange, one way, on driver d: its peer
 * *k, its place in the message (lo, len), the segment size, its parts
 * (item_parts: *part NULL where it goes in segments of seg), and whether
 * the verdict's token goes first (*token: chunk 0 of a pair, x->verdict,
 * where it is empty or its first message larger than a segment); returns
 * its messages, the token's included (0 when empty and no token). */
static size_t post_item(const simple__xchg_t *x, int i, int d, int out, int *k, size_t *lo,
                        size_t *len, size_t *seg, const size_t **part, int *np, int *token) {
  int to, from;
  simple__xchg_shift(x->n, i / x->chunks + 1, &to, &from);
  *k = out ? to : from;
  chunk(out ? x->out_bytes(x->ctx, *k) : x->in_bytes(x->ctx, *k), x->chunks, i % x->chunks, lo,
        len);
  *seg = msg_seg(x->n, *len, *k, 0);
  *part = NULL;
  int carrier = x->verdict && i % x->chunks == 0;
  *token = carrier;
  if (!*len) return (size_t)*token;
  size_t ng = segments(*len, *seg);
  if (ng == 1) {
    size_t nparts = item_parts(x, *k, d, out, *lo, *len, carrier, part, np);
    if (nparts) return nparts + (size_t)*token;
  }
  *token = carrier && *len > SIMPLE__XCHG_SEG_BYTES && *seg > SIMPLE__XCHG_SEG_BYTES;
  return ng + (size_t)*token;
}

/* The verdict's token: what a carrier that is not data holds. */
static const unsigned char token_out = 1;
static unsigned char *token_in(simple__node_t *n, int k) {
  simple__xchg_lanes_t *L = *simple__layer_slot(n, &simple__xchg_key);
  return &L->token[k];
}

/* Message g of an item (post_item), taken in order: its place in the
 * message. With parts, *j and *at (0 before the first message) walk
 * them, so an item's messages cost one pass over the parts. */
static void item_msg(size_t lo, size_t len, size_t seg, const size_t *part, int np, size_t g,
                     int *j, size_t *at, size_t *off, size_t *m) {
  *off = lo;
  *m = 0;
  if (!part) {
    *off = lo + g * seg;
    *m = seg_len(len, g, seg);
    return;
  }
  for (; *j < np; *at += part[*j], ++*j) {
    size_t a = *at, b = *at + part[*j];
    if (part[*j] == 0 || a >= lo + len || b <= lo) continue;
    *off = a > lo ? a : lo;
    *m = (b < lo + len ? b : lo + len) - *off;
    *at = b;
    ++*j;
    return;
  }
}

/* Driver d's items of simple__xchg_post, one way: for each non-empty
 * chunk, its peer and place in the message. Returns the requests they
 * take (segments), posting them when req is set (stopping at the first
 * error, in *rc). */
static int post_items(const simple__xchg_t *x, int d, int out, simple__net_req_t *req, int *nreq,
                      int *rc) {
  simple__comm_t *c = simple__xchg_lane(x->n, d);
  int items = (x->n->nodes - 1) * x->chunks, unpack, count = 0;
  for (int i = d; i < items && !*rc; i += x->drivers) {
    int k, np = 0, token;
    const size_t *part;
    size_t lo, len, seg, ng = post_item(x, i, d, out, &k, &lo, &len, &seg, &part, &np, &token);
    count += (int)ng;
    if (!req || ng == 0) continue;
    if (!out && x->verdict && i % x->chunks == 0) x->carrier[k] = *nreq;
    if (token) {
      *rc = out ? simple__net_isend(c, &token_out, 1, k, x->tag, &req[*nreq])
                : simple__net_irecv(c, token_in(x->n, k), 1, k, x->tag, &req[*nreq]);
      if (*rc) break;
      ++*nreq;
      if (--ng == 0) continue;
    }
    pieces_t p = {NULL, 0};
    if (out ? x->out_pieces != NULL : x->in_pieces != NULL)
      p.piece = (out ? x->out_pieces : x->in_pieces)(x->ctx, k, d, &p.n);
    unsigned char *at = p.piece ? NULL
                        : out   ? (unsigned char *)(uintptr_t)x->out(x->ctx, k, d)
                                : (unsigned char *)x->in(x->ctx, k, d, &unpack);
    int pj = 0;
    size_t pat = 0;
    for (size_t g = 0; g < ng && !*rc; g++) {
      size_t off, m;
      item_msg(lo, len, seg, part, np, g, &pj, &pat, &off, &m);
      *rc = out ? send_at(c, at, p.piece ? &p : NULL, off, m, k, x->tag, &req[*nreq])
                : recv_at(c, at, p.piece ? &p : NULL, off, m, k, x->tag, &req[*nreq]);
      if (!*rc) ++*nreq;
    }
  }
  return count;
}

int simple__xchg_post_verdict(const simple__xchg_t *x, simple__net_req_t *const *reqs,
                              unsigned char *failed) {
  int P = x->n->nodes, rc = 0;
  for (int k = 0; k < P; k++) failed[k] = 0;
  for (int st = 1; st < P; st++) {
    int to, from;
    simple__xchg_shift(x->n, st, &to, &from);
    /* The carrier from `from`: the first request of item (st - 1) C, its
     * chunk 0, on that item's driver. */
    int w = simple__net_waitall(&reqs[(st - 1) * x->chunks % x->drivers][x->carrier[from]], 1);
    if (w == SIMPLE__NET_MARK)
      failed[from] = 1;
    else if (w && !rc)
      rc = w;
  }
  return rc;
}

int simple__xchg_post_abandon(const simple__xchg_t *x, int d, const unsigned char *failed,
                              int count_tag, simple__net_req_t *req, int nrecv, int nreq) {
  simple__comm_t *c = simple__xchg_lane(x->n, d);
  int items = (x->n->nodes - 1) * x->chunks, rc = 0, q = 0;
  /* The receives, in the order they were posted: those from a failed
   * node taken back (it sends nothing but the mark its carrier got). */
  for (int i = d; i < items && q < nrecv; i += x->drivers) {
    int k, np, token;
    const size_t *part;
    size_t lo, len, seg, ng = post_item(x, i, d, 0, &k, &lo, &len, &seg, &part, &np, &token);
    if (ng > (size_t)(nrecv - q)) ng = (size_t)(nrecv - q);
    if (failed[k] && simple__net_cancel(&req[q], (int)ng)) rc = SIMPLE_ERR_MPI;
    q += (int)ng;
  }
  /* A failed node learns from each item how many messages to drain
   * (simple__xchg_post_failed): sent before this driver waits for its
   * sends, which the drain completes where they are too large to go
   * eagerly. */
  for (int i = d; i < items; i += x->drivers) {
    int k, np, token;
    const size_t *part;
    size_t lo, len, seg;
    unsigned long long ng = post_item(x, i, d, 1, &k, &lo, &len, &seg, &part, &np, &token);
    if (failed[k] && simple__comm_send(c, &ng, sizeof ng, k, count_tag)) rc = SIMPLE_ERR_MPI;
  }
  int w = simple__net_waitall(req, nreq);
  return rc ? rc : w == SIMPLE_ERR_MPI ? w : 0;
}

int simple__xchg_post_failed(const simple__xchg_t *x, int count_tag) {
  simple__node_t *n = x->n;
  int P = n->nodes, C = x->chunks, rc = 0, nm = 0, to, from;
  /* The marks first, all at once: every other node waits for its carrier
   * from this one before it takes back the rest. */
  simple__net_req_t mark[SIMPLE__XCHG_INBAND_NODES];
  for (int st = 1; st < P && !rc; st++) {
    simple__xchg_shift(n, st, &to, &from);
    simple__comm_t *c = simple__xchg_lane(n, (st - 1) * C % x->drivers);
    if (!(rc = simple__net_mark(c, to, x->tag, &mark[nm]))) nm++;
  }
  for (int st = 1; st < P && !rc; st++) {
    simple__xchg_shift(n, st, &to, &from);
    int was_mark = 0;
    rc = simple__net_drain(simple__xchg_lane(n, (st - 1) * C % x->drivers), from, x->tag, &was_mark,
                           NULL);
    for (int ch = 0; ch < C && !rc && !was_mark; ch++) {
      simple__comm_t *c = simple__xchg_lane(n, ((st - 1) * C + ch) % x->drivers);
      unsigned long long ng = 0;
      rc = simple__comm_recv(c, &ng, sizeof ng, from, count_tag, NULL, NULL);
      /* Chunk 0's count holds its carrier, drained above. */
      for (ng -= ng && ch == 0; !rc && ng; ng--)
        rc = simple__net_drain(c, from, x->tag, NULL, NULL);
    }
  }
  int w = simple__net_waitall(mark, nm);
  return rc ? rc : w;
}

int simple__xchg_post(const simple__xchg_t *x, int d, int out, simple__net_req_t *req, int *nreq) {
  int rc = 0;
  post_items(x, d, out, req, nreq, &rc);
  return rc;
}

int simple__xchg_post_count(const simple__xchg_t *x, int d, int out) {
  int rc = 0;
  return post_items(x, d, out, NULL, NULL, &rc);
}

int simple__xchg_put(const simple__xchg_t *x, int d, simple__win_t *w, size_t disp) {
  if (x->bad) return SIMPLE_ERR_PEER;
  int items = (x->n->nodes - 1) * x->chunks, rc = 0;
  for (int i = d; i < items && !rc; i += x->drivers) {
    int to, from;
    simple__xchg_shift(x->n, i / x->chunks + 1, &to, &from);
    size_t lo, len;
    chunk(x->out_bytes(x->ctx, to), x->chunks, i % x->chunks, &lo, &len);
    if (len == 0) continue;
    rc = simple__win_put(w, to, disp + lo, (const unsigned char *)x->out(x->ctx, to, d) + lo, len);
  }
  /* A driver's items with one node are consecutive (the chunks of one
   * step): one flush per node it put to, every put still waited for after
   * a failure. */
  int last = -1;
  for (int i = d; i < items; i += x->drivers) {
    int to, from;
    simple__xchg_shift(x->n, i / x->chunks + 1, &to, &from);
    if (to == last || x->out_bytes(x->ctx, to) == 0) continue;
    last = to;
    int rc2 = simple__win_flush(w, to);
    if (!rc) rc = rc2;
  }
  return rc;
}

/* One message of a rooted exchange, one way between this node and
 * `peer`, through move (in segments; marks and drains when x->bad): buf's
 * (or p's pieces', when set) bytes to peer (out) or from it. A mark sets
 * *marked, another signature *differs. */
static int one_way(const simple__xchg_t *x, simple__comm_t *c, int peer, void *buf,
                   const pieces_t *p, size_t bytes, int out, int *marked, int *differs) {
  return move(x->n, c, out ? buf : NULL, out ? p : NULL, out ? bytes : 0, out ? peer : -1,
              out ? NULL : buf, out ? NULL : p, out ? 0 : bytes, out ? -1 : peer, out_tag(x),
              in_tag(x), x->bad, 1, NULL, NULL, NULL, NULL, marked, differs);
}

/* One peer's message at the root through one_way: a message of more than
 * one segment (in normal mode), or any message in error mode; unpacked
 * when neither a mark nor another signature came. */
static int rooted_move(const simple__xchg_t *x, simple__comm_t *c, int k, size_t b, int lane,
                       int out, int *marked, int *differs) {
  int mark = 0, differ = 0, unpack = 0;
  void *at = NULL;
  if (!x->bad)
    at = out ? (void *)(uintptr_t)x->out(x->ctx, k, lane) : x->in(x->ctx, k, lane, &unpack);
  int rc = one_way(x, c, k, at, NULL, b, out, &mark, &differ);
  if (!rc && unpack && !mark && !differ) x->unpack(x->ctx, k, at);
  *marked |= mark;
  *differs |= differ;
  return rc;
}

int simple__xchg_rooted(const simple__xchg_t *x, int root_node, int lanes, int lane, int out) {
  simple__net_req_t req[SIMPLE__XCHG_BATCH];
  int node_of[SIMPLE__XCHG_BATCH], unpack[SIMPLE__XCHG_BATCH];
  void *at[SIMPLE__XCHG_BATCH];
  simple__comm_t *c = simple__xchg_lane(x->n, lane);
  int P = x->n->nodes, rc = 0, k = 0, marked = 0, differs = 0;
  int tag = out_tag(x), want = in_tag(x);
  while (k < P && !rc) {
    int m = 0, big = -1;
    size_t big_bytes = 0;
    for (; k < P && m < SIMPLE__XCHG_BATCH && !rc; k++) {
      if (k == root_node || simple__xchg_rooted_lane(x->n, k, root_node, lanes) != lane) continue;
      unpack[m] = 0;
      /* Empty messages are not sent (an empty one is a mark, net.h). */
      size_t b = out ? x->out_bytes(x->ctx, k) : x->in_bytes(x->ctx, k);
      if (b == 0) continue;
      /* Error mode, and a message of several segments, go through move
       * (in segments, as the peer's end sends or takes them: xchg.c's
       * error path), after the batch before them. */
      if (x->bad || b > pair_seg(x->n, k)) {
        big = k++;
        big_bytes = b;
        break;
      }
      if (out) {
        at[m] = (void *)x->out(x->ctx, k, lane);
        /* As move would send a single segment: the last one's flag set. */
        rc = simple__net_isend(c, at[m], b, k, seg_tag(tag, 0, 1), &req[m]);
      } else {
        at[m] = x->in(x->ctx, k, lane, &unpack[m]);
        rc = simple__net_irecv(c, at[m], b, k, want, &req[m]);
      }
      if (!rc) node_of[m++] = k;
    }
    /* A mark, or another signature, in a batch spoils only its own
     * message: the others are unpacked, whatever the verdict (the root's
     * buffer is written either way where messages land in it directly).
     * A mark comes with the rest of a peer's MOVE_WINDOW marks, taken
     * here. */
    for (int j = 0; j < m; j++) {
      int got = tag;
      int rc2 = out ? simple__net_waitall(&req[j], 1) : simple__net_wait_tag(&req[j], &got);
      if (rc2 == SIMPLE__NET_MARK) {
        marked = 1;
        unpack[j] = 0;
        if (!rc) rc = drain_marks(c, node_of[j], got, MOVE_WINDOW - 1);
      } else if (rc2 && !rc) {
        rc = rc2;
      } else if (!rc2 && tag_body(got) != tag) {
        differs = 1;
        unpack[j] = 0;
      }
    }
    for (int j = 0; j < m && !rc; j++)
      if (unpack[j]) x->unpack(x->ctx, node_of[j], at[j]);
    if (big >= 0 && !rc) rc = rooted_move(x, c, big, big_bytes, lane, out, &marked, &differs);
  }
  return rc ? rc : x->bad || marked ? SIMPLE_ERR_PEER : differs ? SIMPLE_ERR_ARG : 0;
}

/* simple__xchg_rooted_peer, from or into p's pieces when set. */
static int rooted_peer(const simple__xchg_t *x, int root_node, int lane, void *buf,
                       const pieces_t *p, size_t bytes, int out) {
  if (bytes == 0) return 0; /* empty messages are not sent (net.h) */
  simple__comm_t *c = simple__xchg_lane(x->n, lane);
  int marked = 0, differs = 0;
  int rc = one_way(x, c, root_node, buf, p, bytes, out, &marked, &differs);
  return rc ? rc : x->bad || marked ? SIMPLE_ERR_PEER : differs ? SIMPLE_ERR_ARG : 0;
}

int simple__xchg_rooted_peer(const simple__xchg_t *x, int root_node, int lane, void *buf,
                             size_t bytes, int out) {
  return rooted_peer(x, root_node, lane, buf, NULL, bytes, out);
}

int simple__xchg_rooted_peer_pieces(const simple__xchg_t *x, int root_node, int lane,
                                    const simple__net_piece_t *pieces, int np, size_t bytes,
                                    int out) {
  pieces_t p = {pieces, np};
  return rooted_peer(x, root_node, lane, NULL, &p, bytes, out);
}
