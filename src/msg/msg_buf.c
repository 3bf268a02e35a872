/* Buffer-id messages (paper 003): buffers that belong to the library,
 * named by ids in a per-thread handle table, so that a receive can hand
 * over the sender's buffer instead of copying it. */
#include <stdlib.h>
#include <string.h>

#include "msg/msg.h"
#include "node/ops.h"

/* Buffers up to this capacity are one allocation (header and payload) and
 * are recycled through a small per-thread cache: a typed message that
 * arrives before its receive costs no malloc in the steady state. */
#define SMALL_CAP 4096
#define HDR \
  ((sizeof(simple__mbuf_t) + SIMPLE__CACHE_LINE - 1) / SIMPLE__CACHE_LINE * SIMPLE__CACHE_LINE)

static unsigned char *inline_data(simple__mbuf_t *b) { return (unsigned char *)b + HDR; }

simple__mbuf_t *simple__mbuf_new(simple__mth_t *t, size_t cap) {
  simple__mbuf_t *b;
  if (cap <= SMALL_CAP && t->ncache > 0) {
    b = t->cache[--t->ncache];
  } else {
    if (cap < SMALL_CAP) cap = SMALL_CAP;
    if (cap > (size_t)PTRDIFF_MAX - 2 * HDR) return NULL;
    size_t total = (HDR + cap + SIMPLE__CACHE_LINE - 1) / SIMPLE__CACHE_LINE * SIMPLE__CACHE_LINE;
    b = aligned_alloc(SIMPLE__CACHE_LINE, total);
    if (!b) return NULL;
    b->cap = cap;
    b->data = inline_data(b);
  }
  b->size = 0;
  b->rpos = 0;
  return b;
}

void simple__mbuf_free(simple__mth_t *t, simple__mbuf_t *b) {
  if (!b) return;
  if (b->data == inline_data(b) && b->cap == SMALL_CAP &&
      t->ncache < (int)(sizeof t->cache / sizeof t->cache[0])) {
    t->cache[t->ncache++] = b;
    return;
  }
  if (b->data != inline_data(b)) free(b->data);
  free(b);
}

/* Room in b for `more` bytes after its contents: 0, SIMPLE_ERR_COUNT (the
 * size would pass PTRDIFF_MAX) or SIMPLE_ERR_NOMEM. */
static int reserve(simple__mbuf_t *b, size_t more) {
  if (more > (size_t)PTRDIFF_MAX - b->size) return SIMPLE_ERR_COUNT;
  size_t cap = b->size + more;
  if (cap <= b->cap) return 0;
  size_t ncap = b->cap * 2 > cap && b->cap <= (size_t)PTRDIFF_MAX / 2 ? b->cap * 2 : cap;
  unsigned char *p;
  if (b->data == inline_data(b)) {
    p = malloc(ncap);
    if (p && b->size) memcpy(p, b->data, b->size);
  } else {
    p = realloc(b->data, ncap);
  }
  if (!p) return SIMPLE_ERR_NOMEM;
  b->data = p;
  b->cap = ncap;
  return 0;
}

int simple_buf_create(simple_t *s, size_t capacity, simple_buf_t *id) {
  SIMPLE__MSG_ENTER(s, m, me);
  if (!id) return SIMPLE_ERR_ARG;
  if (capacity > (size_t)PTRDIFF_MAX / 2) return SIMPLE_ERR_COUNT;
  simple__mbuf_t *b = simple__mbuf_new(me, capacity);
  if (!b) return SIMPLE_ERR_NOMEM;
  int rc = simple__htab_add(&me->bufs, b, id);
  if (rc) simple__mbuf_free(me, b);
  return rc;
}

int simple_buf_free(simple_t *s, simple_buf_t id) {
  SIMPLE__MSG_ENTER(s, m, me);
  simple__mbuf_t *b = simple__htab_get(&me->bufs, id);
  if (!b) return SIMPLE_ERR_ARG;
  simple__htab_del(&me->bufs, id);
  simple__mbuf_free(me, b);
  return 0;
}

int simple_buf_extend(simple_t *s, simple_buf_t id, size_t bytes, void **ptr) {
  SIMPLE__MSG_ENTER(s, m, me);
  simple__mbuf_t *b = simple__htab_get(&me->bufs, id);
  if (!b || !ptr) return SIMPLE_ERR_ARG;
  int rc = reserve(b, bytes);
  if (rc) return rc;
  *ptr = b->data + b->size;
  b->size += bytes;
  return 0;
}

/* The buffer behind id and the byte size of count elements of type at data,
 * checked: pack and unpack share everything but the direction. */
static int typed_args(simple_t *s, simple_buf_t id, const void *data, size_t count,
                      simple_type_t type, simple__mbuf_t **out, size_t *bytes) {
  SIMPLE__MSG_ENTER(s, m, me);
  if (!(*out = simple__htab_get(&me->bufs, id))) return SIMPLE_ERR_ARG;
  *bytes = count * simple_type_size(type);
  return simple__check_buffer(data, count, type);
}

int simple_buf_pack(simple_t *s, simple_buf_t id, const void *data, size_t count,
                    simple_type_t type) {
  simple__mbuf_t *b;
  size_t bytes;
  int rc = typed_args(s, id, data, count, type, &b, &bytes);
  if (rc) return rc;
  if ((rc = reserve(b, bytes))) return rc;
  if (bytes) memcpy(b->data + b->size, data, bytes);
  b->size += bytes;
  return 0;
}

int simple_buf_unpack(simple_t *s, simple_buf_t id, void *data, size_t count, simple_type_t type) {
  simple__mbuf_t *b;
  size_t bytes;
  int rc = typed_args(s, id, data, count, type, &b, &bytes);
  if (rc) return rc;
  if (bytes > b->size - b->rpos) return SIMPLE_ERR_COUNT;
  if (bytes) memcpy(data, b->data + b->rpos, bytes);
  b->rpos += bytes;
  return 0;
}

int simple_buf_data(simple_t *s, simple_buf_t id, void **ptr, size_t *bytes) {
  SIMPLE__MSG_ENTER(s, m, me);
  simple__mbuf_t *b = simple__htab_get(&me->bufs, id);
  if (!b) return SIMPLE_ERR_ARG;
  if (ptr) *ptr = b->data;
  if (bytes) *bytes = b->size;
  return 0;
}

int simple_buf_send(simple_t *s, simple_buf_t id, int dest, int tag) {
  SIMPLE__MSG_ENTER(s, m, me);
  simple__mbuf_t *b = simple__htab_get(&me->bufs, id);
  if (!b) return SIMPLE_ERR_ARG;
  int rc = simple__msg_check_dest(s, dest, tag);
  if (rc) return rc;
  simple__htab_del(&me->bufs, id);
  return simple__msg_buf_send(s, b, dest, tag);
}

int simple_buf_recv(simple_t *s, int source, int tag, simple_buf_t *id, simple_status_t *status) {
  SIMPLE__MSG_ENTER(s, m, me);
  if (!id) return SIMPLE_ERR_ARG;
  simple__mbuf_t *b = NULL;
  int rc = simple__msg_buf_recv(s, source, tag, &b, status);
  if (rc) return rc;
  rc = simple__htab_add(&me->bufs, b, id);
  if (rc) simple__mbuf_free(me, b);
  return rc;
}
