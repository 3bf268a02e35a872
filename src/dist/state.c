/* The per-node state of src/dist: buffers reused from call to call. */
#include <stdlib.h>

#include "dist/dist.h"

static void free_bufs(simple__buf_t *b, int n) {
  if (!b) return;
  for (int i = 0; i < n; i++) simple__buf_free(&b[i]);
  free(b);
}

simple__layer_key_t simple__dist_key;

static void destroy(simple__node_t *n) {
  simple__dist_t *d = simple__dist_of(n);
  if (!d) return;
  for (int k = 0; k < 2; k++) {
    free_bufs(d->work[k], d->r);
    simple__buf_free(&d->tab[k]);
  }
  free_bufs(d->pack, d->r);
  free_bufs(d->cnt, d->r);
  free_bufs(d->reqs, d->r);
  simple__dist_plans_free(d);
  free(d);
  *simple__layer_slot(n, &simple__dist_key) = NULL;
}

static void *create(simple__node_t *n) {
  simple__dist_t *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->r = n->threads;
  d->p = n->nprocs;
  d->P = n->nodes;
  size_t r = (size_t)d->r;
  d->pack = calloc(r, sizeof *d->pack);
  d->cnt = calloc(r, sizeof *d->cnt);
  d->reqs = calloc(r, sizeof *d->reqs);
  d->work[0] = calloc(r, sizeof *d->work[0]);
  d->work[1] = calloc(r, sizeof *d->work[1]);
  if (!d->pack || !d->cnt || !d->reqs || !d->work[0] || !d->work[1]) {
    free(d->pack), free(d->cnt), free(d->reqs), free(d->work[0]), free(d->work[1]);
    free(d);
    return NULL;
  }
  return d;
}

simple__dist_t *simple__dist_state(simple_t *s) {
  return simple__layer_state(s->node, simple__layer_slot(s->node, &simple__dist_key), create,
                             destroy);
}
