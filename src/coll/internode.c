/* Ordered reductions and scans among nodes, one thread per node per lane. */
#include <stdint.h>
#include <string.h>

#include "coll/coll.h"
#include "net/net.h"

/* Every step goes through simple__xchg_sendrecv, which carries the
 * verdict (error marks) and the call's signature (in the MPI tag: bad
 * becomes SIMPLE__XCHG_SIG_DIFFERS where another one came). */

/* buf = theirs (op) buf where the partner's block lies below ours, else
 * buf = buf (op) theirs: rank order whatever the op (theirs is destroyed). */
static void combine_in_order(simple_op_t op, simple_type_t type, unsigned char *buf,
                             unsigned char *theirs, size_t count, int theirs_below) {
  if (!theirs_below) {
    simple__op_apply(op, type, buf, theirs, count);
    return;
  }
  simple__op_apply(op, type, theirs, buf, count);
  memcpy(buf, theirs, count * simple_type_size(type));
}

/* Non-power-of-two node counts: nodes 2i and 2i+1 (i < rem) fold into one,
 * the odd one keeping (even op odd); every other node keeps its data.
 * Returns this node's rank among the pof2 survivors, or -1 if it sat out. */
static int fold_in(simple__node_t *n, int lane, void *buf, void *tmp, size_t count,
                   simple_type_t type, simple_op_t op, int pof2, int *rc, int *bad, unsigned sig) {
  int me = n->node, rem = n->nodes - pof2;
  size_t bytes = count * simple_type_size(type);
  if (me >= 2 * rem) return me - rem;
  if (me % 2 == 0) {
    *rc =
        simple__xchg_sendrecv(n, lane, buf, bytes, me + 1, NULL, 0, -1, SIMPLE__TAG_FOLD, bad, sig);
    return -1;
  }
  *rc = simple__xchg_sendrecv(n, lane, NULL, 0, -1, tmp, bytes, me - 1, SIMPLE__TAG_FOLD, bad, sig);
  if (!*rc && !*bad) combine_in_order(op, type, buf, tmp, count, 1); /* the even node is lower */
  return me / 2;
}

static int fold_out(simple__node_t *n, int lane, void *buf, size_t bytes, int pof2, int *bad,
                    unsigned sig) {
  int me = n->node, rem = n->nodes - pof2;
  if (me >= 2 * rem) return 0;
  if (me % 2)
    return simple__xchg_sendrecv(n, lane, buf, bytes, me - 1, NULL, 0, -1, SIMPLE__TAG_UNFOLD, bad,
                                 sig);
  return simple__xchg_sendrecv(n, lane, NULL, 0, -1, buf, bytes, me + 1, SIMPLE__TAG_UNFOLD, bad,
                               sig);
}

/* The schedules' result: an MPI error, else the verdict (bad 2: this node
 * received a signature other than its own, SIMPLE__XCHG_SIG_DIFFERS). */
static int verdict(int rc, int bad) {
  return rc ? rc : bad == SIMPLE__XCHG_SIG_DIFFERS ? SIMPLE_ERR_ARG : bad ? SIMPLE_ERR_PEER : 0;
}

/* The node rank of survivor `newrank`. */
static int real_rank(int newrank, int rem) {
  return newrank < rem ? 2 * newrank + 1 : newrank + rem;
}

static int pof2_below(int P) {
  int p = 1;
  while (p * 2 <= P) p *= 2;
  return p;
}

/* The node's input where the schedule may read it: NULL when buf holds it
 * already. With a fold (P not a power of two) it is copied into buf first;
 * otherwise the first step reads it where it is (first_step). */
static const unsigned char *input_of(const void *in, void *buf, size_t bytes, int rem, int bad) {
  if (!in || in == buf || bad) return NULL;
  if (!rem) return in;
  memcpy(buf, in, bytes);
  return NULL;
}

/* A combine segment by segment as a partner's data lands
 * (simple__xchg_sendrecv_each). higher: buf = buf op in (a first step's
 * higher node, which received the partner's data straight into buf and
 * combines its own input in; the reduce tree, in = the child's data).
 * Else buf = in op theirs (a first step's lower node: its input copied
 * in a segment at a time, while in cache, then the partner's combined). */
typedef struct {
  simple_op_t op;
  simple_type_t type;
  size_t es;
  unsigned char *buf;
  const unsigned char *in, *theirs;
  int higher;
} combine_t;

static void combine_arrived(void *arg, size_t off, size_t len) {
  const combine_t *f = arg;
  if (!f->higher) memcpy(f->buf + off, f->in + off, len);
  simple__op_apply(f->op, f->type, f->buf + off, f->higher ? f->in + off : f->theirs + off,
                   len / f->es);
}

/* The first step of a schedule whose input is elsewhere (first, not buf):
 * elements s0 .. s1 go to the partner read from first; the partner's
 * elements k0 .. k1 land in buf (higher node) or tmp and are combined
 * with first's into buf as each segment arrives, overlapping the pass
 * with the transfer. Against a copy of the input into buf before the
 * exchange and a combine after it: one pass over k1 - k0 elements instead
 * of up to three (and the copy of the whole input). */
static int first_step(simple__node_t *n, int lane, const unsigned char *first, unsigned char *buf,
                      unsigned char *tmp, size_t s0, size_t s1, size_t k0, size_t k1, int partner,
                      int higher, simple_type_t type, simple_op_t op, int tag, int *bad,
                      unsigned sig) {
  size_t es = simple_type_size(type);
  combine_t f = {op, type, es, buf + k0 * es, first + k0 * es, tmp + k0 * es, higher};
  return simple__xchg_sendrecv_each(n, lane, first + s0 * es, (s1 - s0) * es, partner,
                                    higher ? f.buf : tmp + k0 * es, (k1 - k0) * es, partner, tag,
                                    bad, sig, combine_arrived, &f);
}

/* First element of piece i when count elements are cut into k pieces. */
static size_t piece(size_t count, int k, int i) {
  size_t q = count / (size_t)k, r = count % (size_t)k;
  return (size_t)i * q + ((size_t)i < r ? (size_t)i : r);
}

int simple__coll_net_allreduce(simple__node_t *n, int lane, const void *in, void *buf, void *tmp,
                               size_t count, simple_type_t type, simple_op_t op, int rd, int bad,
                               unsigned sig) {
  int P = n->nodes, pof2 = pof2_below(P), rem = P - pof2, rc = 0;
  size_t es = simple_type_size(type), bytes = count * es;
  unsigned char *b = buf, *t = tmp;
  const unsigned char *first = input_of(in, buf, bytes, rem, bad);
  int newrank = fold_in(n, lane, buf, tmp, count, type, op, pof2, &rc, &bad, sig);
  if (rc) return rc;
  if (newrank >= 0 && rd) {
    for (int mask = 1; mask < pof2; mask <<= 1, first = NULL) {
      int newpartner = newrank ^ mask, partner = real_rank(newpartner, rem);
      if (first) {
        rc = first_step(n, lane, first, buf, tmp, 0, count, 0, count, partner, newpartner < newrank,
                        type, op, SIMPLE__TAG_RD, &bad, sig);
        if (rc) return rc;
        continue;
      }
      rc = simple__xchg_sendrecv(n, lane, buf, bytes, partner, tmp, bytes, partner, SIMPLE__TAG_RD,
                                 &bad, sig);
      if (rc) return rc;
      if (!bad) combine_in_order(op, type, buf, tmp, count, newpartner < newrank);
    }
  } else if (newrank >= 0) {
    /* Reduce-scatter by recursive halving, partners at distance 1, 2, 4...:
     * at each step keep one half of the current window of pieces (the lower
     * one if our bit `mask` is 0), send the other, and combine what the
     * partner sent for ours. Both partners then hold the combination over
     * an aligned block of 2 mask ranks, the lower block on the left: rank
     * order, whatever the op. */
    int lo = 0, hi = pof2; /* window of pieces still ours */
    for (int mask = 1; mask < pof2; mask <<= 1, first = NULL) {
      int newpartner = newrank ^ mask, partner = real_rank(newpartner, rem);
      int mid = lo + (hi - lo) / 2;
      int keep_lo = newrank < newpartner ? lo : mid, keep_hi = newrank < newpartner ? mid : hi;
      int send_lo = newrank < newpartner ? mid : lo, send_hi = newrank < newpartner ? hi : mid;
      size_t k0 = piece(count, pof2, keep_lo), k1 = piece(count, pof2, keep_hi);
      size_t s0 = piece(count, pof2, send_lo), s1 = piece(count, pof2, send_hi);
      /* A bad node's buffers may be NULL: no address is formed from them.
       * These steps pair every surviving node with every other through
       * the hypercube, so a signature that differs anywhere meets some
       * node here. */
      if (first)
        rc = first_step(n, lane, first, b, t, s0, s1, k0, k1, partner, newpartner < newrank, type,
                        op, SIMPLE__TAG_RS, &bad, sig);
      else
        rc = simple__xchg_sendrecv(n, lane, bad ? NULL : b + s0 * es, (s1 - s0) * es, partner,
                                   bad ? NULL : t + k0 * es, (k1 - k0) * es, partner,
                                   SIMPLE__TAG_RS, &bad, sig);
      if (rc) return rc;
      if (!bad && !first)
        combine_in_order(op, type, b + k0 * es, t + k0 * es, k1 - k0, newpartner < newrank);
      lo = keep_lo;
      hi = keep_hi;
    }
    /* Allgather by recursive doubling, undoing the halving steps in reverse
     * order: the partner holds the sibling window. */
    for (int mask = pof2 >> 1; mask >= 1; mask >>= 1) {
      int newpartner = newrank ^ mask, partner = real_rank(newpartner, rem);
      int width = hi - lo;
      int plo = newpartner < newrank ? lo - width : hi, phi = plo + width;
      size_t m0 = piece(count, pof2, lo), m1 = piece(count, pof2, hi);
      size_t p0 = piece(count, pof2, plo), p1 = piece(count, pof2, phi);
      rc = simple__xchg_sendrecv(n, lane, bad ? NULL : b + m0 * es, (m1 - m0) * es, partner,
                                 bad ? NULL : b + p0 * es, (p1 - p0) * es, partner, SIMPLE__TAG_AG,
                                 &bad, sig);
      if (rc) return rc;
      if (plo < lo)
        lo = plo;
      else
        hi = phi;
    }
  }
  rc = fold_out(n, lane, buf, bytes, pof2, &bad, sig);
  return verdict(rc, bad);
}

/* Node k's blocks in an allgather's result: block bytes per thread, in
 * rank order. Nodes lo..hi-1 hold one contiguous range. */
static size_t node_at(const simple__node_t *n, int k, size_t block) {
  return (size_t)n->first_pid[k] * block;
}

int simple__coll_net_allgather(simple__node_t *n, int lane, void *buf, size_t block, int bad,
                               unsigned sig) {
  int P = n->nodes, me = n->node, rc = 0;
  unsigned char *b = buf;
  if ((P & (P - 1)) == 0) {
    /* Recursive doubling: at step `mask` this node holds the aligned
     * window of mask nodes around it and swaps it for its partner's. */
    for (int mask = 1; mask < P && !rc; mask <<= 1) {
      int partner = me ^ mask, lo = me & ~(mask - 1), plo = partner & ~(mask - 1);
      size_t at = node_at(n, lo, block), len = node_at(n, lo + mask, block) - at;
      size_t pat = node_at(n, plo, block), plen = node_at(n, plo + mask, block) - pat;
      /* A bad node's buf may be NULL: no address is formed from it. */
      rc = simple__xchg_sendrecv(n, lane, bad ? NULL : b + at, len, partner, bad ? NULL : b + pat,
                                 plen, partner, SIMPLE__TAG_ALLGATHER, &bad, sig);
    }
  } else {
    /* Ring: at step i node me passes node (me - i)'s blocks on to me + 1
     * and receives node (me - 1 - i)'s from me - 1. */
    int to = (me + 1) % P, from = (me - 1 + P) % P;
    for (int i = 0; i < P - 1 && !rc; i++) {
      int out = (me - i + P) % P, in = (me - 1 - i + 2 * P) % P;
      size_t at = node_at(n, out, block), len = node_at(n, out + 1, block) - at;
      size_t pat = node_at(n, in, block), plen = node_at(n, in + 1, block) - pat;
      rc = simple__xchg_sendrecv(n, lane, bad ? NULL : b + at, len, to, bad ? NULL : b + pat, plen,
                                 from, SIMPLE__TAG_ALLGATHER, &bad, sig);
    }
  }
  return verdict(rc, bad);
}

/* The rooted reduce (simple__coll_net_reduce_tree): the vector travels
 * (below 1 MiB, one way: xchg.c, msg_seg) in
 * segments of SIMPLE__XCHG_SEG_BYTES (63 KiB: under the TCP transport's
 * eager limit, as Open MPI's tuned pipeline reduce cuts 32-64 KiB), each
 * combined as it arrives while the next ones are in flight
 * (simple__xchg_sendrecv_each, combine_arrived). The first child's data
 * lands in buf when the node's input is elsewhere (in), a later child's
 * in tmp, each combined into buf (only commutative ops come here). */
int simple__coll_net_reduce_tree(simple__node_t *n, int lane, const void *in, void *buf, void *tmp,
                                 size_t count, simple_type_t type, simple_op_t op, int root_node,
                                 int bad, unsigned sig) {
  int P = n->nodes, rel = (n->node - root_node + P) % P, parent = -1, rc = 0, mask;
  size_t es = simple_type_size(type), bytes = count * es;
  /* mine: where this node's combination stands so far (in until the first
   * child's data has landed in buf and in has been combined into it). */
  const unsigned char *mine = in && in != buf ? in : buf;
  /* Up: at step 2^j a node whose bit j is set sends its combination over
   * its subtree to rel - 2^j and is done; the others receive from rel +
   * 2^j (if any) and combine. A child's tag that differs from this node's
   * sets bad (SIMPLE__XCHG_SIG_DIFFERS) and nothing of it is combined; a failed
   * child's marks set it to 1; with bad set, a child's segments are
   * drained and marks go up. */
  for (mask = 1; mask < P; mask <<= 1) {
    if (rel & mask) {
      parent = (rel - mask + root_node) % P;
      break;
    }
    if (rel + mask < P) {
      /* The first child into buf, combined with in (buf = child's op in);
       * any later one through tmp (buf = buf op child's). */
      int first = mine != buf;
      combine_t f = {op, type, es, buf, first ? mine : tmp, NULL, 1};
      rc = simple__xchg_sendrecv_each(n, lane, NULL, 0, -1, first ? buf : tmp, bytes,
                                      (rel + mask + root_node) % P, SIMPLE__TAG_REDUCE, &bad, sig,
                                      combine_arrived, &f);
      if (rc) return rc;
      mine = buf;
    }
  }
  if (parent >= 0)
    rc = simple__xchg_sendrecv(n, lane, mine, bytes, parent, NULL, 0, -1, SIMPLE__TAG_REDUCE, &bad,
                               sig);
  /* No verdict back down: like MPI_Reduce, a node is done once its data
   * has left (one message per tree edge). A node hears of a failure only
   * from below: the nodes on the way from a failed node to the root's. */
  return verdict(rc, bad);
}

int simple__coll_net_bcast_tree(simple__node_t *n, int lane, void *buf, size_t bytes, int root_node,
                                int bad, unsigned sig) {
  int P = n->nodes, rel = (n->node - root_node + P) % P, rc = 0, mask = 1;
  /* Down: a node other than the root receives from rel - 2^j, 2^j its
   * lowest set bit; then it sends to rel + 2^i for every 2^i below that
   * bit (every 2^i < P at the root), the largest first. */
  while (mask < P && !(rel & mask)) mask <<= 1;
  if (rel)
    rc = simple__xchg_sendrecv(n, lane, NULL, 0, -1, buf, bytes, (rel - mask + root_node) % P,
                               SIMPLE__TAG_BCAST, &bad, sig);
  for (mask >>= 1; mask > 0 && !rc; mask >>= 1)
    if (rel + mask < P)
      rc = simple__xchg_sendrecv(n, lane, buf, bytes, (rel + mask + root_node) % P, NULL, 0, -1,
                                 SIMPLE__TAG_BCAST, &bad, sig);
  return verdict(rc, bad);
}

int simple__coll_net_exscan(simple__node_t *n, int lane, void *part, void *res, void *tmp,
                            void *spare, size_t count, simple_type_t type, simple_op_t op, int bad,
                            unsigned sig) {
  int me = n->node, P = n->nodes, have = 0, rc = 0;
  size_t bytes = count * simple_type_size(type);
  unsigned char *pa = part, *re = res, *tm = tmp, *sp = spare, *x;
  for (int mask = 1; mask < P; mask <<= 1) {
    int partner = me ^ mask;
    if (partner >= P) continue; /* our block is the last; nobody above needs it */
    /* The lower node uses the upper's partial only to pass it on at a later
     * step: at the last step nothing goes down (for 2 nodes, one message
     * of n bytes, as MPI_Scan sends; an exchange costs 30% more on a link
     * whose ends each have one core). The lower node then hears of no
     * failure above it, on which its prefix does not depend. */
    int later = (mask << 1) < P;
    int up = partner > me; /* the partner's block lies above ours */
    /* The first block from below at the last step is the result itself:
     * received straight into res (nothing reaches res on a mark). */
    int direct = !up && !later && !have;
    rc = simple__xchg_sendrecv(n, lane, pa, bytes, !up && !later ? -1 : partner, direct ? re : tm,
                               bytes, up && !later ? -1 : partner, SIMPLE__TAG_SCAN, &bad, sig);
    if (rc) return rc;
    if (bad) continue;
    if (!up) {
      /* The partner's block lies just below ours: it goes on the left. */
      if (have) {
        memcpy(sp, tm, bytes);
        simple__op_apply(op, type, sp, re, count);
        x = re, re = sp, sp = x;
      } else {
        if (!direct) memcpy(re, tm, bytes);
        have = 1;
      }
      /* The partial is needed only if a later step sends it. */
      if (later) {
        simple__op_apply(op, type, tm, pa, count);
        x = pa, pa = tm, tm = x;
      }
    } else if (later) {
      simple__op_apply(op, type, pa, tm, count);
    }
  }
  if (bad) return verdict(0, bad);
  if (have && re != (unsigned char *)res) memcpy(res, re, bytes);
  return 0;
}
