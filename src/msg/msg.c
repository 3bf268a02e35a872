/* Point-to-point messages between threads: the public calls (sends,
 * receives, completion, probes). The design is in msg/msg.h; the public
 * contract in simple/msg.h. Mailboxes are in msg_box.c, the inter-node
 * side in msg_remote.c, state and requests in msg_req.c, buffers in
 * msg_buf.c. */
#include "msg/msg.h"

#include <limits.h>
#include <string.h>

#include "base/buf.h"
#include "node/ops.h"

/* An iprobe that finds nothing polls MPI once every this many calls: MPI's
 * poll costs ~0.3-1 us, the mailbox check ~10 ns (paper 003 polls its slow
 * source every 200th probe for the same reason). */
#define PROBE_MPI_EVERY 64u

/* ------------------------------------------------------------------------
 * Argument checks. */

/* 0, or the error of a peer's rank r, then of tag (the wildcards allowed
 * when any_ok). */
static int check_peer(const simple_t *s, const simple__msg_node_t *m, int r, int tag, int any_ok) {
  if (!(any_ok && r == SIMPLE_ANY_SOURCE) && (r < 0 || r >= s->node->nprocs))
    return SIMPLE_ERR_RANK;
  if (!(any_ok && tag == SIMPLE_ANY_TAG) && (tag < 0 || tag > m->tag_ub)) return SIMPLE_ERR_ARG;
  return 0;
}

/* Whether a receive from `src` may be matched by a message from another
 * node (and must therefore poll MPI while it waits). */
static int may_remote(const simple__node_t *n, int src) {
  if (n->nodes == 1) return 0;
  return src == SIMPLE_ANY_SOURCE || src < n->first_pid[n->node] ||
         src >= n->first_pid[n->node + 1];
}

int simple_tag_ub(simple_t *s) {
  if (!SIMPLE__IN_JOB(s)) return -1;
  simple__msg_node_t *m = simple__msg_state(s);
  return m ? m->tag_ub : -1;
}

/* ------------------------------------------------------------------------
 * Sends. */

/* Deposits buffer b in thread t's mailbox as a message from src. */
static void deposit_buf(simple__mth_t *me, simple__mth_t *t, simple__mbuf_t *b, int src, int tag) {
  b->env =
      (simple__env_t){.src = src, .tag = tag, .bytes = b->size, .kind = SIMPLE__ENV_BUF, .buf = b};
  simple__msg_deposit(me, t, &b->env);
}

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
  simple__msg_box_lock(&b->lock);
  simple__req_t *r = simple__msg_take_armed(t, &direct);
  if (r && b->finline && bytes <= b->fcap) {
    /* The receiver is blocked on this line: envelope and payload go in it. */
    b->rbytes = (uint8_t)bytes;
    size_t head = bytes < SIMPLE__MSG_INLINE_HEAD ? bytes : SIMPLE__MSG_INLINE_HEAD;
    if (head) memcpy(b->fdata, buf, head);
    if (bytes > head) memcpy(b->fext, (const unsigned char *)buf + head, bytes - head);
    simple__msg_inline_done(b, direct.src, tag);
    return 0;
  }
  /* A posted receive gets the payload straight from buf: one copy. */
  if (!r) r = simple__msg_take_posted(b, &direct);
  simple__msg_box_unlock(&b->lock);
  if (r) {
    simple__msg_deliver(me, r, &direct);
    return 0;
  }
  if (bytes > SIMPLE__MSG_EAGER && t != me) {
    /* Rendezvous: the receiver copies from buf, then completes sreq. */
    sreq->env = direct;
    sreq->env.sreq = sreq;
    *rdv = 1;
    simple__msg_deposit(me, t, &sreq->env);
    return 0;
  }
  simple__mbuf_t *mb = simple__mbuf_new(me, bytes);
  if (!mb) return SIMPLE_ERR_NOMEM;
  if (bytes) memcpy(mb->data, buf, bytes);
  mb->size = bytes;
  deposit_buf(me, t, mb, s->pid, tag);
  return 0;
}

/* 0, or the error of a typed send's or receive's (recv) arguments: the
 * buffer, the peer and the tag, and a send to another node of more bytes
 * than MPI's int count. */
static int typed_check(simple_t *s, const simple__msg_node_t *m, const void *buf, size_t count,
                       simple_type_t type, int peer, int tag, int recv) {
  int err = simple__check_buffer(buf, count, type);
  if (!err) err = check_peer(s, m, peer, tag, recv);
  if (!err && !recv && may_remote(s->node, peer) && count * simple_type_size(type) > INT_MAX)
    err = SIMPLE_ERR_COUNT;
  return err;
}

int simple_send(simple_t *s, const void *buf, size_t count, simple_type_t type, int dest, int tag) {
  SIMPLE__MSG_ENTER(s, m, me);
  int err = typed_check(s, m, buf, count, type, dest, tag, 0);
  if (err) return err;
  simple__node_t *n = s->node;
  size_t bytes = count * simple_type_size(type);
  int dnode = simple__node_of(n, dest);
  if (dnode != n->node)
    return simple__comm_send(m->comm, buf, bytes, dnode,
                             simple__msg_mpi_tag(m, tag, s->thread, dest - n->first_pid[dnode]));
  simple__req_t *r = &me->blocking;
  simple__msg_req_init(r, SIMPLE__REQ_SEND);
  int rdv;
  int rc = send_local(m, me, s, buf, bytes, dest, tag, r, &rdv);
  if (!rc && rdv) rc = simple__msg_req_wait(m, me, r);
  return rc;
}

int simple_isend(simple_t *s, const void *buf, size_t count, simple_type_t type, int dest, int tag,
                 simple_request_t *req) {
  SIMPLE__MSG_ENTER(s, m, me);
  int err = req ? typed_check(s, m, buf, count, type, dest, tag, 0) : SIMPLE_ERR_ARG;
  if (err) return err;
  simple__node_t *n = s->node;
  size_t bytes = count * simple_type_size(type);
  uint64_t id;
  simple__req_t *r = simple__msg_req_new(me, &id);
  if (!r) return SIMPLE_ERR_NOMEM;
  simple__msg_req_init(r, SIMPLE__REQ_SEND);
  int dnode = simple__node_of(n, dest), rc;
  if (dnode != n->node) {
    rc = simple__comm_isend(m->comm, buf, bytes, dnode,
                            simple__msg_mpi_tag(m, tag, s->thread, dest - n->first_pid[dnode]),
                            &r->mpireq);
    if (!rc) atomic_store_explicit(r->word, SIMPLE__REQ_MPI, memory_order_relaxed);
  } else {
    int rdv;
    rc = send_local(m, me, s, buf, bytes, dest, tag, r, &rdv);
    if (!rc && !rdv) atomic_store_explicit(r->word, SIMPLE__REQ_DONE, memory_order_relaxed);
  }
  if (rc) {
    simple__htab_del(&me->reqs, id);
    simple__msg_req_put(me, r);
    return rc;
  }
  *req = id;
  return 0;
}

/* ------------------------------------------------------------------------
 * Receives. */
static void recv_init(simple__req_t *r, int kind, const simple__node_t *n, void *buf, size_t cap,
                      int source, int tag) {
  simple__msg_req_init(r, kind);
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
  simple__msg_spin_lock(&m->poll_lock);
  simple__mailbox_t *b = &me->box;
  simple__msg_box_lock(&b->lock);
  int blocked = 0;
  for (simple__req_t *q = b->phead; q && !blocked; q = q->next)
    blocked = (q->src == SIMPLE_ANY_SOURCE || q->src == r->src) &&
              (q->tag == SIMPLE_ANY_TAG || r->tag == SIMPLE_ANY_TAG || q->tag == r->tag);
  simple__env_t *e = NULL;
  if (!blocked && atomic_load_explicit(&b->nunexp, memory_order_relaxed))
    e = simple__msg_find_unexp(b, r->src, r->tag, 1);
  simple__msg_box_unlock(&b->lock);
  if (blocked || e) {
    atomic_store_explicit(&m->poll_lock, 0, memory_order_release);
    if (e) simple__msg_deliver(me, r, e);
    return e != NULL;
  }
  int node = simple__node_of(n, r->src), sth = r->src - n->first_pid[node];
  int mtag = r->tag == SIMPLE_ANY_TAG ? -1 : simple__msg_mpi_tag(m, r->tag, sth, me - m->th);
  int rc = simple__comm_irecv(m->comm, r->buf, r->cap, node, mtag, &r->mpireq);
  atomic_store_explicit(&m->poll_lock, 0, memory_order_release);
  r->st.source = r->src;
  r->st.tag = r->tag;
  r->direct = 1;
  r->err = rc; /* a new request's error is 0 */
  atomic_store_explicit(r->word, rc ? SIMPLE__REQ_DONE : SIMPLE__REQ_MPI, memory_order_relaxed);
  return 1;
}

int simple_recv(simple_t *s, void *buf, size_t count, simple_type_t type, int source, int tag,
                simple_status_t *status) {
  SIMPLE__MSG_ENTER(s, m, me);
  int err = typed_check(s, m, buf, count, type, source, tag, 1);
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
    int rc = simple__comm_recv(
        m->comm, buf, cap, node,
        tag == SIMPLE_ANY_TAG ? -1 : simple__msg_mpi_tag(m, tag, source - n->first_pid[node], 0),
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
    simple__msg_post_blocking(me, r);
  }
  int rc = simple__msg_req_wait(m, me, r);
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
  SIMPLE__MSG_ENTER(s, m, me);
  int err = req ? typed_check(s, m, buf, count, type, source, tag, 1) : SIMPLE_ERR_ARG;
  if (err) return err;
  uint64_t id;
  simple__req_t *r = simple__msg_req_new(me, &id);
  if (!r) return SIMPLE_ERR_NOMEM;
  recv_init(r, SIMPLE__REQ_RECV, s->node, buf, count * simple_type_size(type), source, tag);
  if (!post_direct(m, me, r)) simple__msg_post(me, r);
  *req = id;
  return 0;
}

/* ------------------------------------------------------------------------
 * Completion. */
static void req_release(simple__mth_t *me, simple__req_t *r, simple_request_t *req,
                        simple_status_t *status) {
  if (status) *status = r->st;
  simple__htab_del(&me->reqs, *req);
  simple__msg_req_put(me, r);
  *req = SIMPLE_REQUEST_NULL;
}

static const simple_status_t empty_status = {SIMPLE_ANY_SOURCE, SIMPLE_ANY_TAG, 0};

int simple_wait(simple_t *s, simple_request_t *req, simple_status_t *status) {
  SIMPLE__MSG_ENTER(s, m, me);
  if (!req) return SIMPLE_ERR_ARG;
  if (*req == SIMPLE_REQUEST_NULL) {
    if (status) *status = empty_status;
    return 0;
  }
  simple__req_t *r = simple__htab_get(&me->reqs, *req);
  if (!r) return SIMPLE_ERR_ARG;
  int rc = simple__msg_req_wait(m, me, r);
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
  SIMPLE__MSG_ENTER(s, m, me);
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
    simple__msg_poll_mpi(m, me);
    st = atomic_load_explicit(r->word, memory_order_acquire);
  }
  if (st == SIMPLE__REQ_PENDING) return 0;
  if (st == SIMPLE__REQ_MPI) {
    int done = 0, mtag = 0;
    size_t bytes = 0;
    int rc = simple__comm_test(&r->mpireq, &done, &mtag, &bytes);
    if (!done) return 0;
    simple__msg_mpi_done(m, r, rc, mtag, bytes);
  }
  *flag = 1;
  int rc = r->err;
  req_release(me, r, req, status);
  return rc;
}

/* ------------------------------------------------------------------------
 * Probes. */
/* Looks for a matching queued message; fills *status if found. */
static int probe_box(simple__mailbox_t *b, int source, int tag, simple_status_t *status) {
  if (!atomic_load_explicit(&b->nunexp, memory_order_acquire)) return 0;
  simple__msg_box_lock(&b->lock);
  simple__env_t *e = simple__msg_find_unexp(b, source, tag, 0);
  if (e && status) {
    status->source = e->src;
    status->tag = e->tag;
    status->bytes = e->bytes;
  }
  simple__msg_box_unlock(&b->lock);
  return e != NULL;
}

int simple_iprobe(simple_t *s, int source, int tag, int *flag, simple_status_t *status) {
  SIMPLE__MSG_ENTER(s, m, me);
  if (!flag) return SIMPLE_ERR_ARG;
  int err = check_peer(s, m, source, tag, 1);
  if (err) return err;
  if (must_poll(me, s->node, source) && ++me->probes % PROBE_MPI_EVERY == 0) {
    simple__msg_poll_mpi(m, me);
    if (me->npend) simple__msg_progress_sends(me);
  }
  *flag = probe_box(&me->box, source, tag, status);
  return 0;
}

int simple_probe(simple_t *s, int source, int tag, simple_status_t *status) {
  SIMPLE__MSG_ENTER(s, m, me);
  int err = check_peer(s, m, source, tag, 1);
  if (err) return err;
  int remote = must_poll(me, s->node, source);
  simple__mailbox_t *b = &me->box;
  for (;;) {
    unsigned seq = atomic_load_explicit(&b->seq, memory_order_acquire);
    if (remote) simple__msg_poll_mpi(m, me);
    if (probe_box(b, source, tag, status)) return 0;
    int rc = remote ? simple__msg_wait_remote(m, me, &b->seq, seq, &b->sleepers)
                    : simple__wait_while(&b->seq, seq, &b->sleepers);
    if (rc) return rc;
  }
}

/* ------------------------------------------------------------------------
 * Buffer messages (the public calls are in msg_buf.c). */
int simple__msg_buf_send(simple_t *s, simple__mbuf_t *b, int dest, int tag) {
  simple__msg_node_t *m = simple__msg_of(s->node);
  simple__mth_t *me = &m->th[s->thread];
  simple__node_t *n = s->node;
  int dnode = simple__node_of(n, dest);
  if (dnode != n->node) {
    /* The buffer is the library's: send it without waiting, free it when
     * MPI is done with it. */
    if (me->npend) simple__msg_progress_sends(me);
    int rc = b->size > INT_MAX ? SIMPLE_ERR_COUNT : 0;
    if (!rc) rc = simple__array_grow(&me->pend, &me->cappend, me->npend, sizeof *me->pend, 16);
    if (!rc)
      rc = simple__comm_isend(m->comm, b->data, b->size, dnode,
                              simple__msg_mpi_tag(m, tag, s->thread, dest - n->first_pid[dnode]),
                              &me->pend[me->npend].req);
    if (rc) {
      simple__mbuf_free(me, b);
      return rc;
    }
    me->pend[me->npend++].b = b;
    return 0;
  }
  deposit_buf(me, &m->th[dest - n->first_pid[n->node]], b, s->pid, tag);
  return 0;
}

int simple__msg_buf_recv(simple_t *s, int source, int tag, simple__mbuf_t **out,
                         simple_status_t *status) {
  simple__msg_node_t *m = simple__msg_of(s->node);
  simple__mth_t *me = &m->th[s->thread];
  int err = check_peer(s, m, source, tag, 1);
  if (err) return err;
  simple__req_t *r = &me->blocking;
  recv_init(r, SIMPLE__REQ_BUFRECV, s->node, NULL, 0, source, tag);
  r->remote = must_poll(me, s->node, source);
  simple__msg_post_blocking(me, r);
  int rc = simple__msg_req_wait(m, me, r);
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
  return check_peer(s, simple__msg_of(s->node), dest, tag, 0);
}
