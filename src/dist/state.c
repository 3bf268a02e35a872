/* The per-node state of src/dist: buffers reused from call to call. */
#include <stdint.h>
#include <stdlib.h>

#include "dist/dist.h"

int simple__dist_mul(size_t a, size_t b, size_t *out) {
  if (a && b > SIZE_MAX / a) return SIMPLE_ERR_COUNT;
  *out = a * b;
  return 0;
}

int simple__dist_add(size_t *acc, size_t x) {
  if (x > SIZE_MAX - *acc) return SIMPLE_ERR_COUNT;
  *acc += x;
  return 0;
}

int simple__dist_grow(simple__dist_buf_t *b, size_t bytes) {
  if (b->cap >= bytes && b->buf) return 0;
  /* Grow geometrically, so that a sweep of growing sizes reallocates
   * rarely; contents need not survive. */
  size_t want = b->cap > SIZE_MAX / 2 ? bytes : b->cap * 2 > bytes ? b->cap * 2 : bytes;
  void *p = NULL;
  if (posix_memalign(&p, SIMPLE__CACHE_LINE, want ? want : SIMPLE__CACHE_LINE) != 0) {
    if (want == bytes || posix_memalign(&p, SIMPLE__CACHE_LINE, bytes ? bytes : 1) != 0)
      return SIMPLE_ERR_NOMEM;
    want = bytes;
  }
  free(b->buf);
  b->buf = p;
  b->cap = want;
  return 0;
}

static void free_bufs(simple__dist_buf_t *b, int n) {
  if (!b) return;
  for (int i = 0; i < n; i++) free(b[i].buf);
  free(b);
}

static void at_close(simple__node_t *n) {
  simple__dist_t *d = n->dist;
  if (!d) return;
  free_bufs(d->work, d->r);
  free_bufs(d->pack, d->r);
  free_bufs(d->cnt, d->r);
  free_bufs(d->reqs, d->r);
  free(d->tab.buf);
  free(d->msg.buf);
  free(d);
  n->dist = NULL;
}

simple__dist_t *simple__dist_state(simple_t *s) {
  simple__node_t *n = s->node;
  if (n->dist) return n->dist;
  simple__dist_t *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->r = n->threads;
  d->p = n->nprocs;
  d->P = n->nodes;
  size_t r = (size_t)d->r;
  d->work = calloc(r, sizeof *d->work);
  d->pack = calloc(r, sizeof *d->pack);
  d->cnt = calloc(r, sizeof *d->cnt);
  d->reqs = calloc(r, sizeof *d->reqs);
  if (!d->work || !d->pack || !d->cnt || !d->reqs || simple__node_at_close(n, at_close) != 0) {
    free(d->work);
    free(d->pack);
    free(d->cnt);
    free(d->reqs);
    free(d);
    return NULL;
  }
  n->dist = d;
  return d;
}

int simple__dist_sync(simple_t *s, int rc) {
  unsigned f = simple__barrier_wait(&s->node->barrier, rc ? 1u : 0u);
  if (f & SIMPLE__BARRIER_FATAL) return SIMPLE_ERR_FATAL;
  return rc ? rc : f ? SIMPLE_ERR_PEER : 0;
}
