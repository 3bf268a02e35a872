/* simple_gather(v) and simple_scatter(v) over every thread of the job.
 *
 * One routine serves the four calls: gather moves blocks from the threads
 * to the root's big buffer (recv), scatter from the root's big buffer
 * (send) to the threads. "own" below is a thread's block buffer (send for
 * gather, recv for scatter), "big" the root's buffer.
 *
 * Root's node: every thread copies its own block between its buffer and
 * big in shared memory (a scatter's drivers after sending); at the same
 * time the lane drivers (thread l < L, L = threads of the smallest node)
 * exchange one message with each other node dealt to their lane,
 * directly from/into big where that node's blocks lie contiguously, in
 * rank order, in big (always for gather and scatter; for the v forms when
 * the displacements allow it), else through a staging area (scratch) that
 * the driver packs or unpacks. A closing
 * barrier keeps the root (whose big buffer the others use) in the call
 * until all transfers and copies are done, and carries the drivers' codes.
 * Every node's scratch is src/xchg's room: one thread takes it, and it is
 * written only after the publish that hands it out.
 *
 * Other nodes: the node's blocks travel as one message. A scatter's lands
 * in, and a gather's of up to 64 KiB leaves from, the threads' own
 * buffers: the driver receives or sends it through a datatype over them
 * (net.h: simple__net_irecv_pieces, simple__net_isend_pieces), and a
 * barrier keeps every thread in the call until it has landed or gone.
 * The v forms, and a larger gather, stage it in the scratch: a gather's
 * threads copy their blocks in, a barrier, the driver sends (the others
 * return at once, and only the driver reports an MPI failure of the
 * send); a scatterv's driver receives, a barrier, every thread copies its
 * block out. A node of one thread sends from or receives into the
 * thread's buffer directly.
 *
 * The v forms: a thread's count is known only to itself (and to the root),
 * so a node other than the root's first publishes the counts, then sizes
 * the scratch and publishes it: one barrier more than the regular forms
 * (there, every thread knows the node's size in advance). The root's node
 * takes the counts from the root, which sizes the staging area itself
 * before publishing (the only thread of the node to take scratch in that
 * call). Each thread's count is checked against counts[] on the root's
 * node only: a mismatch there gives SIMPLE_ERR_ARG on the thread (its
 * node's others SIMPLE_ERR_PEER), but the root's node still completes its
 * transfers with the other nodes so that they do not hang; a mismatch on
 * another node shows up as an MPI error (message longer than expected) or
 * goes unnoticed (shorter). An argument error on a node (rooted_bad) still
 * runs its part of the exchange with error marks (src/xchg). Empty node
 * messages are not sent (an empty message is a mark).
 *
 * The signature between nodes: every node message carries the call's
 * (s->sig) in its MPI tag, and its receiver compares (src/xchg:
 * simple__xchg_sig_tag), so that a node that called with another root on
 * the root's node, another type of the same size or another count of the
 * same bytes is told apart: the root's node of a gather, and a scatter's
 * node that receives the root's node's message, then fail the call with
 * SIMPLE_ERR_ARG on every thread. The tag costs no byte and no copy,
 * also where the messages go straight from or into the callers' buffers.
 *
 * Cost (root's node): 2b + (P - 1) alpha + (p - r) n beta, shared by L
 * drivers, + r n/B. Other nodes: 2b + r n/B + alpha + beta r n (3b in the v
 * forms; a scatter's r n/B is MPI's, as it writes the message into the
 * threads' buffers instead of one: on the virtual cluster 2 x 2 that cut
 * a scatter of 256 KiB-4 MiB a block by 6-21%). */
#include <stdint.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/slot_views.h"
#include "net/net.h"
#include "simple/coll.h"

/* The blocks' layout in the root's buffer: counts == NULL for the regular
 * forms (count elements per thread, in rank order). */
typedef struct {
  const size_t *counts, *displs;
  size_t count;
} layout_t;

static size_t cnt(const layout_t *l, int i) { return l->counts ? l->counts[i] : l->count; }
static size_t dsp(const layout_t *l, int i) {
  return l->counts ? l->displs[i] : (size_t)i * l->count;
}

int simple__coll_contiguous(const size_t *counts, const size_t *displs, int first, int last,
                            size_t *base, size_t *total) {
  int contiguous = 1, seen = 0;
  size_t pos = 0, sum = 0;
  *base = 0;
  for (int i = first; i < last; i++) {
    if (counts[i] == 0) continue;
    if (!seen)
      *base = displs[i];
    else if (displs[i] != pos)
      contiguous = 0;
    seen = 1;
    pos = displs[i] + counts[i];
    sum += counts[i];
  }
  *total = sum;
  return contiguous;
}

/* Node k's blocks in big: their total (elements), and whether the non-empty
 * ones follow each other in rank order without gaps, starting at *base. */
static int node_contiguous(const simple__node_t *n, const layout_t *l, int k, size_t *base,
                           size_t *total) {
  int first = n->first_pid[k], last = n->first_pid[k + 1];
  if (l->counts) return simple__coll_contiguous(l->counts, l->displs, first, last, base, total);
  *base = (size_t)first * l->count;
  *total = (size_t)(last - first) * l->count;
  return 1;
}

/* Staging bytes the root's node needs: the non-contiguous nodes' blocks. */
static int staging_bytes(const simple__node_t *n, const layout_t *l, int root_node, size_t es,
                         size_t *out) {
  size_t sum = 0;
  for (int k = 0; k < n->nodes; k++) {
    size_t base, total;
    if (k == root_node || node_contiguous(n, l, k, &base, &total)) continue;
    if (total > (SIZE_MAX - sum) / es) return SIMPLE_ERR_COUNT;
    sum += total * es;
  }
  *out = sum;
  return 0;
}

/* Copies a thread's block between its buffer (own) and its place in big
 * (at): scatter from big, gather into it; nothing when it is there already.
 * pack moves a node's blocks the same way, own being their packed place. */
static void own_copy(int scatter, void *own, unsigned char *at, size_t bytes) {
  if (at == (unsigned char *)own) return;
  if (scatter)
    memcpy(own, at, bytes);
  else
    memcpy(at, own, bytes);
}

/* Copies node k's blocks between big and its packed form in stage. */
static void pack(const simple__node_t *n, const layout_t *l, int k, size_t es, unsigned char *big,
                 unsigned char *stage, int to_stage) {
  size_t off = 0;
  for (int i = n->first_pid[k]; i < n->first_pid[k + 1]; i++) {
    size_t b = cnt(l, i) * es;
    if (b) own_copy(to_stage, stage + off, big + dsp(l, i) * es, b);
    off += b;
  }
}

/* The root node's side of the exchange as src/xchg's engine asks for it:
 * node k's message lies in big where its blocks are contiguous, else in
 * the stage, after those of the non-contiguous nodes below k (a cursor
 * walks the nodes once, as the engine asks for them in increasing order). */
typedef struct {
  const simple__node_t *n;
  const layout_t *l;
  size_t es;
  unsigned char *big, *stage;
  int root_node;
  int next;       /* the first node not yet added to off */
  size_t off;     /* stage bytes of the non-contiguous nodes below next */
  size_t k_bytes; /* the last placed node's message */
} root_xc_t;

static unsigned char *place(root_xc_t *c, int k, int *staged) {
  size_t base, total;
  for (; c->next < k; c->next++)
    if (c->next != c->root_node && !node_contiguous(c->n, c->l, c->next, &base, &total))
      c->off += total * c->es;
  *staged = !node_contiguous(c->n, c->l, k, &base, &total);
  c->k_bytes = total * c->es;
  return *staged ? c->stage + c->off : c->big + base * c->es;
}

/* Node k's elements in big (counts only: also read in error mode, where
 * the displacements may be unusable). */
static size_t node_total(const simple__node_t *n, const layout_t *l, int k) {
  size_t sum = 0;
  for (int i = n->first_pid[k]; i < n->first_pid[k + 1]; i++) sum += cnt(l, i);
  return sum;
}

static size_t r_bytes(void *ctx, int k) {
  const root_xc_t *c = ctx;
  return node_total(c->n, c->l, k) * c->es;
}

static const void *r_out(void *ctx, int k, int d) {
  root_xc_t *c = ctx;
  int staged;
  unsigned char *at = place(c, k, &staged);
  (void)d;
  if (staged) pack(c->n, c->l, k, c->es, c->big, at, 1);
  return at;
}

static void *r_in(void *ctx, int k, int d, int *unpack) {
  (void)d;
  return place(ctx, k, unpack);
}

static void r_unpack(void *ctx, int k, const void *msg) {
  const root_xc_t *c = ctx;
  pack(c->n, c->l, k, c->es, c->big, (unsigned char *)msg, 0);
}

/* v: counts/displs given (significant at the root). */
/* One node, the root's whole buffer within a slot (p n <= 256 bytes): the
 * blocks travel in the slots, copied in before the publish barrier (gather:
 * every thread its block; scatter: the root its whole buffer) and copied
 * out after it (gather: by the root; scatter: every thread its block).
 * Nobody touches another thread's buffer, so one barrier instead of two.
 * The choice depends on count and type only, the same on every thread.
 * Cost: b + p n/B at the root. */
static int rooted_inline(simple_t *s, int scatter, void *own, size_t count, void *big, size_t es,
                         int root, int err) {
  int r = s->node->threads, is_root = s->pid == root, rc;
  size_t bytes = count * es;
  unsigned char *data = simple__sv_block(simple__node_my_slot(s));
  if (!err && bytes && !scatter) memcpy(data, own, bytes);
  if (!err && bytes && scatter && is_root) memcpy(data, big, (size_t)r * bytes);
  const simple__slot_t *slots = simple__node_publish(s, own, big, NULL, count, err, &rc);
  if (!slots || !bytes) return slots ? 0 : rc;
  unsigned char *b = big;
  if (scatter) {
    if ((unsigned char *)own != b + (size_t)s->pid * bytes)
      memcpy(own, simple__sv_block(&slots[root]) + (size_t)s->pid * bytes, bytes);
  } else if (is_root) {
    for (int u = 0; u < r; u++)
      if (u != root || (unsigned char *)own != b + (size_t)u * bytes)
        memcpy(b + (size_t)u * bytes, simple__sv_block(&slots[u]), bytes);
  }
  return 0;
}

/* One node, the v forms, when the root's slot can hold the counts of all
 * r threads besides the blocks (r <= SIMPLE__SV_ROOTV_THREADS): as rooted_inline
 * where the blocks fit, decided after the publish from what every thread
 * sees alike. Every slot's data starts with its thread's count (so that a
 * reader touches only data lines); the root's goes on with its displs
 * pointer (for the fallback, during which the root stays in the call), a
 * flag, and a copy of the r counts (the root may return while the others
 * still check them, so they must not read the root's arrays); the blocks
 * follow. Gather: every thread whose block fits copies it into its slot,
 * and if all did (every slot's count says so) the root copies them out
 * and nobody waits again. Scatter: the root packs every block into its
 * slot when each fits its place (1/r of the room), and each thread takes
 * its own from there. Otherwise blocks move between the buffers while a
 * closing barrier keeps the root in the call: 2b. Cost when they fit:
 * b + sum(n)/B at the root. */
/* The slots' layout: slot_views.h's rootv view. */
static int rooted_v_node(simple_t *s, int scatter, void *own, size_t count, void *big,
                         const size_t *counts, const size_t *displs, size_t es, int root, int err) {
  int me = s->thread, r = s->node->threads, is_root = me == root; /* one node: pid = thread */
  size_t cap = simple__sv_rootv_cap(r);
  simple__slot_t *mine = simple__node_my_slot(s);
  /* Every thread's count leads its data; the root's layout follows. */
  simple__sv_rootv_put_count(mine, count);
  if (!err && !scatter && count * es <= cap && count)
    memcpy(simple__sv_rootv_block(mine, 0, r), own, count * es);
  if (!err && is_root) {
    /* Block u at a fixed place: its reader knows where it is before it has
     * the root's header, and fetches both at once. */
    int packed = scatter;
    for (int u = 0; u < r && packed; u++) packed = counts[u] <= cap / (size_t)r / es;
    for (int u = 0; u < r && packed; u++)
      if (counts[u])
        memcpy(simple__sv_rootv_block(mine, u, r), (unsigned char *)big + displs[u] * es,
               counts[u] * es);
    simple__sv_rootv_put_root(mine, counts, displs, r, packed);
  }
  int rc;
  const simple__slot_t *slots = simple__node_publish(s, own, big, NULL, count, err, &rc);
  if (!slots) return rc;
  const simple__slot_t *rs = &slots[root];
  size_t rcount[SIMPLE__SV_ROOTV_THREADS], nu[SIMPLE__SV_ROOTV_THREADS];
  int packed = simple__sv_rootv_packed(rs), fit = 1;
  simple__sv_rootv_counts(rs, rcount, r);
  /* Every thread reaches the same verdict on the counts by itself. */
  for (int u = 0; u < r; u++) {
    nu[u] = simple__sv_rootv_count(&slots[u]);
    if (nu[u] != rcount[u]) return count != rcount[me] ? SIMPLE_ERR_ARG : SIMPLE_ERR_PEER;
    if (nu[u] > cap / es) fit = 0;
  }
  if (scatter && packed) {
    /* Addresses inside a buffer only for non-empty blocks: an empty one's
     * buffer may be NULL. */
    unsigned char *at = is_root && count ? (unsigned char *)big + displs[me] * es : NULL;
    if (count && (unsigned char *)own != at)
      memcpy(own, simple__sv_rootv_block(rs, me, r), count * es);
    return 0;
  }
  if (!scatter && fit) {
    for (int u = 0; u < r && is_root; u++) {
      if (!nu[u]) continue;
      unsigned char *to = (unsigned char *)big + displs[u] * es;
      if (u != root || (unsigned char *)own != to)
        memcpy(to, simple__sv_rootv_block(&slots[u], 0, r), nu[u] * es);
    }
    return 0;
  }
  /* The root stays in the call (closing barrier): its arrays are valid. */
  const size_t *rdispls = simple__sv_rootv_displs(rs);
  if (count)
    own_copy(scatter, own, (unsigned char *)slots[root].recv + rdispls[me] * es, count * es);
  return simple__sync_rc(s, 0);
}

/* One rooted call, as the checks below leave it: what the node parts
 * read. own is the thread's block (the root's place in big when it passed
 * SIMPLE_IN_PLACE, with count then the root's own count), big the root's
 * buffer (significant at the root), l the blocks' layout in big. */
typedef struct {
  int scatter, v;
  void *own, *big;
  size_t count, es;
  simple_type_t type;
  layout_t l;
  int root, root_node, is_root;
  void *scratch; /* the node's scratch, when this thread took it */
  unsigned sig;  /* the call's signature (coll.h), taken before the publish clears it */
} rooted_t;

/* The exchange between the nodes, with the call's signature in every
 * message's tag (src/xchg: simple__xchg_sig_tag). */
static simple__xchg_t rooted_xchg(const simple__node_t *n, const rooted_t *c) {
  return (simple__xchg_t){.n = (simple__node_t *)n,
                          .tag = c->scatter ? SIMPLE__TAG_SCATTER : SIMPLE__TAG_GATHER,
                          .sig = c->sig};
}

/* The verdict of a rooted call in which this node found an error (rc, the
 * thread's code, returned): the node still takes part in the exchange
 * that the other nodes wait on, in error mode (src/xchg: marks sent, what
 * comes drained), from the sizes alone: the root's node from the root's
 * counts (in its slot), another node from its threads' counts (published,
 * `second`: by the v forms' second publish, whose slots carry the node's
 * total). The root's node waits for its drivers (a barrier), as its
 * counts are the root thread's. The root's node then returns
 * SIMPLE_ERR_PEER everywhere (the offender its code); so does a node that
 * a scatter's marks reach, and a gather's root, reached by a mark, while
 * a node that no data flows to from the offender's (a gather's other
 * nodes, a scatter's when the offender's node is not the root's) cannot
 * hear of it and succeeds: its result is right. A gatherv or scatterv
 * whose root passed no counts gives the root's node no sizes: it then
 * sends and drains nothing (the other nodes' messages, if any, are left
 * to MPI: a documented limitation). */
static int rooted_bad(simple_t *s, const rooted_t *c, int rc, int second) {
  simple__node_t *n = s->node;
  int me = s->thread, r = n->threads, lanes = simple__xchg_lanes(n);
  int root_node = simple__node_of(n, c->root), rt = c->root - n->first_pid[root_node];
  const simple__slot_t *slots = simple__node_slots(s);
  simple__xchg_t x = rooted_xchg(n, c);
  x.bad = 1;
  if (n->node == root_node) {
    layout_t l = {NULL, NULL, c->count};
    if (c->v) l.counts = simple__sv_rootlayout(&slots[rt]).counts;
    root_xc_t rx = {n, &l, c->es, NULL, NULL, root_node, 0, 0, 0};
    x.ctx = &rx;
    x.out_bytes = x.in_bytes = r_bytes;
    if (me < lanes && n->nodes > 1 && (!c->v || l.counts) && c->es)
      simple__xchg_rooted(&x, root_node, lanes, me, c->scatter);
    int rc2 = simple__sync_rc(s, 0);
    return rc2 == SIMPLE_ERR_FATAL ? rc2 : rc;
  }
  size_t total = second ? slots[0].n : 0;
  for (int u = 0; u < r && !second; u++) total += (c->v ? slots[u].n : c->count) * c->es;
  if (me == simple__xchg_rooted_lane(n, n->node, root_node, lanes))
    simple__xchg_rooted_peer(&x, root_node, me, NULL, total, !c->scatter);
  return rc;
}

/* The root's checks: its buffer's extent (the counts and displacements of
 * the v forms), its own block when in place, and the staging area its
 * node's drivers pack into where a v layout leaves some node's blocks
 * apart (the only scratch the root's node takes, by the root alone). A
 * count that disagrees with counts[root] is refused after the publish,
 * with the node's other threads', so that the transfers with the other
 * nodes still take place. */
static int root_args(simple_t *s, rooted_t *c) {
  int p = s->node->nprocs, err;
  size_t extent, stage = 0;
  if (c->v) {
    err = simple__size_extent(c->l.counts, c->l.displs, 0, p, &extent);
    if (!err && !c->l.counts) err = SIMPLE_ERR_NULL; /* p > 0 always */
  } else {
    err = simple__size_mul(c->count, (size_t)p, &extent);
  }
  if (!err) err = simple__check_buffer(c->big, extent, c->type);
  if (!err && c->own == SIMPLE_IN_PLACE) {
    /* The root's block is already in place in big. */
    c->count = cnt(&c->l, c->root);
    c->own = c->count ? (unsigned char *)c->big + dsp(&c->l, c->root) * c->es : c->big;
  }
  if (!err && c->v) err = staging_bytes(s->node, &c->l, c->root_node, c->es, &stage);
  if (!err && stage && !(c->scratch = simple__xchg_room(s, stage))) err = SIMPLE_ERR_NOMEM;
  return err;
}

/* A regular scatter's message to another node lands in its threads' own
 * buffers, and a regular gather's of up to GATHER_PIECES_BYTES leaves
 * from them (xchg.h: simple__xchg_rooted_peer_pieces), with no copy into
 * or out of a staging area. A larger gather message is staged: inside
 * MPI the driver alone would pack it (the transport sends a datatype's
 * pieces through its own buffers), where the node's threads copy their
 * blocks in at once. On the virtual cluster 2 x 2 (simple-bench coll
 * --rounds 3, three alternating runs), sent from the pieces: gather of
 * 8 B-4 KiB a thread 0.75-0.82 of the staged time, 1-4 MiB 1.22. The
 * pieces (one per thread) lie on the driver's stack up to PIECES_ON_STACK
 * threads, beyond in the node's scratch. */
#define PIECES_ON_STACK     64
#define GATHER_PIECES_BYTES (64 * 1024)
static int from_pieces(const rooted_t *c, size_t node_bytes) {
  return !c->v && (c->scatter || node_bytes <= GATHER_PIECES_BYTES);
}

/* Every thread's checks (root, type, buffers; SIMPLE_IN_PLACE at the root
 * only), and the scratch that thread 0 of another node takes for the
 * regular forms, whose node message size every thread knows in advance
 * (the v forms' is known after a publish: v_node_message): the list of
 * the threads' buffers where it does not fit the driver's stack. Returns
 * the thread's error code, which the publish then shares. */
static int rooted_args(simple_t *s, rooted_t *c) {
  simple__node_t *n = s->node;
  int p = n->nprocs;
  int err = c->root < 0 || c->root >= p ? SIMPLE_ERR_RANK : simple__check_buffer(NULL, 0, c->type);
  c->root_node = err ? 0 : simple__node_of(n, c->root);
  if (!err && c->is_root)
    err = root_args(s, c);
  else if (!err && c->own == SIMPLE_IN_PLACE)
    err = SIMPLE_ERR_ARG; /* in place at the root only */
  if (!err) err = simple__check_buffer(c->own, c->count, c->type);
  size_t node_bytes = 0, r = (size_t)n->threads;
  if (!err && !c->v && n->node != c->root_node && r > 1 && s->thread == 0 &&
      !(err = simple__size_mul(c->count * c->es, r, &node_bytes)) && node_bytes) {
    size_t room = !from_pieces(c, node_bytes) ? node_bytes
                  : r > PIECES_ON_STACK       ? r * sizeof(simple__net_piece_t)
                                              : 0;
    if (room && !(c->scratch = simple__xchg_room(s, room))) err = SIMPLE_ERR_NOMEM;
  }
  return err;
}

/* The root's node, after the publish: every thread copies its own block
 * between its buffer and big while the lane drivers exchange the other
 * nodes' messages (src/xchg's rooted exchange, from/into big where a
 * node's blocks lie together, else through the root's staging area); a
 * closing barrier keeps the root in the call until both are done. The v
 * forms' counts are the root's (its slot's layout), against which every
 * thread checks its own count: each thread reaches the same verdict by
 * itself. */
static int root_node_part(simple_t *s, const rooted_t *c, const simple__slot_t *slots) {
  simple__node_t *n = s->node;
  int me = s->thread, r = n->threads, lanes = simple__xchg_lanes(n);
  int rt = c->root - n->first_pid[c->root_node], first = n->first_pid[c->root_node];
  layout_t l = c->l;
  if (c->v) {
    simple__sv_rootlayout_t rl = simple__sv_rootlayout(&slots[rt]);
    l.counts = rl.counts;
    l.displs = rl.displs;
  }
  int bad = 0, mine_bad = c->v && slots[me].n != cnt(&l, first + me);
  for (int u = 0; u < r && c->v; u++) bad |= slots[u].n != cnt(&l, first + u);
  unsigned char *b = slots[rt].recv;
  /* A scatter's driver sends before it copies its own block (the other
   * nodes wait for its messages, nobody for its copy; where threads share
   * a core the copy delays them: 2 x 2 on the virtual cluster, 32 KiB a
   * thread, 25-28 -> 25 us, 256 KiB 100-110 -> 95-98 us); a gather's
   * driver copies first, while its messages come. */
  int drive = me < lanes && n->nodes > 1, copy_first = !(c->scatter && drive);
  int copy = !bad && c->count;
  unsigned char *at = copy ? b + dsp(&l, s->pid) * c->es : NULL;
  if (copy && copy_first) own_copy(c->scatter, c->own, at, c->count * c->es);
  int rc = 0;
  if (drive) {
    root_xc_t rx = {n, &l, c->es, b, slots[rt].ptr, c->root_node, 0, 0, 0};
    simple__xchg_t x = rooted_xchg(n, c);
    x.ctx = &rx;
    x.out_bytes = x.in_bytes = r_bytes;
    x.out = r_out;
    x.in = r_in;
    x.unpack = r_unpack;
    rc = simple__xchg_rooted(&x, c->root_node, lanes, me, c->scatter);
  }
  if (copy && !copy_first) own_copy(c->scatter, c->own, at, c->count * c->es);
  /* A gather's message with another signature: every thread's verdict. */
  rc = simple__coll_net_rc(s, rc, rc == SIMPLE_ERR_ARG);
  return bad ? (mine_bad ? SIMPLE_ERR_ARG : SIMPLE_ERR_PEER) : rc;
}

/* Another node's message with v counts: each thread's count is its own,
 * so the node adds them up from the first publish's slots (this thread's
 * offset on the way), thread 0 sizes the scratch, and a second publish
 * shares it (the first publish's slots are not read after it). Returns
 * the second publish's slots, NULL when it failed (its code in *rc). */
static const simple__slot_t *v_node_message(simple_t *s, const simple__slot_t *slots, size_t es,
                                            size_t *my_off, size_t *total, int *rc) {
  int me = s->thread, r = s->node->threads, err = 0;
  void *scratch = NULL;
  *total = 0;
  for (int u = 0; u < r; u++) {
    if (u == me) *my_off = *total;
    *total += slots[u].n * es; /* each was checked not to overflow alone */
    if (*total < slots[u].n * es) err = SIMPLE_ERR_COUNT;
  }
  if (me == 0 && !err && *total && !(scratch = simple__xchg_room(s, *total)))
    err = SIMPLE_ERR_NOMEM;
  return simple__node_publish(s, NULL, NULL, scratch, *total, err, rc);
}

/* A node other than the root's, after the publish: its blocks travel as
 * one message with the root's node, driven by the thread of its lane. A
 * node of one thread sends from / receives into the thread's buffer. A
 * scatter's message, and a small gather's, lands in or leaves from the
 * threads' buffers (from_pieces), the pieces listed from the publish's
 * slots, a barrier after it; the others' is assembled in (gather(v):
 * every thread copies its block in, the node's finish, the driver sends)
 * or received into (scatterv: the driver receives, a barrier, every
 * thread copies its block out) the scratch. */
static int other_node_part(simple_t *s, const rooted_t *c, const simple__slot_t *slots) {
  simple__node_t *n = s->node;
  int me = s->thread, r = n->threads, lanes = simple__xchg_lanes(n), rc = 0;
  int driver = simple__xchg_rooted_lane(n, n->node, c->root_node, lanes);
  size_t bytes = c->count * c->es, my_off = (size_t)me * bytes, total = (size_t)r * bytes;
  simple__xchg_t px = rooted_xchg(n, c);
  if (r == 1) return simple__xchg_rooted_peer(&px, c->root_node, 0, c->own, bytes, !c->scatter);
  if (c->v && !(slots = v_node_message(s, slots, c->es, &my_off, &total, &rc)))
    return rc == SIMPLE_ERR_FATAL ? rc : rooted_bad(s, c, rc, 1);
  if (from_pieces(c, total)) {
    if (me == driver) {
      simple__net_piece_t on_stack[PIECES_ON_STACK];
      simple__net_piece_t *piece = r <= PIECES_ON_STACK ? on_stack : slots[0].ptr;
      for (int u = 0; u < r; u++)
        piece[u] = (simple__net_piece_t){.buf = (void *)slots[u].send, .bytes = bytes};
      rc = simple__xchg_rooted_peer_pieces(&px, c->root_node, driver, piece, r, total, !c->scatter);
    }
    /* Every thread waits for its block to leave or land, and shares the
     * verdict (a scatter's message from the root's node with another
     * signature: every thread's). */
    return simple__coll_net_rc(s, rc, rc == SIMPLE_ERR_ARG);
  }
  unsigned char *buf = slots[0].ptr;
  if (c->scatter) {
    if (me == driver) rc = simple__xchg_rooted_peer(&px, c->root_node, driver, buf, total, 0);
    /* The root's message with another signature: every thread's verdict,
     * before any block is copied out. */
    if ((rc = simple__coll_net_rc(s, rc, rc == SIMPLE_ERR_ARG)) != 0) return rc;
    if (bytes) memcpy(c->own, buf + my_off, bytes);
    return 0;
  }
  if (bytes) memcpy(buf + my_off, c->own, bytes);
  if ((rc = simple__node_finish(s)) != 0) return rc;
  return me == driver ? simple__xchg_rooted_peer(&px, c->root_node, driver, buf, total, 1) : 0;
}

/* The four calls: checks, the one-node paths, the publish (with the root's
 * layout in its slot), then the root's node's part or another node's. */
static int rooted(simple_t *s, int scatter, int v, void *own, size_t count, void *big,
                  const size_t *counts, const size_t *displs, simple_type_t type, int root) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  simple__node_t *n = s->node;
  int p = n->nprocs;
  size_t es = simple_type_size(type);
  rooted_t c = {.scatter = scatter,
                .v = v,
                .own = own,
                .big = big,
                .count = count,
                .es = es,
                .type = type,
                .l = {v ? counts : NULL, v ? displs : NULL, count},
                .root = root,
                .is_root = s->pid == root,
                .sig = s->sig};
  int err = rooted_args(s, &c), rc;
  if (n->nodes == 1 && !v && count <= SIMPLE__INLINE_BYTES &&
      (size_t)p * count * es <= SIMPLE__INLINE_BYTES)
    return rooted_inline(s, scatter, c.own, c.count, big, es, root, err);
  if (n->nodes == 1 && v && n->threads <= SIMPLE__SV_ROOTV_THREADS)
    return rooted_v_node(s, scatter, c.own, c.count, big, counts, displs, es, root, err);
  /* The layout travels to the node in the root's slot. */
  if (c.is_root) simple__sv_rootlayout_put(simple__node_my_slot(s), counts, displs);
  const simple__slot_t *slots = simple__node_publish(s, c.own, big, c.scratch, c.count, err, &rc);
  if (!slots) {
    /* A root out of range, or nothing to move, is every node's verdict. */
    if (rc == SIMPLE_ERR_FATAL || root < 0 || root >= p || (!v && c.count == 0)) return rc;
    return rooted_bad(s, &c, rc, 0);
  }
  if (!v && c.count == 0) return 0; /* count is the same everywhere */
  return n->node == c.root_node ? root_node_part(s, &c, slots) : other_node_part(s, &c, slots);
}

int simple_gather(simple_t *s, const void *send, void *recv, size_t count, simple_type_t type,
                  int root) {
  SIMPLE__COLL_CHECK(s, "gather", count, type, -1, root);
  return simple__coll_verdict(s,
                              rooted(s, 0, 0, (void *)send, count, recv, NULL, NULL, type, root));
}

int simple_gatherv(simple_t *s, const void *send, size_t count, void *recv, const size_t *counts,
                   const size_t *displs, simple_type_t type, int root) {
  simple__coll_vargs_t va = {count, {counts, displs}};
  SIMPLE__COLL_CHECK_V(s, "gatherv", type, root, &va);
  return simple__coll_verdict(
      s, rooted(s, 0, 1, (void *)send, count, recv, counts, displs, type, root));
}

int simple_scatter(simple_t *s, const void *send, void *recv, size_t count, simple_type_t type,
                   int root) {
  SIMPLE__COLL_CHECK(s, "scatter", count, type, -1, root);
  return simple__coll_verdict(s,
                              rooted(s, 1, 0, recv, count, (void *)send, NULL, NULL, type, root));
}

int simple_scatterv(simple_t *s, const void *send, const size_t *counts, const size_t *displs,
                    void *recv, size_t count, simple_type_t type, int root) {
  simple__coll_vargs_t va = {count, {counts, displs}};
  SIMPLE__COLL_CHECK_V(s, "scatterv", type, root, &va);
  return simple__coll_verdict(
      s, rooted(s, 1, 1, recv, count, (void *)send, counts, displs, type, root));
}
