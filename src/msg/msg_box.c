/* Mailboxes: matching messages with receives, delivery and deposit. */
#include "msg/msg.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * Matching. */
static int matches(int want_src, int want_tag, int src, int tag) {
  return (want_src == SIMPLE_ANY_SOURCE || want_src == src) &&
         (want_tag == SIMPLE_ANY_TAG || want_tag == tag);
}

/* Under the lock: unlinks the first posted receive that e matches. */
simple__req_t *simple__msg_take_posted(simple__mailbox_t *b, const simple__env_t *e) {
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
simple__env_t *simple__msg_find_unexp(simple__mailbox_t *b, int src, int tag, int take) {
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
simple__req_t *simple__msg_take_armed(simple__mth_t *t, const simple__env_t *e) {
  simple__mailbox_t *b = &t->box;
  if (!b->farmed || !matches(b->fsrc, b->ftag, e->src, e->tag)) return NULL;
  b->farmed = 0;
  return &t->blocking;
}

/* Hands message e to receive r (both already unlinked), by the calling
 * thread `me`: copies the payload, hands over the buffer, or starts the MPI
 * receive into r's buffer; then completes r. */
void simple__msg_deliver(simple__mth_t *me, simple__req_t *r, simple__env_t *e) {
  size_t n = e->bytes;
  unsigned state = SIMPLE__REQ_DONE;
  r->st.source = e->src;
  r->st.tag = e->tag;
  r->st.bytes = n;
  if (r->kind == SIMPLE__REQ_RECV) {
    size_t take = n > r->cap ? r->cap : n;
    if (n > r->cap) r->err = SIMPLE_ERR_TRUNCATE;
    if (e->kind == SIMPLE__ENV_BUF) {
      if (take) memcpy(r->buf, e->buf->data, take);
      simple__mbuf_free(me, e->buf);
    } else if (e->kind == SIMPLE__ENV_RDV) {
      if (take) memcpy(r->buf, e->sdata, take);
      if (e->sreq) simple__msg_req_complete(e->sreq, SIMPLE__REQ_DONE);
    } else if (n > r->cap) {
      /* Truncated: receive the whole message aside, keep the prefix. */
      unsigned char *tmp = malloc(n);
      if (!tmp) {
        r->err = SIMPLE_ERR_NOMEM;
      } else {
        int rc = simple__comm_mrecv(&e->mpimsg, tmp, n);
        if (rc) r->err = rc;
        if (take) memcpy(r->buf, tmp, take);
        free(tmp);
      }
      free(e);
    } else {
      /* Not truncated: r's error is still 0. */
      r->err = simple__comm_imrecv(&e->mpimsg, r->buf, n, &r->mpireq);
      if (!r->err) state = SIMPLE__REQ_MPI;
      free(e);
    }
  } else {
    /* A buffer message's buffer is handed over as it is (its size is n). */
    simple__mbuf_t *b = e->kind == SIMPLE__ENV_BUF ? e->buf : simple__mbuf_new(me, n);
    if (!b) r->err = SIMPLE_ERR_NOMEM;
    if (e->kind == SIMPLE__ENV_RDV) {
      if (b && n) memcpy(b->data, e->sdata, n);
      if (e->sreq) simple__msg_req_complete(e->sreq, SIMPLE__REQ_DONE);
    } else if (e->kind == SIMPLE__ENV_MPI) {
      int rc = b ? simple__comm_imrecv(&e->mpimsg, b->data, n, &r->mpireq) : 0;
      if (rc) {
        r->err = rc;
        simple__mbuf_free(me, b);
        b = NULL;
      } else if (b) {
        state = SIMPLE__REQ_MPI;
      }
      free(e);
    }
    if (b) {
      b->size = n;
      b->rpos = 0;
    }
    r->mbuf = b;
  }
  simple__msg_req_complete(r, state);
}

/* Deposits e into mailbox t: the first matching posted receive gets it, or
 * it is queued. */
void simple__msg_deposit(simple__mth_t *me, simple__mth_t *t, simple__env_t *e) {
  simple__mailbox_t *b = &t->box;
  simple__msg_box_lock(&b->lock);
  simple__req_t *r = simple__msg_take_armed(t, e);
  if (r && !b->finline && e->kind == SIMPLE__ENV_BUF) {
    /* A buffer for a thread blocked in simple_buf_recv (armed, not typed):
     * envelope and buffer pointer go in the mailbox line it polls, and the
     * receiver takes the rest from the buffer itself. The receiver's
     * request line and the buffer's header stay untouched here, two of
     * the four or five cache-line transfers of the general path (each
     * 50-200 ns between two cores of the development VM). */
    memcpy(b->fdata, &e->buf, sizeof e->buf);
    simple__msg_inline_done(b, e->src, e->tag);
    return;
  }
  if (!r) r = simple__msg_take_posted(b, e);
  if (r) {
    simple__msg_box_unlock(&b->lock);
    simple__msg_deliver(me, r, e);
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
  simple__msg_box_unlock(&b->lock);
  simple__wake_all(&b->seq, &b->sleepers);
}

/* Posts receive r in the owner's mailbox: it takes the first matching
 * queued message, or waits in the posted queue. */
void simple__msg_post(simple__mth_t *me, simple__req_t *r) {
  simple__mailbox_t *b = &me->box;
  simple__msg_box_lock(&b->lock);
  simple__env_t *e = atomic_load_explicit(&b->nunexp, memory_order_relaxed)
                         ? simple__msg_find_unexp(b, r->src, r->tag, 1)
                         : NULL;
  if (e) {
    simple__msg_box_unlock(&b->lock);
    simple__msg_deliver(me, r, e);
    return;
  }
  r->next = NULL;
  if (b->ptail)
    b->ptail->next = r;
  else
    b->phead = r;
  b->ptail = r;
  simple__msg_box_unlock(&b->lock);
}

/* Posts the owner's blocking receive r (&me->blocking): when nothing is
 * queued or posted, it is armed in the mailbox's first line, where senders
 * find it without touching the queues (and, for a typed receive, deliver
 * small messages inline); else as simple__msg_post(). */
void simple__msg_post_blocking(simple__mth_t *me, simple__req_t *r) {
  simple__mailbox_t *b = &me->box;
  simple__msg_box_lock(&b->lock);
  if (!atomic_load_explicit(&b->nunexp, memory_order_relaxed) && !b->phead) {
    b->fsrc = r->src;
    b->ftag = r->tag;
    b->fcap = (uint8_t)(r->cap < SIMPLE__MSG_INLINE ? r->cap : SIMPLE__MSG_INLINE);
    b->finline = r->kind == SIMPLE__REQ_RECV;
    atomic_store_explicit(&b->fstate, SIMPLE__REQ_PENDING, memory_order_relaxed);
    r->word = &b->fstate;
    r->wsleep = &b->fsleepers;
    b->farmed = 1;
    simple__msg_box_unlock(&b->lock);
    return;
  }
  simple__msg_box_unlock(&b->lock);
  simple__msg_post(me, r);
}
