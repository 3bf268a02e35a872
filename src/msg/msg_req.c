/* The message layer's per-node state, its handle tables and the
 * per-thread request pools. */
#include "msg/msg.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/sync.h"

/* ------------------------------------------------------------------------
 * Node state. */
static void msg_close(simple__node_t *n);

/* The layer's communicator, made when the job starts: messages are not
 * collective, so the layer cannot make it when it sets up (on the first
 * message, from any thread of any node at any time), yet a duplicate is
 * made by every node at once. A slot of its own, since the state that
 * reads it is made later. Cost: one MPI_Comm_dup per job, used or not. */
static simple__layer_key_t comm_key;

static int comm_open(simple__node_t *n) {
  return simple__comm_open_slot(n, simple__layer_slot(n, &comm_key));
}

/* Runs after msg_close (an at-close hook), which completed every request
 * on the communicator. */
static void comm_close(simple__node_t *n) {
  simple__comm_close_slot(simple__layer_slot(n, &comm_key));
}

__attribute__((constructor)) static void register_hooks(void) {
  static const simple__layer_hooks_t h = {"msg", comm_open, comm_close};
  if (simple__layer_hooks(&h) != 0) abort(); /* a build error: more layers than slots */
}

static void *msg_create(simple__node_t *n) {
  simple__msg_node_t *m = aligned_alloc(SIMPLE__CACHE_LINE, sizeof *m);
  simple__mth_t *th = aligned_alloc(SIMPLE__CACHE_LINE, sizeof *th * (size_t)n->threads);
  if (!m || !th) {
    free(m);
    free(th);
    return NULL;
  }
  memset(m, 0, sizeof *m);
  memset(th, 0, sizeof *th * (size_t)n->threads);
  m->n = n;
  m->th = th;
  /* Bits for a thread index of the largest node. */
  for (int k = 0; k < n->nodes; k++)
    while ((1 << m->tbits) < n->threads_of[k]) m->tbits++;
  /* The same bound on every node and in every layout with the same
   * largest node, whether the message crosses nodes or not. */
  m->comm = *simple__layer_slot(n, &comm_key);
  m->tag_ub = simple__comm_tag_ub(m->comm) >> (2 * m->tbits);
  return m;
}

/* First use on this node, by any thread: messages are not collective, so
 * there is no barrier to set the state up under (src/base makes the
 * creation unique). */
simple__msg_node_t *simple__msg_state(simple_t *s) {
  return simple__layer_state(s->node, simple__layer_slot(s->node, &simple__msg_key), msg_create,
                             msg_close);
}

static void env_drop(simple__mth_t *t, simple__env_t *e) {
  if (e->kind == SIMPLE__ENV_BUF) {
    simple__mbuf_free(t, e->buf);
  } else if (e->kind == SIMPLE__ENV_MPI) {
    /* A matched message must be received, or MPI keeps it forever. */
    void *tmp = malloc(e->bytes ? e->bytes : 1);
    if (tmp) simple__comm_mrecv(&e->mpimsg, tmp, e->bytes);
    free(tmp);
    free(e);
  }
}

simple__layer_key_t simple__msg_key;

static void msg_close(simple__node_t *n) {
  simple__msg_node_t *m = simple__msg_of(n);
  if (!m) return;
  for (int i = 0; i < n->threads; i++) {
    simple__mth_t *t = &m->th[i];
    for (simple__env_t *e = t->box.uhead, *next; e; e = next) {
      next = e->next;
      env_drop(t, e);
    }
    for (int k = 0; k < t->npend; k++) {
      simple__comm_wait(&t->pend[k].req, NULL, NULL);
      simple__mbuf_free(t, t->pend[k].b);
    }
    free(t->pend);
    for (int k = 0; k < t->bufs.n; k++)
      if (t->bufs.h[k].p) simple__mbuf_free(t, t->bufs.h[k].p);
    for (int k = 0; k < t->ncache; k++) free(t->cache[k]);
    t->ncache = 0;
    for (int k = 0; k < t->nall; k++) {
      simple__req_t *r = t->all_reqs[k];
      if (atomic_load(r->word) == SIMPLE__REQ_MPI) simple__comm_wait(&r->mpireq, NULL, NULL);
      free(r);
    }
    free(t->all_reqs);
    free(t->reqs.h);
    free(t->bufs.h);
  }
  free(m->th);
  free(m);
  *simple__layer_slot(n, &simple__msg_key) = NULL;
}

/* ------------------------------------------------------------------------
 * Handle tables. */
int simple__htab_add(simple__htab_t *t, void *p, uint64_t *id) {
  if (t->free_head == 0 && simple__array_grow(&t->h, &t->cap, t->n, sizeof *t->h, 64))
    return SIMPLE_ERR_NOMEM;
  int slot;
  /* free_head is slot + 1 of the first free slot, 0 when none. */
  if (t->free_head) {
    slot = t->free_head - 1;
    t->free_head = t->h[slot].next_free;
  } else {
    slot = t->n++;
    t->h[slot].gen = 0;
  }
  if (++t->h[slot].gen == 0) t->h[slot].gen = 1;
  t->h[slot].p = p;
  *id = ((uint64_t)t->h[slot].gen << 32) | (uint64_t)(slot + 1);
  return 0;
}

void *simple__htab_get(simple__htab_t *t, uint64_t id) {
  uint64_t slot = (id & 0xffffffffu);
  if (slot == 0 || slot > (uint64_t)t->n) return NULL;
  simple__handle_t *h = &t->h[slot - 1];
  return h->p && h->gen == (uint32_t)(id >> 32) ? h->p : NULL;
}

void simple__htab_del(simple__htab_t *t, uint64_t id) {
  int slot = (int)(id & 0xffffffffu) - 1;
  t->h[slot].p = NULL;
  t->h[slot].next_free = t->free_head;
  t->free_head = slot + 1;
}

/* ------------------------------------------------------------------------
 * Requests: per-thread pools, never freed before the job ends, so a thread
 * that completed a request may still read its sleeper count after the
 * owner has reused it (a spurious wake-up at worst). */
simple__req_t *simple__msg_req_new(simple__mth_t *t, uint64_t *id) {
  simple__req_t *r = t->free_reqs;
  if (r) {
    t->free_reqs = r->next;
  } else if (!simple__array_grow(&t->all_reqs, &t->capall, t->nall, sizeof *t->all_reqs, 16) &&
             (r = aligned_alloc(SIMPLE__CACHE_LINE, sizeof *r))) {
    memset(r, 0, sizeof *r);
    t->all_reqs[t->nall++] = r;
  }
  if (r && simple__htab_add(&t->reqs, r, id) != 0) {
    simple__msg_req_put(t, r);
    return NULL;
  }
  return r;
}

void simple__msg_req_put(simple__mth_t *t, simple__req_t *r) {
  r->next = t->free_reqs;
  t->free_reqs = r;
}

void simple__msg_req_init(simple__req_t *r, int kind) {
  r->word = &r->state;
  r->wsleep = &r->sleepers;
  atomic_store_explicit(&r->state, SIMPLE__REQ_PENDING, memory_order_relaxed);
  r->kind = kind;
  r->remote = 0;
  r->err = 0;
  r->direct = 0;
  r->mbuf = NULL;
  r->next = NULL;
  r->st = (simple_status_t){SIMPLE_ANY_SOURCE, SIMPLE_ANY_TAG, 0};
}
