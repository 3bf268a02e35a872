/* Checked mode (SIMPLE_CHECK=1): before a collective does anything, every
 * thread of the job shows the others what it called, and a mismatch is
 * reported (node, thread, collective, arguments, call site) and returned
 * as an error on every thread, instead of a hang or corrupted memory.
 *
 * Each thread's signature travels in its slot (one node barrier); thread 0
 * of every node finds the node's majority signature and gathers those of
 * all nodes (one MPI_Allgather); the signature most threads of the job
 * called is the reference, and a thread that called anything else is the
 * one at fault (SIMPLE_ERR_ARG, the others SIMPLE_ERR_PEER). The verdict
 * reaches the node's threads through a second barrier. Every node always takes part in the gather,
 * also when its own threads disagree, so nobody is left waiting. Cost when on: 2b + one allgather
 * of 64 bytes per node, per collective call; when off, one predictable branch. */
#include <stdio.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/slot_views.h"
#include "simple/coll.h"

typedef struct {
  char call[24];   /* "simple_allreduce" without the prefix */
  long long count; /* -1: not compared (v-forms) */
  int type, op, root;
} signature_t;

_Static_assert(sizeof(signature_t) <= SIMPLE__INLINE_BYTES, "a signature fits a slot");

static int same(const signature_t *a, const signature_t *b) {
  return strcmp(a->call, b->call) == 0 && a->count == b->count && a->type == b->type &&
         a->op == b->op && a->root == b->root;
}

static void describe(const signature_t *g, char *out, size_t len) {
  simple__call_t c = {g->call, NULL, g->count, g->type, g->op, g->root};
  simple__call_describe(&c, out, len);
}

/* The signature most threads called (node 0's first among equals): the
 * reference that the others are measured against. */
static int majority(const signature_t *sig, const int *weight, int n) {
  int best = 0, best_w = -1;
  for (int i = 0; i < n; i++) {
    int w = 0;
    for (int j = 0; j < n; j++)
      if (same(&sig[i], &sig[j])) w += weight[j];
    if (w > best_w) {
      best = i;
      best_w = w;
    }
  }
  return best;
}

int simple__coll_check(simple_t *s, const simple__call_t *call) {
  simple__node_t *n = s->node;
  int r = n->threads, P = n->nodes;
  /* Zeroed whole, padding included: signatures go on the wire. */
  signature_t mine;
  memset(&mine, 0, sizeof mine);
  snprintf(mine.call, sizeof mine.call, "%s", call->name);
  mine.count = call->count;
  mine.type = call->type;
  mine.op = call->op;
  mine.root = call->root;
  memcpy(simple__sv_block(simple__node_my_slot(s)), &mine, sizeof mine);
  /* Thread 0's work space: the node's signatures and weights, then every
   * node's reference, then the job's reference. */
  size_t need = (sizeof(signature_t) + sizeof(int)) * (size_t)(r + P) + sizeof(signature_t);
  void *w = s->thread == 0 ? simple__node_scratch(s, need) : NULL;
  int err = s->thread == 0 && !w ? SIMPLE_ERR_NOMEM : 0, rc;
  const simple__slot_t *slots = simple__node_publish(s, call->site, NULL, w, 0, err, &rc);
  if (!slots) return rc;
  signature_t *sig = slots[0].ptr, *nodes = sig + r, *ref = nodes + P;
  int *weight = (int *)(ref + 1), *node_weight = weight + r;
  rc = 0;
  if (s->thread == 0) {
    for (int u = 0; u < r; u++) {
      memcpy(&sig[u], simple__sv_block(&slots[u]), sizeof sig[u]);
      weight[u] = 1;
    }
    int m = majority(sig, weight, r);
    nodes[n->node] = sig[m];
    int agree = 0;
    for (int u = 0; u < r; u++) agree += same(&sig[u], &sig[m]);
    node_weight[n->node] = agree;
    if (P > 1) {
      /* Each node's reference and how many of its threads called it. */
      struct {
        signature_t sig;
        int weight;
      } me, all[P];
      memset(&me, 0, sizeof me); /* its padding goes on the wire too */
      me.sig = sig[m];
      me.weight = agree;
      rc = simple__comm_allgather(simple__coll_comm(n), &me, sizeof me, all);
      for (int k = 0; k < P; k++) {
        nodes[k] = all[k].sig;
        node_weight[k] = all[k].weight;
      }
    }
    *ref = nodes[rc ? n->node : majority(nodes, node_weight, P)];
    for (int u = 0; u < r && !rc; u++) {
      if (same(&sig[u], ref)) continue;
      char a[160], b[160], site[512];
      describe(&sig[u], a, sizeof a);
      describe(ref, b, sizeof b);
      simple__call_site(slots[u].send, site, sizeof site);
      fprintf(stderr,
              "simple: SIMPLE_CHECK: node %d thread %d (pid %d) called %s from %s, while the "
              "other threads of the job called %s\n",
              n->node, u, n->first_pid[n->node] + u, a, site, b);
    }
  }
  /* The verdict, and the master's MPI result, reach the node's threads. */
  if ((rc = simple__sync_rc(s, rc))) return rc;
  int job_bad = 0;
  for (int k = 0; k < P; k++)
    job_bad |= !same(&nodes[k], ref) || node_weight[k] != n->threads_of[k];
  if (!job_bad) return 0;
  return same(&mine, ref) ? SIMPLE_ERR_PEER : SIMPLE_ERR_ARG;
}

/* ------------------------------------------------------------------------
 * The free check's failure path (coll.h: simple__coll_mismatch). */

/* The reference call again, with no buffers: every thread of the node now
 * posts the same signature and fails the buffer checks alike, so the
 * node runs the call's inter-node steps in error mode, as the other nodes
 * (which called it) expect. A call of count 0 moves nothing between nodes
 * and so succeeds; either way only its failures of the job matter here. */
static int redo(simple_t *s, const simple__call_t *c) {
  size_t count = c->count > 0 ? (size_t)c->count : 0;
  /* A v form: a thread that made the same call reruns it with its own
   * count and arrays (the sizes of its marks); another, with none. */
  static const simple__coll_vargs_t none = {0, {NULL, NULL, NULL, NULL}};
  const simple__coll_vargs_t *va = s->last.name == c->name && s->vargs ? s->vargs : &none;
  const size_t *const *a = va->a;
  simple_type_t type = (simple_type_t)c->type;
  simple_op_t op = (simple_op_t)c->op;
  const char *f = c->name;
  if (!strcmp(f, "allreduce")) return simple_allreduce(s, NULL, NULL, count, type, op);
  if (!strcmp(f, "reduce")) return simple_reduce(s, NULL, NULL, count, type, op, c->root);
  if (!strcmp(f, "bcast")) return simple_bcast(s, NULL, count, type, c->root);
  if (!strcmp(f, "gather")) return simple_gather(s, NULL, NULL, count, type, c->root);
  if (!strcmp(f, "scatter")) return simple_scatter(s, NULL, NULL, count, type, c->root);
  if (!strcmp(f, "gatherv"))
    return simple_gatherv(s, NULL, va->count, NULL, a[0], a[1], type, c->root);
  if (!strcmp(f, "scatterv"))
    return simple_scatterv(s, NULL, a[0], a[1], NULL, va->count, type, c->root);
  if (!strcmp(f, "allgather")) return simple_allgather(s, NULL, NULL, count, type);
  if (!strcmp(f, "allgatherv"))
    return simple_allgatherv(s, NULL, va->count, NULL, a[0], a[1], type);
  if (!strcmp(f, "alltoall")) return simple_alltoall(s, NULL, NULL, count, type);
  if (!strcmp(f, "alltoallv")) return simple_alltoallv(s, NULL, a[0], a[1], NULL, a[2], a[3], type);
  if (!strcmp(f, "scan")) return simple_scan(s, NULL, NULL, count, type, op);
  if (!strcmp(f, "exscan")) return simple_exscan(s, NULL, NULL, count, type, op);
  if (!strcmp(f, "barrier")) return simple_barrier(s);
  return SIMPLE_ERR_ARG;
}

/* What fixes a call's messages among nodes, as far as a node in error
 * mode can match them without their sizes: src/xchg's error mode sends
 * marks for a message of any size but 0 and drains whatever comes, so two
 * calls whose schedules (which nodes exchange, how many messages, on
 * which lanes) agree fail alike, whatever their sizes. Taken from the
 * choices the collectives make: the decision table, the reductions' and
 * scans' lanes, the root's node. Where the phase among nodes is one MPI
 * collective (bcast's MPI_Bcast, the packed allgather), whose counts must
 * match, the bytes too. The v forms' counts are not in their records:
 * their collective and root only. The collectives take these choices
 * through the same helpers (coll.h, choose.h), so the two cannot drift
 * apart but where a collective adds a choice of its own. */
typedef struct {
  int root_node;   /* rooted collectives; -1: none (a reduce by the allreduce schedule) */
  int moves;       /* the call moves something between nodes (count and type > 0) */
  int alg;         /* the decision table's choice; -1: none */
  int lanes;       /* lanes the exchange uses */
  long long bytes; /* one MPI collective: its size per thread; else -1 */
} schedule_t;

static int rooted(const char *f) {
  return !strcmp(f, "bcast") || !strcmp(f, "reduce") || !strncmp(f, "gather", 6) ||
         !strncmp(f, "scatter", 7);
}

/* A call that fails on its own (unknown type, root out of range): not one
 * the other nodes can have made with success, so its schedule need not
 * match theirs. */
static int valid(const simple__node_t *n, const simple__call_t *c) {
  return (c->type < 0 || simple_type_size((simple_type_t)c->type)) &&
         (!rooted(c->name) || (c->root >= 0 && c->root < n->nprocs));
}

static schedule_t schedule_of(const simple__node_t *n, const simple__call_t *c) {
  schedule_t k = {-1, 1, -1, 1, -1};
  const char *f = c->name;
  if (rooted(f) && c->root >= 0 && c->root < n->nprocs) k.root_node = simple__node_of(n, c->root);
  if (c->count < 0) return k; /* a v form, or barrier */
  size_t es = c->type >= 0 ? simple_type_size((simple_type_t)c->type) : 0, bytes;
  if (simple__size_mul((size_t)c->count, es, &bytes)) bytes = 0;
  k.moves = c->count > 0 && es > 0;
  if (!strcmp(f, "bcast")) {
    k.alg = simple__coll_choose(SIMPLE__COLL_BCAST, n, bytes);
    if (k.alg != SIMPLE__ALG_TREE) k.bytes = (long long)bytes;
  } else if (!strcmp(f, "allreduce") || !strcmp(f, "reduce")) {
    simple__coll_alg_t alg = k.alg =
        simple__coll_choose(f[0] == 'r' ? SIMPLE__COLL_REDUCE : SIMPLE__COLL_ALLREDUCE, n, bytes);
    k.lanes = simple__coll_reduce_small(alg, bytes) ? 1 : simple__xchg_lanes(n);
    /* An allreduce's root is -1: no tree. */
    k.root_node = simple__coll_tree_root(n, c->root, (simple_op_t)c->op, alg == SIMPLE__ALG_TREE);
  } else if (!strcmp(f, "scan") || !strcmp(f, "exscan")) {
    k.lanes = simple__coll_scan_lanes(n, bytes);
  } else if (!strcmp(f, "alltoall")) {
    k.alg = simple__coll_choose(SIMPLE__COLL_ALLTOALL, n, bytes);
  } else if (!strcmp(f, "allgather")) {
    k.alg = simple__coll_choose(SIMPLE__COLL_ALLGATHER, n, bytes);
    if (k.alg != SIMPLE__ALG_DIRECT) k.bytes = (long long)bytes;
  }
  return k;
}

static int same_schedule(const simple__node_t *n, const simple__call_t *a,
                         const simple__call_t *b) {
  schedule_t x = schedule_of(n, a), y = schedule_of(n, b);
  return !strcmp(a->name, b->name) && x.root_node == y.root_node && x.moves == y.moves &&
         x.alg == y.alg && x.lanes == y.lanes && x.bytes == y.bytes;
}

/* Thread ta's call a and the reference thread tb's call b send different
 * messages among nodes: the node runs b's error path, and where the other
 * nodes made a they wait for other messages (or leave some behind) and no
 * verdict reaches them. Said at once, on the node's stderr, rather than
 * only by the hang report a minute on; and the node is marked as having
 * guessed (n->guessed), so that the hang report ends the job rather than
 * let it wait on; and while its threads rerun the reference, src/xchg
 * ends the job at once where they drain a message of another call (the
 * guess was wrong: this call would take the next one's messages, and the
 * calls after it would succeed on other calls' data). Failure path only:
 * a few table lookups per thread of the node. */
static void warn_schedules(simple_t *s, const simple__call_t *a, int ta, const simple__call_t *b,
                           int tb) {
  char da[160], db[160], sa[512], sb[512],
      end[96] = "with SIMPLE_HANG_REPORT=0 a wait ends only by SIMPLE_WATCHDOG";
  if (s->node->hang_report_s > 0)
    snprintf(end, sizeof end, "a wait of this node past SIMPLE_HANG_REPORT=%ld s ends the job",
             s->node->hang_report_s);
  simple__call_describe(a, da, sizeof da);
  simple__call_describe(b, db, sizeof db);
  simple__call_site(a->site, sa, sizeof sa);
  simple__call_site(b->site, sb, sizeof sb);
  fprintf(stderr,
          "simple: warning: node %d's threads called collectives that move different messages "
          "among nodes: thread %d %s from %s, thread %d %s from %s; the node runs thread %d's "
          "in error mode, and nodes that made thread %d's may wait for messages it does not "
          "send (%s; SIMPLE_CHECK=1 compares the calls job-wide first)\n",
          s->node->node, ta, da, sa, tb, db, sb, tb, ta, end);
}

int simple__coll_mismatch(simple_t *s) {
  int ref, verdict = simple__node_mismatch(s, &ref);
  if (s->node->nodes == 1) return verdict;
  /* The reference thread's call reaches the others through the posted
   * lines (the name is a pointer into this process's literals). */
  simple__call_t mine = s->last, theirs;
  _Static_assert(sizeof mine <= SIMPLE__INLINE_BYTES, "a call fits a slot");
  int rc;
  const simple__slot_t *lines = simple__node_exchange(s, &mine, sizeof mine, 0, &rc);
  if (!lines) return rc;
  memcpy(&theirs, lines[ref].data, sizeof theirs);
  if (!theirs.name) return verdict;
  /* Every thread looks (each reruns the call, and checks what it drains
   * against it: s->guess); thread 0 says it. */
  for (int u = 0; u < s->node->threads; u++) {
    simple__call_t c;
    memcpy(&c, lines[u].data, sizeof c);
    if (c.name && valid(s->node, &c) && !same_schedule(s->node, &c, &theirs)) {
      if (s->thread == 0) warn_schedules(s, &c, u, &theirs, ref);
      atomic_store_explicit(&s->node->guessed, 1, memory_order_relaxed);
      if (strcmp(theirs.name, "barrier")) s->guess = simple__coll_call_sig(&theirs);
      break;
    }
  }
  rc = redo(s, &theirs);
  s->guess = 0;
  return rc == SIMPLE_ERR_FATAL || rc == SIMPLE_ERR_MPI ? rc : verdict;
}

static unsigned node_sig(const unsigned char *base, const size_t *off, int k) {
  long long word;
  memcpy(&word, base + off[k], sizeof word);
  return (unsigned)(word >> 1);
}

int simple__coll_node_sigs(const unsigned char *base, const size_t *off, int P, int me) {
  int best = 0, best_w = 0;
  for (int k = 0; k < P; k++) {
    int w = 0;
    for (int j = 0; j < P; j++) w += node_sig(base, off, j) == node_sig(base, off, k);
    if (w > best_w) best = k, best_w = w;
  }
  return node_sig(base, off, me) == node_sig(base, off, best) ? SIMPLE_ERR_PEER : SIMPLE_ERR_ARG;
}
