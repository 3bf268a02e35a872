/* simple_allgather and simple_allgatherv over every thread of the job.
 *
 * One node: every thread copies every other thread's block straight from
 * that thread's buffer into its own recv (r n bytes per thread, all at
 * once), then a closing barrier keeps each buffer alive until read.
 * Cost: 2b + p n/B.
 *
 * Several nodes, packed (choose.c: the v form, and the regular form's
 * small blocks): the node's blocks are assembled, in rank order, in the
 * node's scratch after a verdict word (0, or 1 when the node found an
 * error: the job's verdict rides in the exchange, 8 bytes per node), the
 * masters exchange the node blocks with one MPI_Allgatherv among nodes
 * into a second scratch area (packed, node order = rank order, each node's
 * word first), and every thread copies the blocks out to its recv at their
 * displacements, unless some node's word says it failed (then every
 * thread returns SIMPLE_ERR_PEER, the offender its code). MPI forbids the
 * send block inside the receive buffer (without MPI_IN_PLACE, which
 * src/net does not offer), hence the
 * separate node block; receiving into the scratch (src/xchg's room)
 * rather than into the master's recv lets every thread copy out at once
 * and return without a closing barrier (the room is written again only
 * after the next call's publish, which every thread must reach).
 * Cost: 3b (publish, node block complete, exchange done: one more than the
 * header's 2b) + r n/B + allgather among P of r n bytes + p n/B. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/slot_views.h"
#include "simple/coll.h"

typedef struct {
  const size_t *counts, *displs; /* NULL: count elements per thread, rank order */
  size_t count;
  int v; /* the v form (counts NULL there is an error) */
} layout_t;

static size_t cnt(const layout_t *l, int i) { return l->counts ? l->counts[i] : l->count; }
static size_t dsp(const layout_t *l, int i) {
  return l->counts ? l->displs[i] : (size_t)i * l->count;
}

#define ALIGN_UP(x) (((x) + SIMPLE__CACHE_LINE - 1) / SIMPLE__CACHE_LINE * SIMPLE__CACHE_LINE)

/* The verdict word that leads every node's block among nodes. */
#define WORD sizeof(long long)

/* Thread 0's plan of the exchange among nodes (coll.h): in the room,
 * node block (word + blocks, nb) | packed result (ab); its table, the
 * bytes per node (word included), then their offsets (2 P words). NULL
 * if out of memory. */
static simple__coll_plan_t *plan(simple_t *s, const layout_t *l, size_t nb, size_t ab, size_t es) {
  simple__node_t *n = s->node;
  int P = n->nodes;
  simple__coll_plan_t *pl;
  if (simple__coll_plan(s, nb + ab, 2 * (size_t)P, &pl)) return NULL;
  size_t *nbytes = pl->tab, *ndispl = nbytes + P, at = 0;
  for (int k = 0; k < P; k++) {
    size_t e = 0;
    for (int i = n->first_pid[k]; i < n->first_pid[k + 1]; i++) e += cnt(l, i);
    nbytes[k] = WORD + e * es;
    ndispl[k] = at;
    at += nbytes[k];
  }
  return pl;
}

/* After the direct path's exchange failed: which node to blame. The
 * schedule reaches every node, so either every node succeeded or every
 * node failed (but for an MPI error); on failure the nodes swap one word
 * each (bit 0: the node found an error in its arguments; above it, its
 * call's signature) and return as the packed path does: SIMPLE_ERR_PEER
 * when some node found an error, else SIMPLE_ERR_ARG on a node whose call
 * differs from the one most nodes made, SIMPLE_ERR_PEER elsewhere. Cost:
 * one 8-byte allgather among nodes, on failure only. */
static int direct_blame(simple__node_t *n, int rc, int bad, unsigned sig) {
  if (rc != SIMPLE_ERR_PEER && rc != SIMPLE_ERR_ARG) return rc;
  int P = n->nodes;
  long long word = bad | (long long)sig << 1, *words = malloc((size_t)P * sizeof *words);
  size_t *off = malloc((size_t)P * sizeof *off);
  int r2 = words && off ? 0 : SIMPLE_ERR_NOMEM;
  if (!r2) r2 = simple__comm_allgather(simple__coll_comm(n), &word, sizeof word, words);
  for (int k = 0; k < P && !r2; k++) {
    off[k] = (size_t)k * sizeof word;
    if (words[k] & 1) r2 = SIMPLE_ERR_PEER;
  }
  if (!r2) r2 = simple__coll_node_sigs((const unsigned char *)words, off, P, n->node);
  free(words);
  free(off);
  return r2;
}

/* Large blocks, regular form (choose.c: allgather "direct"): every thread
 * copies its block into thread 0's recv at its place, thread 0 exchanges
 * the node blocks there in place with point-to-point messages among nodes
 * (simple__coll_net_allgather: no packed copy of the node block, none of
 * the result; the verdict as error marks and the call's signature in the
 * tags, so nothing crosses but the data), and the other threads copy the
 * whole result out of thread 0's recv. With one thread per node nothing
 * is copied but the caller's own block (none in place).
 * Cost: 4b (publish, blocks in, exchange done, result read) + n/B +
 * allgather among P of r n bytes + (p n)/B on threads other than 0,
 * against the packed path's 3b + r n/B + (p n)/B on every thread. On a
 * verdict of failure thread 0's recv may hold the blocks. */
static int gather_all_direct(simple_t *s, const void *send, void *recv, size_t count, size_t es,
                             int in_place, int err) {
  simple__node_t *n = s->node;
  int me = s->thread, r = n->threads, pid = s->pid, rc;
  size_t block = count * es, total = block * (size_t)n->nprocs;
  const simple__slot_t *slots = simple__node_publish(s, send, recv, NULL, count, err, &rc);
  if (!slots) {
    /* An argument error on this node: thread 0 still runs the exchange,
     * sending marks (the sizes follow from count and type, the same on
     * every node). */
    if (rc != SIMPLE_ERR_FATAL && me == 0 && es && block && block / es == count &&
        total / (size_t)n->nprocs == block)
      direct_blame(n, simple__coll_net_allgather(n, 0, NULL, block, 1, 0), 1, 0);
    return rc;
  }
  unsigned char *all0 = slots[0].recv, *mine = all0 + (size_t)pid * block;
  const unsigned char *from = in_place ? (const unsigned char *)recv + (size_t)pid * block : send;
  if (block && from != mine) memcpy(mine, from, block);
  if (r > 1 && (rc = simple__node_finish(s)) != 0) return rc;
  /* count 0: nothing crosses (a zero-length message cannot carry a mark),
   * and every node keeps its own verdict, as on the packed path. */
  rc = 0;
  if (me == 0 && block)
    rc = direct_blame(n, simple__coll_net_allgather(n, 0, all0, block, 0, slots[0].sig), 0,
                      slots[0].sig);
  if ((rc = simple__coll_sync_rc(s, rc)) != 0) return rc;
  if (me != 0 && total) memcpy(recv, all0, total);
  /* Thread 0's recv is read until every thread has its copy. */
  return r > 1 ? simple__node_finish(s) : 0;
}

/* The call's arguments: *all gets the elements of the whole result, and
 * in place *send and *count this thread's block where recv holds it.
 * Returns the thread's error (0 if none). */
static int args(const void **send, size_t *count, void *recv, const layout_t *l, int pid, int p,
                simple_type_t type, size_t *all) {
  size_t es = simple_type_size(type), extent = 0;
  int err = simple__check_buffer(NULL, 0, type);
  *all = 0;
  if (!err && l->v) {
    err = simple__size_extent(l->counts, l->displs, 0, p, &extent);
    if (!err) err = simple__size_sum(l->counts, 0, p, all);
  } else if (!err) {
    err = simple__size_mul(*count, (size_t)p, &extent);
    *all = extent;
  }
  if (!err) err = simple__check_buffer(recv, extent, type);
  if (!err && *send == SIMPLE_IN_PLACE) {
    /* The thread's block is already in place in recv. */
    *count = cnt(l, pid);
    *send = *count ? (const unsigned char *)recv + dsp(l, pid) * es : recv;
  }
  /* A count that disagrees with counts[pid] is refused after the publish,
   * on the whole node, which still takes part in the exchange (with
   * undefined data for its blocks) so that the other nodes do not hang. */
  if (!err) err = simple__check_buffer(*send, *count, type);
  /* The packed result must have a byte size too. */
  if (!err && *all > (size_t)PTRDIFF_MAX / es) err = SIMPLE_ERR_COUNT;
  return err;
}

/* After the publish, in the v form: SIMPLE_ERR_ARG on a thread whose
 * count disagrees with counts[] (as its slot gives it: counted, or .n),
 * SIMPLE_ERR_PEER on the others of its node, 0 where all agree. */
static int counts_verdict(const simple_t *s, const simple__slot_t *slots, int counted,
                          const layout_t *l, size_t count) {
  for (int u = 0; u < s->node->threads && l->v; u++)
    if ((counted ? simple__sv_counted_count(&slots[u]) : slots[u].n) != l->counts[u])
      return count != l->counts[s->pid] ? SIMPLE_ERR_ARG : SIMPLE_ERR_PEER;
  return 0;
}

/* One node. Small blocks (every thread's fits a slot, by the counts every
 * thread holds, the same everywhere) travel in the slots: copied in
 * before the publish barrier, read by everyone after it; nobody reads
 * another thread's buffer, so no closing barrier. A thread with an error
 * may take this path whatever the others take: both start with the same
 * barrier. The count leads the block in the slot's data, so that a reader
 * touches only the lines it copies from. Cost: b + p n/B. Larger blocks
 * are copied straight from the other threads' buffers, then a closing
 * barrier keeps each buffer alive until read: 2b + p n/B. */
static int one_node(simple_t *s, const void *send, size_t count, void *recv, const layout_t *l,
                    size_t es, size_t all, int in_place, int err) {
  int r = s->node->threads, rc;
  size_t most = count;
  for (int u = 0; u < r && l->counts && !err; u++)
    if (l->counts[u] > most) most = l->counts[u];
  if (err || most <= SIMPLE__SV_COUNTED_CAP / es) {
    simple__slot_t *mine = simple__node_my_slot(s);
    simple__sv_counted_put(mine, count);
    if (!err && count) memcpy(simple__sv_counted_block(mine), send, count * es);
    const simple__slot_t *slots = simple__node_publish(s, send, recv, NULL, count, err, &rc);
    if (!slots) return rc;
    if ((rc = counts_verdict(s, slots, 1, l, count))) return rc;
    for (int u = 0; u < r; u++)
      if ((u != s->thread || !in_place) && cnt(l, u))
        memcpy((unsigned char *)recv + dsp(l, u) * es, simple__sv_counted_block(&slots[u]),
               cnt(l, u) * es);
    return 0;
  }
  const simple__slot_t *slots = simple__node_publish(s, send, recv, NULL, count, err, &rc);
  if (!slots) return rc;
  if ((rc = counts_verdict(s, slots, 0, l, count))) return rc;
  if (all == 0) return 0;
  for (int u = 0; u < r; u++) {
    unsigned char *dst = (unsigned char *)recv + dsp(l, u) * es;
    if (slots[u].send != dst && cnt(l, u)) memcpy(dst, slots[u].send, cnt(l, u) * es);
  }
  /* Others read this thread's block until they are done. */
  return simple__node_finish(s);
}

/* Several nodes, packed (the file's opening comment). */
static int packed(simple_t *s, const void *send, size_t count, void *recv, const layout_t *l,
                  size_t es, size_t all, int in_place, int err) {
  simple__node_t *n = s->node;
  int me = s->thread, r = n->threads, P = n->nodes, pid = s->pid, v = l->v;
  /* This node's blocks: total and this thread's offset (elements). */
  int first = n->first_pid[n->node];
  size_t node_elems = 0, my_off = 0;
  for (int u = 0; u < r && (!v || l->counts); u++) {
    if (u == me) my_off = node_elems;
    node_elems += cnt(l, first + u); /* no overflow: part of `all` */
  }
  /* Every node's block starts with a verdict word (0, or 1 when the node
   * found an error): the job's verdict travels in band, in the one
   * exchange among nodes, at 8 bytes per node. A node with an error still
   * takes part (its thread 0 plans the exchange from its own arguments,
   * which must give the sizes: count and type, and counts in the v form),
   * so that every node returns SIMPLE_ERR_PEER (the offender its code). */
  simple__coll_plan_t *mine = NULL;
  size_t nb = ALIGN_UP(WORD + node_elems * es), ab = ALIGN_UP(all * es + (size_t)P * WORD);
  int plannable = es && (!v || l->counts) && all && all <= (size_t)PTRDIFF_MAX / es;
  if (me == 0 && plannable && !err && !(mine = plan(s, l, nb, ab, es))) err = SIMPLE_ERR_NOMEM;
  int rc;
  const simple__slot_t *slots = simple__node_publish(s, send, recv, mine, count, err, &rc);
  if (!slots) {
    if (rc != SIMPLE_ERR_FATAL && me == 0 && plannable) {
      const simple__coll_plan_t *pl = mine ? mine : plan(s, l, nb, ab, es);
      if (pl) {
        long long one = 1;
        memcpy(pl->room, &one, WORD);
        simple__comm_allgatherv(simple__coll_comm(n), pl->room, pl->tab, pl->tab + P,
                                pl->room + nb);
      }
    }
    return rc;
  }
  int bad = 0, mine_bad = v && count != l->counts[pid];
  for (int u = 0; u < r && v; u++) bad |= slots[u].n != l->counts[first + u];
  /* all == 0: the same verdict on every thread of every node. */
  if (all == 0) return bad ? (mine_bad ? SIMPLE_ERR_ARG : SIMPLE_ERR_PEER) : 0;
  const simple__coll_plan_t *pl = slots[0].ptr;
  unsigned char *w = pl->room, *result = w + nb;
  const size_t *nbytes = pl->tab;
  if (count && !bad) memcpy(w + WORD + my_off * es, send, count * es);
  if (me == 0) {
    /* The call's signature rides above the verdict bit (src/node's check
     * made it the same on every thread of the node). */
    long long word = bad | (long long)slots[0].sig << 1;
    memcpy(w, &word, WORD);
  }
  if (r > 1 && (rc = simple__node_finish(s)) != 0) return rc;
  rc = 0;
  if (me == 0) {
    rc = simple__comm_allgatherv(simple__coll_comm(n), w, nbytes, nbytes + P, result);
    int differ = 0;
    for (int k = 0; k < P && !rc; k++) {
      long long word;
      memcpy(&word, result + nbytes[P + k], WORD);
      if (word & 1) rc = SIMPLE_ERR_PEER;
      differ |= (unsigned)(word >> 1) != slots[0].sig;
    }
    /* Nodes that called differently (a different type, or count, with
     * the same sizes): a named error on every thread, no extra message. */
    if (!rc && differ) rc = simple__coll_node_sigs(result, nbytes + P, P, n->node);
  }
  if ((rc = simple__coll_sync_rc(s, rc)) != 0) return bad && mine_bad ? SIMPLE_ERR_ARG : rc;
  for (int k = 0; k < P; k++) {
    size_t at = nbytes[P + k] + WORD;
    for (int i = n->first_pid[k]; i < n->first_pid[k + 1]; i++) {
      size_t b = cnt(l, i) * es;
      if (b && !(in_place && i == pid))
        memcpy((unsigned char *)recv + dsp(l, i) * es, result + at, b);
      at += b;
    }
  }
  return 0;
}

static int gather_all(simple_t *s, const void *send, size_t count, void *recv, const size_t *counts,
                      const size_t *displs, simple_type_t type, int v) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  /* A malformed SIMPLE_COLL_ALG, the same in every process: every thread
   * refuses alike, nothing crosses. */
  if (simple__coll_choose_status()) return SIMPLE_ERR_ARG;
  simple__node_t *n = s->node;
  layout_t l = {v ? counts : NULL, v ? displs : NULL, count, v};
  int in_place = send == SIMPLE_IN_PLACE;
  size_t all, es = simple_type_size(type);
  int err = args(&send, &count, recv, &l, s->pid, n->nprocs, type, &all);
  if (n->nodes == 1) return one_node(s, send, count, recv, &l, es, all, in_place, err);
  if (!v && simple__coll_choose(SIMPLE__COLL_ALLGATHER, n, count * es) == SIMPLE__ALG_DIRECT)
    return gather_all_direct(s, send, recv, count, es, in_place, err);
  return packed(s, send, count, recv, &l, es, all, in_place, err);
}

int simple_allgather(simple_t *s, const void *send, void *recv, size_t count, simple_type_t type) {
  SIMPLE__COLL_CHECK(s, "allgather", count, type, -1, -1);
  return simple__coll_verdict(s, gather_all(s, send, count, recv, NULL, NULL, type, 0));
}

int simple_allgatherv(simple_t *s, const void *send, size_t count, void *recv, const size_t *counts,
                      const size_t *displs, simple_type_t type) {
  simple__coll_vargs_t va = {count, {counts, displs}};
  SIMPLE__COLL_CHECK_V(s, "allgatherv", type, -1, &va);
  return simple__coll_verdict(s, gather_all(s, send, count, recv, counts, displs, type, 1));
}
