/* BSMP: messages queued during the superstep, delivered by its sync. */
#include <stdint.h>
#include <string.h>

#include "rma/rma_impl.h"

/* ------------------------------------------------------------------------
 * BSMP. */

int simple_bsmp_set_tagsize(simple_t *s, size_t *tagsize) {
  ENTER(s, R, T);
  if (!tagsize) return simple__rma_fail(T, SIMPLE_ERR_NULL, "set_tagsize: NULL argument");
  int rc = simple__rma_idle_call(s, R, T, "set_tagsize");
  if (rc) return rc;
  T->tag_pending = *tagsize;
  T->tag_set = 1;
  *tagsize = R->tagsize;
  return 0;
}

int simple_bsmp_send(simple_t *s, int pid, const void *tag, const void *payload, size_t nbytes) {
  ENTER_ACTIVE(s, R, T, "send");
  size_t ts = R->tagsize;
  if (pid < 0 || pid >= R->active)
    return simple__rma_fail(T, SIMPLE_ERR_RANK,
                            "send: processor %d sent to processor %d, outside 0..%d", s->pid, pid,
                            R->active - 1);
  if ((ts && !tag) || (nbytes && !payload))
    return simple__rma_fail(T, SIMPLE_ERR_NULL, "send: processor %d passed a NULL %s", s->pid,
                            ts && !tag ? "tag" : "payload");
  if (nbytes > SIZE_MAX / 2 || ts > SIZE_MAX / 4)
    return simple__rma_fail(T, SIMPLE_ERR_COUNT, "send: message too large");
  rec_t *rec = gb_add(&T->out[pid], sizeof(rec_t) + PAD8(ts) + PAD8(nbytes));
  if (!rec)
    return simple__rma_fail(T, SIMPLE_ERR_NOMEM, "send: out of memory queueing %zu bytes", nbytes);
  *rec = (rec_t){.kind = REC_SEND, .taglen = (uint32_t)ts, .len = nbytes};
  unsigned char *p = (unsigned char *)(rec + 1);
  if (ts) memcpy(p, tag, ts);
  if (nbytes) memcpy(p + PAD8(ts), payload, nbytes);
  T->has_out = 1;
  return 0;
}

/* Message i of the inbox, or NULL past its end. */
static const msg_t *msg_at(const th_t *T, size_t i) {
  if (i >= NITEMS(T->inidx, size_t)) return NULL;
  return (const msg_t *)(T->inbox.p + ((const size_t *)T->inidx.p)[i]);
}

int simple_bsmp_qsize(simple_t *s, size_t *nmessages, size_t *nbytes) {
  ENTER(s, R, T);
  size_t n = NITEMS(T->inidx, size_t), b = 0;
  for (size_t i = T->inpos; i < n; i++) b += msg_at(T, i)->len;
  if (nmessages) *nmessages = n - T->inpos;
  if (nbytes) *nbytes = b;
  return 0;
}

int simple_bsmp_get_tag(simple_t *s, ptrdiff_t *status, void *tag) {
  ENTER(s, R, T);
  if (!status)
    return simple__rma_fail(T, SIMPLE_ERR_NULL, "get_tag: processor %d passed a NULL status",
                            s->pid);
  const msg_t *m = msg_at(T, T->inpos);
  if (!m) {
    *status = -1;
    return 0;
  }
  if (m->taglen && !tag)
    return simple__rma_fail(T, SIMPLE_ERR_NULL, "get_tag: processor %d passed a NULL tag buffer",
                            s->pid);
  *status = (ptrdiff_t)m->len;
  if (m->taglen) memcpy(tag, m + 1, m->taglen);
  return 0;
}

int simple_bsmp_move(simple_t *s, void *payload, size_t room) {
  ENTER(s, R, T);
  const msg_t *m = msg_at(T, T->inpos);
  if (!m)
    return simple__rma_fail(T, SIMPLE_ERR_ARG, "move: processor %d has no message left", s->pid);
  size_t n = m->len < room ? m->len : room;
  if (n && !payload)
    return simple__rma_fail(T, SIMPLE_ERR_NULL, "move: processor %d passed a NULL payload buffer",
                            s->pid);
  if (n) memcpy(payload, (const unsigned char *)(m + 1) + PAD8(m->taglen), n);
  T->inpos++;
  return 0;
}

int simple_bsmp_hpmove(simple_t *s, const void **tag, const void **payload, ptrdiff_t *status) {
  ENTER(s, R, T);
  if (!tag || !payload || !status)
    return simple__rma_fail(T, SIMPLE_ERR_NULL, "hpmove: processor %d passed a NULL pointer",
                            s->pid);
  const msg_t *m = msg_at(T, T->inpos);
  if (!m) {
    *status = -1;
    return 0;
  }
  *tag = m + 1;
  *payload = (const unsigned char *)(m + 1) + PAD8(m->taglen);
  *status = (ptrdiff_t)m->len;
  T->inpos++;
  return 0;
}
