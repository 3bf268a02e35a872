/* The SMP node library: collectives among the threads of one process.
 *
 * Every call has the same shape: each thread publishes its buffers in its
 * slot, one barrier makes them visible (and combines the argument checks),
 * the threads work directly on each other's buffers, and, where a thread
 * writes into another's buffer, a last barrier keeps everyone in the call
 * until all writes are done. */
#include <stdlib.h>
#include <string.h>

#include "node/node_sync.h"
#include "node/ops.h"
#include "run/job.h"
#include "simple/node.h"

/* The accumulator a thread scans through: small enough to stay in L1. */
#define CHUNK_BYTES 2048

static int check_root(const simple_t *s, int root) {
  return root < 0 || root >= s->node->threads ? SIMPLE_ERR_RANK : 0;
}

/* Whether the data of a call of count elements of type travels in the
 * posted lines themselves: up to `limit` bytes (at most
 * SIMPLE__INLINE_BYTES). Either way the call starts with the exchange, so
 * a thread whose count or type is wrong still meets the others there and
 * hands them its error. */
static int posted(size_t count, simple_type_t type, size_t limit) {
  return count <= limit && count * simple_type_size(type) <= limit;
}

/* The posted path's limits by call. It saves a barrier, but a reader
 * takes the data from lines another core has just written, one transfer
 * per 64 bytes past the first 48, where the sliced path reads the
 * callers' buffers: with 2 threads an allreduce of 512 bytes took
 * 0.97-1.00 us posted against 0.44-0.54 sliced, one of 96 bytes
 * 0.38-0.45 against 0.43-0.48 (the table in docs/api.md, "the posted
 * path's data"). A reduce (only the root reads lines) and an exscan came
 * out no faster sliced up to the slot's size, so they keep the posted
 * path to there. Measured with 2 threads only: with more, a posted
 * allreduce reads more lines per thread and a barrier costs more, and
 * which grows faster is not measured. */
#define POSTED_ALLREDUCE 112 /* the sequence number's line and one more */
#define POSTED_BCAST     256
#define POSTED_SCAN      256
#define POSTED_ALL       SIMPLE__INLINE_BYTES
/* The posted data lands in the slot, and combine_posted's accumulator
 * has the slot's size. */
_Static_assert(POSTED_ALLREDUCE <= SIMPLE__INLINE_BYTES && POSTED_BCAST <= SIMPLE__INLINE_BYTES &&
                   POSTED_SCAN <= SIMPLE__INLINE_BYTES,
               "a posted limit fits a slot");

int simple_node_barrier(simple_t *s) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  /* The counting barrier, not an exchange of empty posted lines: on the
   * development VM (two cores, 2 threads) it took 0.29 us against 0.36 for
   * the lines, where a thread's own line and the other's line each cross
   * between the cores; with data to move the lines win (a counting barrier
   * then reads the slots as well). */
  return simple__node_finish(s);
}

int simple_node_bcast(simple_t *s, void *buf, size_t count, simple_type_t type, int root) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  int rc, err = simple__check_buffer(buf, count, type);
  if (!err) err = check_root(s, root);
  size_t bytes = err ? 0 : count * simple_type_size(type);
  /* Small: the root's data travels in its line, and nobody waits for
   * anybody to finish reading a buffer. Large: the root's buffer, copied
   * out by every thread (simple__node_fan_out), and a closing barrier. */
  int small = posted(count, type, POSTED_BCAST);
  if (!small) {
    simple__slot_t *mine = simple__node_my_slot(s);
    mine->send = mine->recv = buf;
  }
  const simple__slot_t *lines =
      simple__node_exchange(s, buf, small && s->thread == root ? bytes : 0, err, &rc);
  if (!lines) return simple__node_verdict(s, rc);
  if (small) {
    if (s->thread != root && bytes) memcpy(buf, lines[root].data, bytes);
    return 0;
  }
  if (bytes) simple__node_fan_out(simple__node_slots(s), s->node->threads, root, s->thread, bytes);
  return simple__node_finish(s);
}

int simple_node_share(simple_t *s, void **ptr, int root) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  int rc, err = ptr ? check_root(s, root) : SIMPLE_ERR_ARG;
  simple__slot_t *slots = simple__node_publish(s, NULL, NULL, ptr ? *ptr : NULL, 0, err, &rc);
  if (!slots) return simple__node_verdict(s, rc);
  /* No closing barrier: the slots alternate by call, and no thread can
   * publish into this call's slots again before every thread has read them
   * (that takes passing the next call's barrier). */
  *ptr = slots[root].ptr;
  return 0;
}

/* ------------------------------------------------------------------------
 * Reductions and scans. */

typedef enum { REDUCE, ALLREDUCE, SCAN, EXSCAN } combine_kind_t;

void simple__node_scan_slice(const simple__slot_t *slots, int r, int exclusive, simple_type_t type,
                             simple_op_t op, size_t lo, size_t hi, unsigned char *total) {
  _Alignas(SIMPLE__CACHE_LINE) unsigned char acc[CHUNK_BYTES];
  _Alignas(SIMPLE__CACHE_LINE) unsigned char tmp[CHUNK_BYTES];
  size_t es = simple_type_size(type), per = CHUNK_BYTES / es;
  for (size_t off = lo; off < hi; off += per) {
    size_t m = hi - off < per ? hi - off : per, bytes = m * es, at = off * es;
#define SRC(u) ((const unsigned char *)slots[u].send + at)
#define DST(u) ((unsigned char *)slots[u].recv + at)
    memcpy(acc, SRC(0), bytes);
    if (!exclusive) {
      if (DST(0) != SRC(0)) memcpy(DST(0), acc, bytes);
      for (int u = 1; u < r; u++) {
        simple__op_apply(op, type, acc, SRC(u), m);
        memcpy(DST(u), acc, bytes);
      }
    } else {
      for (int u = 1; u < r; u++) {
        /* Read thread u's input before its output overwrites it in place. */
        memcpy(tmp, SRC(u), bytes);
        memcpy(DST(u), acc, bytes);
        if (u + 1 < r || total) simple__op_apply(op, type, acc, tmp, m);
      }
    }
    if (total) memcpy(total + at, acc, bytes);
#undef SRC
#undef DST
  }
}

/* The path for inputs that fit in a posted line: every thread combines the
 * copies in the lines for itself and writes only its own buffer. Costs one
 * line written and r - 1 read per thread, against two barriers for the
 * sliced path. */
static void combine_posted(const simple__slot_t *lines, int r, int me, int root,
                           combine_kind_t kind, simple_type_t type, simple_op_t op, size_t count,
                           void *recv) {
  int last;
  switch (kind) {
    case REDUCE:
      if (me != root) return;
      last = r - 1;
      break;
    case ALLREDUCE: last = r - 1; break;
    case SCAN: last = me; break;
    default: /* EXSCAN */
      if (me == 0) return;
      last = me - 1;
      break;
  }
  _Alignas(SIMPLE__CACHE_LINE) unsigned char acc[SIMPLE__INLINE_BYTES];
  size_t bytes = count * simple_type_size(type);
  memcpy(acc, lines[0].data, bytes);
  for (int u = 1; u <= last; u++) simple__op_apply(op, type, acc, lines[u].data, count);
  memcpy(recv, acc, bytes);
}

static int combine(simple_t *s, const void *send, void *recv, size_t count, simple_type_t type,
                   simple_op_t op, int root, combine_kind_t kind) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  int me = s->thread, r = s->node->threads;
  int want_recv = kind != REDUCE || me == root;
  int err = kind == REDUCE ? check_root(s, root) : 0;
  if (!err) err = simple__op_check(op, type);
  if (!err && send == SIMPLE_IN_PLACE) {
    /* In place only where the thread has a receive buffer to hold its input. */
    if (!want_recv) err = SIMPLE_ERR_ARG;
    send = recv;
  }
  if (!err) err = simple__check_buffer(send, count, type);
  if (!err && want_recv) err = simple__check_buffer(recv, count, type);
  size_t es = simple_type_size(type);
  size_t limit = kind == ALLREDUCE ? POSTED_ALLREDUCE : kind == SCAN ? POSTED_SCAN : POSTED_ALL;
  int rc, small = posted(count, type, limit);
  if (!small) {
    simple__slot_t *mine = simple__node_my_slot(s);
    mine->send = send;
    mine->recv = recv;
  }
  const simple__slot_t *lines =
      simple__node_exchange(s, send, small && !err ? count * es : 0, err, &rc);
  if (!lines) return simple__node_verdict(s, rc);
  if (small) {
    if (count) combine_posted(lines, r, me, root, kind, type, op, count, recv);
    return 0;
  }
  const simple__slot_t *slots = simple__node_slots(s);
  size_t lo, hi;
  simple__node_slice(count, es, r, me, &lo, &hi);
  if (lo < hi) {
    if (kind == REDUCE) {
      simple__node_combine_into(slots, r, type, op, lo, hi, slots[root].recv);
    } else if (kind == ALLREDUCE) {
      /* Combine into thread 0's buffer, then copy the finished slice to the
       * others: each element of buffer 0 is read before it is written. */
      simple__node_combine_into(slots, r, type, op, lo, hi, slots[0].recv);
      for (int u = 1; u < r; u++)
        memcpy((char *)slots[u].recv + lo * es, (char *)slots[0].recv + lo * es, (hi - lo) * es);
    } else {
      simple__node_scan_slice(slots, r, kind == EXSCAN, type, op, lo, hi, NULL);
    }
  }
  return simple__node_finish(s);
}

int simple_node_reduce(simple_t *s, const void *send, void *recv, size_t count, simple_type_t type,
                       simple_op_t op, int root) {
  return combine(s, send, recv, count, type, op, root, REDUCE);
}

int simple_node_allreduce(simple_t *s, const void *send, void *recv, size_t count,
                          simple_type_t type, simple_op_t op) {
  return combine(s, send, recv, count, type, op, 0, ALLREDUCE);
}

int simple_node_scan(simple_t *s, const void *send, void *recv, size_t count, simple_type_t type,
                     simple_op_t op) {
  return combine(s, send, recv, count, type, op, 0, SCAN);
}

int simple_node_exscan(simple_t *s, const void *send, void *recv, size_t count, simple_type_t type,
                       simple_op_t op) {
  return combine(s, send, recv, count, type, op, 0, EXSCAN);
}

/* ------------------------------------------------------------------------
 * Shared memory. */

int simple_node_malloc(simple_t *s, size_t bytes, void **ptr) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  int rc, err = ptr ? 0 : SIMPLE_ERR_ARG;
  if (ptr) *ptr = NULL;
  simple__slot_t *slots = simple__node_publish(s, NULL, NULL, NULL, bytes, err, &rc);
  if (!slots) return simple__node_verdict(s, rc);
  /* Every thread checks the sizes itself and so reaches the same verdict
   * without another synchronization. */
  for (int u = 1; u < s->node->threads; u++)
    if (slots[u].n != slots[0].n) return SIMPLE_ERR_ARG;
  if (s->thread == 0) {
    void *p = NULL;
    if (posix_memalign(&p, SIMPLE__CACHE_LINE, bytes ? bytes : 1) != 0) p = NULL;
    slots[0].ptr = p;
  }
  if ((rc = simple__node_finish(s)) != 0) return rc;
  if (!slots[0].ptr) return SIMPLE_ERR_NOMEM;
  *ptr = slots[0].ptr;
  return 0;
}

int simple_node_free(simple_t *s, void *ptr) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  int rc;
  simple__slot_t *slots = simple__node_publish(s, NULL, NULL, ptr, 0, 0, &rc);
  if (!slots) return simple__node_verdict(s, rc);
  for (int u = 1; u < s->node->threads; u++)
    if (slots[u].ptr != slots[0].ptr) return SIMPLE_ERR_ARG;
  if (s->thread == 0) free(ptr);
  return 0;
}
