#include "node/node_sync.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "node/ops.h"

/* Slices below this size are not worth a thread: the barrier that follows
 * costs more than combining 1 KiB. */
#define MIN_SLICE_BYTES 1024
/* The accumulator a thread combines through: small enough to stay in L1
 * while the r inputs stream past it. */
#define CHUNK_BYTES 2048

/* The barrier flag by which the leader tells the node that its threads'
 * signatures differ (the arrival flag is 1, a failed leader's work 2). */
#define MISMATCH_FLAG 4u

static int signatures_differ(const simple__slot_t *slots, int r, unsigned sig) {
  unsigned differ = 0;
  for (int u = 0; u < r; u++) differ |= slots[u].sig ^ sig;
  return differ != 0;
}

/* The node's threads called differently: every caller returns at once
 * (SIMPLE_ERR_FATAL, on which none of them touches the network), and the
 * entry point that set the signature turns it into the verdict. */
static simple__slot_t *mismatch(simple_t *s, int *rc) {
  s->mismatch = 1;
  *rc = SIMPLE_ERR_FATAL;
  return NULL;
}

int simple__node_mismatch(simple_t *s, int *ref) {
  const simple__slot_t *slots = simple__node_slots(s);
  int r = s->node->threads, best = 0, best_w = 0;
  s->mismatch = 0;
  /* The reference: the signature most threads posted, the lowest thread's
   * among equals. O(r^2) compares, on the failure path only. */
  for (int u = 0; u < r; u++) {
    int w = 0;
    for (int v = 0; v < r; v++) w += slots[v].sig == slots[u].sig;
    if (w > best_w) best = u, best_w = w;
  }
  if (ref) *ref = best;
  const simple__slot_t *mine = &slots[s->thread];
  if (mine->sig != slots[best].sig) return SIMPLE_ERR_ARG;
  return mine->err ? mine->err : SIMPLE_ERR_PEER;
}

/* A call's arguments into the thread's slot. */
static inline void put_args(simple__slot_t *mine, const void *send, void *recv, void *ptr,
                            size_t n) {
  mine->send = send;
  mine->recv = recv;
  mine->ptr = ptr;
  mine->n = n;
}

simple__slot_t *simple__node_publish(simple_t *s, const void *send, void *recv, void *ptr, size_t n,
                                     int err, int *rc) {
  if (s->node->nodes == 1) {
    /* One node: no call here has a leader (simple__node_publish_lead is
     * for inter-node steps), so every call can start with the exchange,
     * whose data line the caller may already have filled. */
    put_args(simple__node_my_slot(s), send, recv, ptr, n);
    return simple__node_exchange(s, NULL, 0, err, rc);
  }
  int lead;
  simple__slot_t *slots = simple__node_publish_lead(s, send, recv, ptr, n, err, rc, &lead);
  if (lead > 0) simple__node_lead_done(s, 0);
  return slots;
}

simple__slot_t *simple__node_publish_lead(simple_t *s, const void *send, void *recv, void *ptr,
                                          size_t n, int err, int *rc, int *lead) {
  simple__node_t *node = s->node;
  simple__slot_t *slots = node->slots[s->call++ & 1];
  simple__slot_t *mine = &slots[s->thread];
  put_args(mine, send, recv, ptr, n);
  mine->err = err;
  mine->sig = s->sig;
  s->sig = 0;
  unsigned flags = simple__barrier_lead(&node->barrier, err ? 1u : 0u, lead);
  /* The leader, last to arrive, compares the signatures for the node: one
   * posted line read per other thread, no extra barrier. */
  if (*lead && !(flags & SIMPLE__BARRIER_FATAL) &&
      signatures_differ(slots, node->threads, mine->sig)) {
    simple__barrier_lead_release(&node->barrier, MISMATCH_FLAG);
    flags |= MISMATCH_FLAG;
    *lead = 0;
  }
  if (*lead && flags) {
    simple__barrier_lead_release(&node->barrier, 0);
    *lead = (flags & SIMPLE__BARRIER_FATAL) ? 0 : -1;
  }
  if (!(flags & SIMPLE__BARRIER_FATAL) && (flags & MISMATCH_FLAG)) return mismatch(s, rc);
  *rc = (flags & SIMPLE__BARRIER_FATAL) ? SIMPLE_ERR_FATAL
        : err                           ? err
        : flags                         ? SIMPLE_ERR_PEER
                                        : 0;
  return *rc ? NULL : slots;
}

simple__slot_t *simple__node_exchange(simple_t *s, const void *data, size_t bytes, int err,
                                      int *rc) {
  simple__node_t *n = s->node;
  /* After a failure the lines may hold an earlier call's sequence number
   * from a thread that left mid-call: nothing read from them is this call's. */
  if (simple__job_failed()) {
    *rc = SIMPLE_ERR_FATAL;
    return NULL;
  }
  /* The call's parity selects the slots; its sequence number is k + 1,
   * never what a slot of that parity held before (src/run/job.c). */
  unsigned k = s->call++;
  simple__slot_t *slots = n->slots[k & 1], *mine = &slots[s->thread];
  k++;
  if (bytes) memcpy(mine->data, data, bytes);
  mine->err = err;
  mine->sig = s->sig;
  s->sig = 0;
  /* Sequentially consistent, as the barrier's release: a waiter that went
   * to sleep after its last look at seq is seen in sleepers. */
  atomic_store_explicit(&mine->seq, k, memory_order_seq_cst);
  simple__wake_all(&mine->seq, &mine->sleepers);
  /* Each other thread's error and signature share the line just read, as
   * one word: on the fast path a load and an xor per thread, nothing kept
   * across the waits (a loop that kept a peer flag and the signatures'
   * difference apart cost about 12 ns of a 0.13 us 8-byte broadcast on
   * 1 x 2). */
  uint64_t want = simple__posted_check(0, mine->sig), seen = 0;
  for (int u = 0; u < n->threads; u++) {
    if (u == s->thread) continue;
    unsigned v;
    while ((v = atomic_load_explicit(&slots[u].seq, memory_order_acquire)) != k)
      if (simple__wait_collective(&slots[u].seq, v, &slots[u].sleepers) != 0) {
        *rc = SIMPLE_ERR_FATAL;
        return NULL;
      }
    seen |= slots[u].check ^ want;
  }
  int peer = 0;
  if (seen)
    for (int u = 0; u < n->threads; u++) {
      if (u == s->thread) continue;
      if (slots[u].sig != mine->sig) return mismatch(s, rc);
      if (slots[u].err) peer = 1;
    }
  *rc = err ? err : peer ? SIMPLE_ERR_PEER : 0;
  return *rc ? NULL : slots;
}

int simple__node_lead_done(simple_t *s, int rc) {
  simple__barrier_lead_release(&s->node->barrier, rc ? 2u : 0u);
  return rc;
}

int simple__node_finish(simple_t *s) {
  unsigned flags = simple__barrier_wait(&s->node->barrier, 0);
  return (flags & SIMPLE__BARRIER_FATAL) ? SIMPLE_ERR_FATAL : 0;
}

/* The source joins the copying from these many bytes on: below, its
 * writes into the others' buffers cost more than they save (the lines then
 * move between cores when their owner reads them). simple-bench coll -N 1
 * -t 2, 4 alternating runs: 4 KiB 0.92x with the source joining, 32 KiB
 * 1.69x, 1 MiB 2.68x, 4 MiB 2.16x. */
#define FAN_OUT_SHARED_BYTES (16u << 10)

void simple__node_fan_out(const simple__slot_t *slots, int r, int src, int me, size_t bytes) {
  size_t head =
      bytes < FAN_OUT_SHARED_BYTES ? 0 : bytes / (size_t)r & ~(size_t)(SIMPLE__CACHE_LINE - 1);
  const unsigned char *from = slots[src].send;
  if (me == src) {
    for (int t = 0; t < r && head; t++)
      if (t != src) memcpy(slots[t].recv, from, head);
  } else if (bytes > head) {
    memcpy((unsigned char *)slots[me].recv + head, from + head, bytes - head);
  }
}

void *simple__node_scratch(simple_t *s, size_t bytes) {
  simple__buf_t *b = &s->node->scratch[s->call & 1];
  return simple__buf_grow(b, bytes) ? NULL : b->p;
}

void simple__node_combine_into(const simple__slot_t *slots, int r, simple_type_t type,
                               simple_op_t op, size_t lo, size_t hi, void *dest) {
  _Alignas(SIMPLE__CACHE_LINE) unsigned char acc[CHUNK_BYTES];
  size_t es = simple_type_size(type), per = CHUNK_BYTES / es;
  for (size_t off = lo; off < hi; off += per) {
    size_t m = hi - off < per ? hi - off : per, at = off * es;
    memcpy(acc, (const unsigned char *)slots[0].send + at, m * es);
    for (int u = 1; u < r; u++)
      simple__op_apply(op, type, acc, (const unsigned char *)slots[u].send + at, m);
    memcpy((unsigned char *)dest + at, acc, m * es);
  }
}

void simple__node_slice(size_t count, size_t elem, int r, int me, size_t *lo, size_t *hi) {
  size_t nslices = count * elem / MIN_SLICE_BYTES;
  if (nslices < 1) nslices = 1;
  if (nslices > (size_t)r) nslices = (size_t)r;
  /* Boundaries on cache lines, so no two threads write one line. */
  size_t line = SIMPLE__CACHE_LINE / elem ? SIMPLE__CACHE_LINE / elem : 1;
  size_t per = (count + nslices - 1) / nslices;
  per = (per + line - 1) / line * line;
  *lo = (size_t)me < nslices ? (size_t)me * per : count;
  if (*lo > count) *lo = count;
  *hi = *lo + per < count ? *lo + per : count;
}
