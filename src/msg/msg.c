/* Point-to-point messages between threads: matching, delivery, waiting.
 * The design is in msg/msg.h; the public contract in simple/msg.h. */
#include "msg/msg.h"

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/sync.h"
#include "net/net_msg.h"
#include "node/ops.h"

/* An iprobe that finds nothing polls MPI once every this many calls: MPI's
 * poll costs ~0.3-1 us, the mailbox check ~10 ns (paper 003 polls its slow
 * source every 200th probe for the same reason). */
#define PROBE_MPI_EVERY 64u
/* Messages pulled from MPI per poll at most, so one poller cannot be held
 * forever by a stream of arrivals. */
#define POLL_BATCH 32

/* ------------------------------------------------------------------------
 * Mailbox lock: critical sections are a few pointer updates, so spin, and
 * yield when the holder seems preempted (threads may outnumber cores). The
 * first try is the exchange itself: a sender's lock line usually sits in
 * the receiver's cache, and a load before the exchange would fetch it
 * shared and then upgrade it, two coherence round trips (~30 ns each)
 * where the exchange alone takes one. Only a failed try polls by loads. */
static void box_lock(atomic_int *l) {
  if (!atomic_exchange_explicit(l, 1, memory_order_acquire)) return;
  for (unsigned i = 0;; i++) {
    if (!atomic_load_explicit(l, memory_order_relaxed) &&
        !atomic_exchange_explicit(l, 1, memory_order_acquire))
      return;
    if (i < 100)
      simple__cpu_relax();
    else
      sched_yield();
  }
}

static void box_unlock(atomic_int *l) { atomic_store_explicit(l, 0, memory_order_release); }

/* ------------------------------------------------------------------------
 * Node state. */
static void msg_close(simple__node_t *n);

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
  int maxt = 1;
  for (int k = 0; k < n->nodes; k++)
    if (n->threads_of[k] > maxt) maxt = n->threads_of[k];
  while ((1 << m->tbits) < maxt) m->tbits++;
  /* The same bound on every node and in every layout with the same
   * largest node, whether the message crosses nodes or not. */
  m->tag_ub = simple__net_msg_tag_ub(n) >> (2 * m->tbits);
  return m;
}

/* First use on this node, by any thread: messages are not collective, so
 * there is no barrier to set the state up under (src/base makes the
 * creation unique). */
simple__msg_node_t *simple__msg_state(simple_t *s) {
  return simple__layer_state(s->node, &s->node->msg, msg_create, msg_close);
}

static void env_drop(simple__mth_t *t, simple__env_t *e) {
  if (e->kind == SIMPLE__ENV_BUF) {
    simple__mbuf_free(t, e->buf);
  } else if (e->kind == SIMPLE__ENV_MPI) {
    /* A matched message must be received, or MPI keeps it forever. */
    void *tmp = malloc(e->bytes ? e->bytes : 1);
    if (tmp) simple__net_msg_mrecv(&e->mpimsg, tmp, e->bytes);
    free(tmp);
    free(e);
  }
}

static void msg_close(simple__node_t *n) {
  simple__msg_node_t *m = n->msg;
  if (!m) return;
  for (int i = 0; i < n->threads; i++) {
    simple__mth_t *t = &m->th[i];
    for (simple__env_t *e = t->box.uhead, *next; e; e = next) {
      next = e->next;
      env_drop(t, e);
    }
    for (int k = 0; k < t->npend; k++) {
      simple__net_msg_wait(&t->pend[k].req, NULL, NULL);
      simple__mbuf_free(t, t->pend[k].b);
    }
    free(t->pend);
    for (int k = 0; k < t->bufs.n; k++)
      if (t->bufs.h[k].p) simple__mbuf_free(t, t->bufs.h[k].p);
    for (int k = 0; k < t->ncache; k++) free(t->cache[k]);
    t->ncache = 0;
    for (int k = 0; k < t->nall; k++) {
      simple__req_t *r = t->all_reqs[k];
      if (atomic_load(r->word) == SIMPLE__REQ_MPI) simple__net_msg_wait(&r->mpireq, NULL, NULL);
      free(r);
    }
    free(t->all_reqs);
    free(t->reqs.h);
    free(t->bufs.h);
  }
  free(m->th);
  free(m);
  n->msg = NULL;
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
static simple__req_t *req_get(simple__mth_t *t) {
  simple__req_t *r = t->free_reqs;
  if (r) {
    t->free_reqs = r->next;
    return r;
  }
  if (simple__array_grow(&t->all_reqs, &t->capall, t->nall, sizeof *t->all_reqs, 16)) return NULL;
  r = aligned_alloc(SIMPLE__CACHE_LINE, sizeof *r);
  if (!r) return NULL;
  memset(r, 0, sizeof *r);
  t->all_reqs[t->nall++] = r;
  return r;
}

static void req_put(simple__mth_t *t, simple__req_t *r) {
  r->next = t->free_reqs;
  t->free_reqs = r;
}

static void req_init(simple__req_t *r, int kind) {
  r->word = &r->state;
  r->wsleep = &r->sleepers;
  atomic_store_explicit(&r->state, SIMPLE__REQ_PENDING, memory_order_relaxed);
  r->kind = kind;
  r->remote = 0;
  r->err = 0;
  r->direct = 0;
  r->mbuf = NULL;
  r->next = NULL;
  r->st.source = SIMPLE_ANY_SOURCE;
  r->st.tag = SIMPLE_ANY_TAG;
  r->st.bytes = 0;
}

/* Publishes a request's result and wakes its owner if it sleeps. Once the
 * word is stored the owner may reuse r at once: only the two atomics are
 * touched afterwards (requests and mailboxes live until the job ends). */
static void req_complete(simple__req_t *r, unsigned state) {
  atomic_uint *word = r->word, *sleepers = r->wsleep;
  atomic_store_explicit(word, state, memory_order_seq_cst);
  simple__wake_all(word, sleepers);
}

/* ------------------------------------------------------------------------
 * Matching. */
static int matches(int want_src, int want_tag, int src, int tag) {
  return (want_src == SIMPLE_ANY_SOURCE || want_src == src) &&
         (want_tag == SIMPLE_ANY_TAG || want_tag == tag);
}

/* Under the lock: unlinks the first posted receive that e matches. */
static simple__req_t *take_posted(simple__mailbox_t *b, const simple__env_t *e) {
  simple__req_t *prev = NULL;
  for (simple__req_t *r = b->phead; r; prev = r, r = r->next) {
    if (!matches(r->src, r->tag, e->src, e->tag)) continue;
    if (prev)
      prev->next = r->next;
    else
      b->phead = r->next;
    if (b->ptail == r) b->ptail = prev;
    return r;
  }
  return NULL;
}

/* Under the lock: the first queued envelope matching (src, tag), unlinked
 * if take is set. */
static simple__env_t *find_unexp(simple__mailbox_t *b, int src, int tag, int take) {
  simple__env_t *prev = NULL;
  for (simple__env_t *e = b->uhead; e; prev = e, e = e->next) {
    if (!matches(src, tag, e->src, e->tag)) continue;
    if (take) {
      if (prev)
        prev->next = e->next;
      else
        b->uhead = e->next;
      if (b->utail == e) b->utail = prev;
      atomic_fetch_sub_explicit(&b->nunexp, 1, memory_order_relaxed);
    }
    return e;
  }
  return NULL;
}

/* Under the lock: the owner's armed blocking receive, disarmed, if e
 * matches it. It was armed only with nothing posted before it, so it comes
 * first among the posted receives. */
static simple__req_t *take_armed(simple__mth_t *t, const simple__env_t *e) {
  simple__mailbox_t *b = &t->box;
  if (!b->farmed || !matches(b->fsrc, b->ftag, e->src, e->tag)) return NULL;
  b->farmed = 0;
  return &t->blocking;
}

/* Hands message e to receive r (both already unlinked), by the calling
 * thread `me`: copies the payload, hands over the buffer, or starts the MPI
 * receive into r's buffer; then completes r. */
static void deliver(simple__mth_t *me, simple__req_t *r, simple__env_t *e) {
  size_t n = e->bytes;
  unsigned state = SIMPLE__REQ_DONE;
  r->st.source = e->src;
  r->st.tag = e->tag;
  r->st.bytes = n;
  if (r->kind == SIMPLE__REQ_RECV) {
    size_t take = n;
    if (n > r->cap) {
      take = r->cap;
      r->err = SIMPLE_ERR_TRUNCATE;
    }
    if (e->kind == SIMPLE__ENV_BUF) {
      if (take) memcpy(r->buf, e->buf->data, take);
      simple__mbuf_free(me, e->buf);
    } else if (e->kind == SIMPLE__ENV_RDV) {
      if (take) memcpy(r->buf, e->sdata, take);
      if (e->sreq) req_complete(e->sreq, SIMPLE__REQ_DONE);
    } else if (n > r->cap) {
      /* Truncated: receive the whole message aside, keep the prefix. */
      unsigned char *tmp = malloc(n);
      if (!tmp) {
        r->err = SIMPLE_ERR_NOMEM;
      } else {
        int rc = simple__net_msg_mrecv(&e->mpimsg, tmp, n);
        if (rc) r->err = rc;
        if (take) memcpy(r->buf, tmp, take);
        free(tmp);
      }
      free(e);
    } else {
      int rc = simple__net_msg_imrecv(&e->mpimsg, r->buf, n, &r->mpireq);
      if (rc)
        r->err = rc;
      else
        state = SIMPLE__REQ_MPI;
      free(e);
    }
  } else {
    simple__mbuf_t *b = NULL;
    if (e->kind == SIMPLE__ENV_BUF) {
      b = e->buf;
    } else {
      b = simple__mbuf_new(me, n);
      if (!b) r->err = SIMPLE_ERR_NOMEM;
      if (e->kind == SIMPLE__ENV_RDV) {
        if (b && n) memcpy(b->data, e->sdata, n);
        if (e->sreq) req_complete(e->sreq, SIMPLE__REQ_DONE);
      } else {
        if (b) {
          int rc = simple__net_msg_imrecv(&e->mpimsg, b->data, n, &r->mpireq);
          if (rc) {
            r->err = rc;
            simple__mbuf_free(me, b);
            b = NULL;
          } else {
            state = SIMPLE__REQ_MPI;
          }
        }
        free(e);
      }
      if (b) b->size = n;
    }
    if (b) b->rpos = 0;
    r->mbuf = b;
  }
  req_complete(r, state);
}

/* Deposits e into mailbox t: the first matching posted receive gets it, or
 * it is queued. */
static void deposit(simple__mth_t *me, simple__mth_t *t, simple__env_t *e) {
  simple__mailbox_t *b = &t->box;
  box_lock(&b->lock);
  simple__req_t *r = take_armed(t, e);
  if (r && !b->finline && e->kind == SIMPLE__ENV_BUF) {
    /* A buffer for a thread blocked in simple_buf_recv (armed, not typed):
     * envelope and buffer pointer go in the mailbox line it polls, and the
     * receiver takes the rest from the buffer itself. The receiver's
     * request line and the buffer's header stay untouched here, two of
     * the four or five cache-line transfers of the general path (each
     * 50-200 ns between two cores of the development VM). */
    b->rsrc = e->src;
    b->rtag = e->tag;
    memcpy(b->fdata, &e->buf, sizeof e->buf);
    box_unlock(&b->lock);
    atomic_store_explicit(&b->fstate, SIMPLE__REQ_INLINE, memory_order_seq_cst);
    simple__wake_all(&b->fstate, &b->fsleepers);
    return;
  }
  if (!r) r = take_posted(b, e);
  if (r) {
    box_unlock(&b->lock);
    deliver(me, r, e);
    return;
  }
  e->next = NULL;
  if (b->utail)
    b->utail->next = e;
  else
    b->uhead = e;
  b->utail = e;
  atomic_fetch_add_explicit(&b->nunexp, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&b->seq, 1, memory_order_seq_cst);
  box_unlock(&b->lock);
  simple__wake_all(&b->seq, &b->sleepers);
}

/* Posts receive r in the owner's mailbox: it takes the first matching
 * queued message, or waits in the posted queue. */
static void post(simple__mth_t *me, simple__req_t *r) {
  simple__mailbox_t *b = &me->box;
  box_lock(&b->lock);
  simple__env_t *e = atomic_load_explicit(&b->nunexp, memory_order_relaxed)
                         ? find_unexp(b, r->src, r->tag, 1)
                         : NULL;
  if (e) {
    box_unlock(&b->lock);
    deliver(me, r, e);
    return;
  }
  r->next = NULL;
  if (b->ptail)
    b->ptail->next = r;
  else
    b->phead = r;
  b->ptail = r;
  box_unlock(&b->lock);
}

/* Posts the owner's blocking receive r (&me->blocking): when nothing is
 * queued or posted, it is armed in the mailbox's first line, where senders
 * find it without touching the queues (and, for a typed receive, deliver
 * small messages inline); else as post(). */
static void post_blocking(simple__mth_t *me, simple__req_t *r) {
  simple__mailbox_t *b = &me->box;
  box_lock(&b->lock);
  if (!atomic_load_explicit(&b->nunexp, memory_order_relaxed) && !b->phead) {
    b->fsrc = r->src;
    b->ftag = r->tag;
    b->fcap = (uint8_t)(r->cap < SIMPLE__MSG_INLINE ? r->cap : SIMPLE__MSG_INLINE);
    b->finline = r->kind == SIMPLE__REQ_RECV;
    atomic_store_explicit(&b->fstate, SIMPLE__REQ_PENDING, memory_order_relaxed);
    r->word = &b->fstate;
    r->wsleep = &b->fsleepers;
    b->farmed = 1;
    box_unlock(&b->lock);
    return;
  }
  box_unlock(&b->lock);
  post(me, r);
}

/* ------------------------------------------------------------------------
 * MPI: pulling arrived messages into mailboxes. */
static int mpi_tag(const simple__msg_node_t *m, int tag, int sth, int dth) {
  return (((tag << m->tbits) | sth) << m->tbits) | dth;
}

static void poll_mpi(simple__msg_node_t *m, simple__mth_t *me) {
  simple__node_t *n = m->n;
  if (n->nodes == 1) return;
  /* Someone else polling is as good as polling ourselves. */
  if (atomic_load_explicit(&m->poll_lock, memory_order_relaxed) ||
      atomic_exchange_explicit(&m->poll_lock, 1, memory_order_acquire))
    return;
  int mask = (1 << m->tbits) - 1;
  for (int k = 0; k < POLL_BATCH; k++) {
    int found = 0, node = 0, mtag = 0;
    size_t bytes = 0;
    long long msg;
    if (simple__net_msg_improbe(n, &found, &node, &mtag, &bytes, &msg) != 0 || !found) break;
    simple__env_t *e = malloc(sizeof *e);
    if (!e) {
      atomic_store_explicit(&m->poll_lock, 0, memory_order_release);
      simple_abort(NULL, "simple msg: out of memory for an incoming message");
    }
    int dth = mtag & mask;
    e->kind = SIMPLE__ENV_MPI;
    e->src = n->first_pid[node] + ((mtag >> m->tbits) & mask);
    e->tag = mtag >> (2 * m->tbits);
    e->bytes = bytes;
    e->mpimsg = msg;
    e->buf = NULL;
    e->sdata = NULL;
    e->sreq = NULL;
    deposit(me, &m->th[dth], e);
  }
  atomic_store_explicit(&m->poll_lock, 0, memory_order_release);
}

/* Frees the buffers whose sends to other nodes have completed. */
static void progress_sends(simple__mth_t *me) {
  int k = 0;
  while (k < me->npend) {
    int done = 0;
    if (simple__net_msg_test(&me->pend[k].req, &done, NULL, NULL) != 0) done = 1;
    if (done) {
      simple__mbuf_free(me, me->pend[k].b);
      me->pend[k] = me->pend[--me->npend];
    } else {
      k++;
    }
  }
}

/* What a waiter for a message that may come from another node does
 * between looks at its request (simple__wait_poll): pulls arrived messages
 * from MPI and frees the buffers of completed sends. */
typedef struct {
  simple__msg_node_t *m;
  simple__mth_t *me;
} poll_arg_t;

static void poll_hook(void *arg) {
  poll_arg_t *a = arg;
  poll_mpi(a->m, a->me);
  if (a->me->npend) progress_sends(a->me);
}

/* Takes the result of a direct MPI receive: the tag and size MPI saw. */
static void direct_status(const simple__msg_node_t *m, simple__req_t *r, int rc, int mtag,
                          size_t bytes) {
  if (rc && !r->err) r->err = rc;
  if (r->direct && rc != SIMPLE_ERR_MPI) {
    r->st.tag = mtag >> (2 * m->tbits);
    r->st.bytes = bytes;
  }
}

/* Completes an MPI receive or send after the request left PENDING. */
static int req_finish(const simple__msg_node_t *m, simple__req_t *r) {
  if (atomic_load_explicit(r->word, memory_order_acquire) == SIMPLE__REQ_MPI) {
    int mtag = 0;
    size_t bytes = 0;
    int rc = simple__net_msg_wait(&r->mpireq, &mtag, &bytes);
    direct_status(m, r, rc, mtag, bytes);
    atomic_store_explicit(r->word, SIMPLE__REQ_DONE, memory_order_relaxed);
  }
  return r->err;
}

static int req_wait(simple__msg_node_t *m, simple__mth_t *me, simple__req_t *r) {
  if (atomic_load_explicit(r->word, memory_order_acquire) == SIMPLE__REQ_PENDING) {
    poll_arg_t a = {m, me};
    int rc = r->remote || me->npend
                 ? simple__wait_poll(r->word, SIMPLE__REQ_PENDING, r->wsleep, poll_hook, &a)
                 : simple__wait_while(r->word, SIMPLE__REQ_PENDING, r->wsleep);
    if (rc) return rc;
  }
  return req_finish(m, r);
}

/* ------------------------------------------------------------------------
 * Argument checks. */
static int check_rank(const simple__node_t *n, int r, int any_ok) {
  if (any_ok && r == SIMPLE_ANY_SOURCE) return 0;
  return r < 0 || r >= n->nprocs ? SIMPLE_ERR_RANK : 0;
}

static int check_tag(const simple__msg_node_t *m, int tag, int any_ok) {
  if (any_ok && tag == SIMPLE_ANY_TAG) return 0;
  return tag < 0 || tag > m->tag_ub ? SIMPLE_ERR_ARG : 0;
}

/* Whether a receive from `src` may be matched by a message from another
 * node (and must therefore poll MPI while it waits). */
static int may_remote(const simple__node_t *n, int src) {
  if (n->nodes == 1) return 0;
  return src == SIMPLE_ANY_SOURCE || src < n->first_pid[n->node] ||
         src >= n->first_pid[n->node + 1];
}

/* The common start of every call: the job, the node state, the thread. */
#define MSG_ENTER(s, m, me)                             \
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB; \
  simple__msg_node_t *m = simple__msg_state(s);         \
  if (!m) return SIMPLE_ERR_NOMEM;                      \
  simple__mth_t *me = &m->th[(s)->thread];              \
  (void)me

int simple_tag_ub(simple_t *s) {
  if (!s) return -1;
  simple__msg_node_t *m = simple__msg_state(s);
  return m ? m->tag_ub : -1;
}

/* ------------------------------------------------------------------------
 * Sends. */

/* Sends bytes from buf to thread dest of this node. sreq is the sender's
 * request (initialized): with *rdv = 1 on return it completes when the
 * receiver has copied the payload; otherwise the send is complete. */
static int send_local(simple__msg_node_t *m, simple__mth_t *me, simple_t *s, const void *buf,
                      size_t bytes, int dest, int tag, simple__req_t *sreq, int *rdv) {
  simple__node_t *n = m->n;
  simple__mth_t *t = &m->th[dest - n->first_pid[n->node]];
  simple__mailbox_t *b = &t->box;
  simple__env_t direct = {
      .src = s->pid, .tag = tag, .bytes = bytes, .kind = SIMPLE__ENV_RDV, .sdata = buf};
  *rdv = 0;
  box_lock(&b->lock);
  simple__req_t *r = take_armed(t, &direct);
  if (r && b->finline && bytes <= b->fcap) {
    /* The receiver is blocked on this line: envelope and payload go in it. */
    b->rsrc = direct.src;
    b->rtag = tag;
    b->rbytes = (uint8_t)bytes;
    size_t head = bytes < SIMPLE__MSG_INLINE_HEAD ? bytes : SIMPLE__MSG_INLINE_HEAD;
    if (head) memcpy(b->fdata, buf, head);
    if (bytes > head) memcpy(b->fext, (const unsigned char *)buf + head, bytes - head);
    box_unlock(&b->lock);
    atomic_store_explicit(&b->fstate, SIMPLE__REQ_INLINE, memory_order_seq_cst);
    simple__wake_all(&b->fstate, &b->fsleepers);
    return 0;
  }
  /* A posted receive gets the payload straight from buf: one copy. */
  if (!r) r = take_posted(b, &direct);
  box_unlock(&b->lock);
  if (r) {
    deliver(me, r, &direct);
    return 0;
  }
  simple__env_t *e;
  if (bytes <= SIMPLE__MSG_EAGER || t == me) {
    simple__mbuf_t *mb = simple__mbuf_new(me, bytes);
    if (!mb) return SIMPLE_ERR_NOMEM;
    if (bytes) memcpy(mb->data, buf, bytes);
    mb->size = bytes;
    e = &mb->env;
    e->kind = SIMPLE__ENV_BUF;
    e->buf = mb;
  } else {
    e = &sreq->env;
    e->kind = SIMPLE__ENV_RDV;
    e->sdata = buf;
    e->sreq = sreq;
    *rdv = 1;
  }
  e->src = s->pid;
  e->tag = tag;
  e->bytes = bytes;
  deposit(me, t, e);
  return 0;
}

static int send_check(simple_t *s, const simple__msg_node_t *m, const void *buf, size_t count,
                      simple_type_t type, int dest, int tag) {
  int err = simple__check_buffer(buf, count, type);
  if (!err) err = check_rank(s->node, dest, 0);
  if (!err) err = check_tag(m, tag, 0);
  if (!err &&
      (dest < s->node->first_pid[s->node->node] || dest >= s->node->first_pid[s->node->node + 1]) &&
      count * simple_type_size(type) > INT_MAX)
    err = SIMPLE_ERR_COUNT;
  return err;
}

int simple_send(simple_t *s, const void *buf, size_t count, simple_type_t type, int dest, int tag) {
  MSG_ENTER(s, m, me);
  int err = send_check(s, m, buf, count, type, dest, tag);
  if (err) return err;
  simple__node_t *n = s->node;
  size_t bytes = count * simple_type_size(type);
  int dnode = simple__node_of(n, dest);
  if (dnode != n->node)
    return simple__net_msg_send(n, buf, bytes, dnode,
                                mpi_tag(m, tag, s->thread, dest - n->first_pid[dnode]));
  simple__req_t *r = &me->blocking;
  req_init(r, SIMPLE__REQ_SEND);
  int rdv;
  int rc = send_local(m, me, s, buf, bytes, dest, tag, r, &rdv);
  if (!rc && rdv) rc = req_wait(m, me, r);
  return rc;
}

int simple_isend(simple_t *s, const void *buf, size_t count, simple_type_t type, int dest, int tag,
                 simple_request_t *req) {
  MSG_ENTER(s, m, me);
  int err = req ? send_check(s, m, buf, count, type, dest, tag) : SIMPLE_ERR_ARG;
  if (err) return err;
  simple__node_t *n = s->node;
  size_t bytes = count * simple_type_size(type);
  simple__req_t *r = req_get(me);
  if (!r) return SIMPLE_ERR_NOMEM;
  req_init(r, SIMPLE__REQ_SEND);
  uint64_t id;
  if (simple__htab_add(&me->reqs, r, &id) != 0) {
    req_put(me, r);
    return SIMPLE_ERR_NOMEM;
  }
  int dnode = simple__node_of(n, dest), rc;
  if (dnode != n->node) {
    rc = simple__net_msg_isend(n, buf, bytes, dnode,
                               mpi_tag(m, tag, s->thread, dest - n->first_pid[dnode]), &r->mpireq);
    if (!rc) atomic_store_explicit(r->word, SIMPLE__REQ_MPI, memory_order_relaxed);
  } else {
    int rdv;
    rc = send_local(m, me, s, buf, bytes, dest, tag, r, &rdv);
    if (!rc && !rdv) atomic_store_explicit(r->word, SIMPLE__REQ_DONE, memory_order_relaxed);
  }
  if (rc) {
    simple__htab_del(&me->reqs, id);
    req_put(me, r);
    return rc;
  }
  *req = id;
  return 0;
}

/* ------------------------------------------------------------------------
 * Receives. */
static int recv_check(simple_t *s, const simple__msg_node_t *m, const void *buf, size_t count,
                      simple_type_t type, int source, int tag) {
  int err = simple__check_buffer(buf, count, type);
  if (!err) err = check_rank(s->node, source, 1);
  if (!err) err = check_tag(m, tag, 1);
  return err;
}

static void recv_init(simple__req_t *r, int kind, const simple__node_t *n, void *buf, size_t cap,
                      int source, int tag) {
  req_init(r, kind);
  r->src = source;
  r->tag = tag;
  r->buf = buf;
  r->cap = cap;
  r->remote = may_remote(n, source);
}

/* Whether a wait must poll MPI: the message may come from another node, or
 * this thread's own buffer sends to other nodes need MPI to progress. */
static int must_poll(const simple__mth_t *me, const simple__node_t *n, int source) {
  return may_remote(n, source) || me->npend > 0;
}

/* A typed receive from one thread of another node, with one tag (or any
 * tag when every node has one thread, so that no MPI tag can belong to
 * another thread), is posted in MPI itself: MPI then receives the payload
 * into buf as soon as it arrives, as a plain MPI_Irecv would, with no probe
 * and no envelope. Correct order needs two things: nothing already pulled
 * into the mailbox may match (checked under the poll lock, which pullers
 * hold until their deposit is done), and no receive posted earlier in the
 * mailbox may match (else that one falls behind: we take the mailbox path
 * too). Returns 1 if r was handled (posted or matched), 0 to post normally. */
static int post_direct(simple__msg_node_t *m, simple__mth_t *me, simple__req_t *r) {
  simple__node_t *n = m->n;
  if (!r->remote || r->src == SIMPLE_ANY_SOURCE || (r->tag == SIMPLE_ANY_TAG && m->tbits > 0))
    return 0;
  for (unsigned i = 0;; i++) {
    if (!atomic_load_explicit(&m->poll_lock, memory_order_relaxed) &&
        !atomic_exchange_explicit(&m->poll_lock, 1, memory_order_acquire))
      break;
    if (i < 100)
      simple__cpu_relax();
    else
      sched_yield();
  }
  simple__mailbox_t *b = &me->box;
  box_lock(&b->lock);
  int blocked = 0;
  for (simple__req_t *q = b->phead; q && !blocked; q = q->next)
    blocked = (q->src == SIMPLE_ANY_SOURCE || q->src == r->src) &&
              (q->tag == SIMPLE_ANY_TAG || r->tag == SIMPLE_ANY_TAG || q->tag == r->tag);
  simple__env_t *e = NULL;
  if (!blocked && atomic_load_explicit(&b->nunexp, memory_order_relaxed))
    e = find_unexp(b, r->src, r->tag, 1);
  box_unlock(&b->lock);
  if (blocked || e) {
    atomic_store_explicit(&m->poll_lock, 0, memory_order_release);
    if (e) deliver(me, r, e);
    return e != NULL;
  }
  int node = simple__node_of(n, r->src), sth = r->src - n->first_pid[node];
  int mtag = r->tag == SIMPLE_ANY_TAG ? -1 : mpi_tag(m, r->tag, sth, me - m->th);
  int rc = simple__net_msg_irecv(n, r->buf, r->cap, node, mtag, &r->mpireq);
  atomic_store_explicit(&m->poll_lock, 0, memory_order_release);
  r->st.source = r->src;
  r->st.tag = r->tag;
  r->direct = 1;
  if (rc) {
    r->err = rc;
    atomic_store_explicit(r->word, SIMPLE__REQ_DONE, memory_order_relaxed);
  } else {
    atomic_store_explicit(r->word, SIMPLE__REQ_MPI, memory_order_relaxed);
  }
  return 1;
}

int simple_recv(simple_t *s, void *buf, size_t count, simple_type_t type, int source, int tag,
                simple_status_t *status) {
  MSG_ENTER(s, m, me);
  int err = recv_check(s, m, buf, count, type, source, tag);
  if (err) return err;
  simple__node_t *n = s->node;
  size_t cap = count * simple_type_size(type);
  if (n->threads == 1 && source != SIMPLE_ANY_SOURCE && may_remote(n, source) &&
      (tag != SIMPLE_ANY_TAG || m->tbits == 0) &&
      !atomic_load_explicit(&me->box.nunexp, memory_order_relaxed) && !me->box.phead) {
    /* The node's only thread, with nothing queued or posted: no other
     * thread can pull MPI messages or touch the mailbox, so this is a plain
     * MPI_Recv, with no lock and no request (and no status asked of MPI
     * when the caller wants none). */
    int node = simple__node_of(n, source), mtag = 0;
    size_t got = 0;
    int rc = simple__net_msg_recv(
        n, buf, cap, node,
        tag == SIMPLE_ANY_TAG ? -1 : mpi_tag(m, tag, source - n->first_pid[node], 0),
        status ? &mtag : NULL, status ? &got : NULL);
    if (status && rc != SIMPLE_ERR_MPI) {
      status->source = source;
      status->tag = mtag >> (2 * m->tbits);
      status->bytes = got;
    }
    return rc;
  }
  simple__req_t *r = &me->blocking;
  recv_init(r, SIMPLE__REQ_RECV, n, buf, cap, source, tag);
  if (!post_direct(m, me, r)) {
    r->remote = must_poll(me, s->node, source);
    post_blocking(me, r);
  }
  int rc = req_wait(m, me, r);
  if (rc == 0 && atomic_load_explicit(r->word, memory_order_relaxed) == SIMPLE__REQ_INLINE) {
    simple__mailbox_t *b = &me->box;
    r->st.source = b->rsrc;
    r->st.tag = b->rtag;
    r->st.bytes = b->rbytes;
    size_t nb = b->rbytes, head = nb < SIMPLE__MSG_INLINE_HEAD ? nb : SIMPLE__MSG_INLINE_HEAD;
    if (head) memcpy(buf, b->fdata, head);
    if (nb > head) memcpy((unsigned char *)buf + head, b->fext, nb - head);
  }
  if (status && rc != SIMPLE_ERR_FATAL) *status = r->st;
  return rc;
}

int simple_irecv(simple_t *s, void *buf, size_t count, simple_type_t type, int source, int tag,
                 simple_request_t *req) {
  MSG_ENTER(s, m, me);
  int err = req ? recv_check(s, m, buf, count, type, source, tag) : SIMPLE_ERR_ARG;
  if (err) return err;
  simple__req_t *r = req_get(me);
  if (!r) return SIMPLE_ERR_NOMEM;
  uint64_t id;
  if (simple__htab_add(&me->reqs, r, &id) != 0) {
    req_put(me, r);
    return SIMPLE_ERR_NOMEM;
  }
  recv_init(r, SIMPLE__REQ_RECV, s->node, buf, count * simple_type_size(type), source, tag);
  if (!post_direct(m, me, r)) post(me, r);
  *req = id;
  return 0;
}

/* ------------------------------------------------------------------------
 * Completion. */
static void req_release(simple__mth_t *me, simple__req_t *r, simple_request_t *req,
                        simple_status_t *status) {
  if (status) *status = r->st;
  simple__htab_del(&me->reqs, *req);
  req_put(me, r);
  *req = SIMPLE_REQUEST_NULL;
}

static const simple_status_t empty_status = {SIMPLE_ANY_SOURCE, SIMPLE_ANY_TAG, 0};

int simple_wait(simple_t *s, simple_request_t *req, simple_status_t *status) {
  MSG_ENTER(s, m, me);
  if (!req) return SIMPLE_ERR_ARG;
  if (*req == SIMPLE_REQUEST_NULL) {
    if (status) *status = empty_status;
    return 0;
  }
  simple__req_t *r = simple__htab_get(&me->reqs, *req);
  if (!r) return SIMPLE_ERR_ARG;
  int rc = req_wait(m, me, r);
  if (rc == SIMPLE_ERR_FATAL) return rc;
  req_release(me, r, req, status);
  return rc;
}

int simple_waitall(simple_t *s, int count, simple_request_t *reqs, simple_status_t *statuses) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  if (count < 0 || (count > 0 && !reqs)) return SIMPLE_ERR_ARG;
  int first = 0;
  for (int i = 0; i < count; i++) {
    int rc = simple_wait(s, &reqs[i], statuses ? &statuses[i] : NULL);
    if (rc == SIMPLE_ERR_FATAL) return rc;
    if (rc && !first) first = rc;
  }
  return first;
}

int simple_test(simple_t *s, simple_request_t *req, int *flag, simple_status_t *status) {
  MSG_ENTER(s, m, me);
  if (!req || !flag) return SIMPLE_ERR_ARG;
  if (*req == SIMPLE_REQUEST_NULL) {
    *flag = 1;
    if (status) *status = empty_status;
    return 0;
  }
  simple__req_t *r = simple__htab_get(&me->reqs, *req);
  if (!r) return SIMPLE_ERR_ARG;
  *flag = 0;
  unsigned st = atomic_load_explicit(r->word, memory_order_acquire);
  if (st == SIMPLE__REQ_PENDING && r->remote) {
    poll_mpi(m, me);
    st = atomic_load_explicit(r->word, memory_order_acquire);
  }
  if (st == SIMPLE__REQ_PENDING) return 0;
  if (st == SIMPLE__REQ_MPI) {
    int done = 0, mtag = 0;
    size_t bytes = 0;
    int rc = simple__net_msg_test(&r->mpireq, &done, &mtag, &bytes);
    if (!done) return 0;
    direct_status(m, r, rc, mtag, bytes);
    atomic_store_explicit(r->word, SIMPLE__REQ_DONE, memory_order_relaxed);
  }
  *flag = 1;
  int rc = r->err;
  req_release(me, r, req, status);
  return rc;
}

/* ------------------------------------------------------------------------
 * Probes. */
static int probe_check(simple_t *s, const simple__msg_node_t *m, int source, int tag) {
  int err = check_rank(s->node, source, 1);
  return err ? err : check_tag(m, tag, 1);
}

/* Looks for a matching queued message; fills *status if found. */
static int probe_box(simple__mailbox_t *b, int source, int tag, simple_status_t *status) {
  if (!atomic_load_explicit(&b->nunexp, memory_order_acquire)) return 0;
  box_lock(&b->lock);
  simple__env_t *e = find_unexp(b, source, tag, 0);
  if (e && status) {
    status->source = e->src;
    status->tag = e->tag;
    status->bytes = e->bytes;
  }
  box_unlock(&b->lock);
  return e != NULL;
}

int simple_iprobe(simple_t *s, int source, int tag, int *flag, simple_status_t *status) {
  MSG_ENTER(s, m, me);
  if (!flag) return SIMPLE_ERR_ARG;
  int err = probe_check(s, m, source, tag);
  if (err) return err;
  if (must_poll(me, s->node, source) && ++me->probes % PROBE_MPI_EVERY == 0) {
    poll_mpi(m, me);
    if (me->npend) progress_sends(me);
  }
  *flag = probe_box(&me->box, source, tag, status);
  return 0;
}

int simple_probe(simple_t *s, int source, int tag, simple_status_t *status) {
  MSG_ENTER(s, m, me);
  int err = probe_check(s, m, source, tag);
  if (err) return err;
  int remote = must_poll(me, s->node, source);
  simple__mailbox_t *b = &me->box;
  for (;;) {
    unsigned seq = atomic_load_explicit(&b->seq, memory_order_acquire);
    if (remote) poll_mpi(m, me);
    if (probe_box(b, source, tag, status)) return 0;
    poll_arg_t a = {m, me};
    int rc = remote ? simple__wait_poll(&b->seq, seq, &b->sleepers, poll_hook, &a)
                    : simple__wait_while(&b->seq, seq, &b->sleepers);
    if (rc) return rc;
  }
}

/* ------------------------------------------------------------------------
 * Buffer messages (the public calls are in msg_buf.c). */
int simple__msg_buf_send(simple_t *s, simple__mbuf_t *b, int dest, int tag) {
  simple__msg_node_t *m = s->node->msg;
  simple__mth_t *me = &m->th[s->thread];
  simple__node_t *n = s->node;
  int dnode = simple__node_of(n, dest);
  if (dnode != n->node) {
    /* The buffer is the library's: send it without waiting, free it when
     * MPI is done with it. */
    if (me->npend) progress_sends(me);
    int rc = b->size > INT_MAX ? SIMPLE_ERR_COUNT : 0;
    if (!rc) rc = simple__array_grow(&me->pend, &me->cappend, me->npend, sizeof *me->pend, 16);
    if (!rc)
      rc = simple__net_msg_isend(n, b->data, b->size, dnode,
                                 mpi_tag(m, tag, s->thread, dest - n->first_pid[dnode]),
                                 &me->pend[me->npend].req);
    if (rc) {
      simple__mbuf_free(me, b);
      return rc;
    }
    me->pend[me->npend++].b = b;
    return 0;
  }
  simple__env_t *e = &b->env;
  e->kind = SIMPLE__ENV_BUF;
  e->buf = b;
  e->src = s->pid;
  e->tag = tag;
  e->bytes = b->size;
  e->sdata = NULL;
  e->sreq = NULL;
  deposit(me, &m->th[dest - n->first_pid[n->node]], e);
  return 0;
}

int simple__msg_buf_recv(simple_t *s, int source, int tag, simple__mbuf_t **out,
                         simple_status_t *status) {
  simple__msg_node_t *m = s->node->msg;
  simple__mth_t *me = &m->th[s->thread];
  int err = check_rank(s->node, source, 1);
  if (!err) err = check_tag(m, tag, 1);
  if (err) return err;
  simple__req_t *r = &me->blocking;
  recv_init(r, SIMPLE__REQ_BUFRECV, s->node, NULL, 0, source, tag);
  r->remote = must_poll(me, s->node, source);
  post_blocking(me, r);
  int rc = req_wait(m, me, r);
  if (rc == SIMPLE_ERR_FATAL) return rc;
  if (rc == 0 && atomic_load_explicit(r->word, memory_order_relaxed) == SIMPLE__REQ_INLINE) {
    simple__mailbox_t *b = &me->box;
    simple__mbuf_t *mb;
    memcpy(&mb, b->fdata, sizeof mb);
    /* Written before it is read: one transfer brings the header line here
     * for good (a read first would fetch it shared, then upgrade it). */
    mb->rpos = 0;
    r->st.source = b->rsrc;
    r->st.tag = b->rtag;
    r->st.bytes = mb->size;
    r->mbuf = mb;
  }
  if (status) *status = r->st;
  *out = r->mbuf;
  if (rc && r->mbuf) {
    simple__mbuf_free(me, r->mbuf);
    *out = NULL;
  }
  return rc;
}

int simple__msg_check_dest(simple_t *s, int dest, int tag) {
  int err = check_rank(s->node, dest, 0);
  return err ? err : check_tag(s->node->msg, tag, 0);
}
