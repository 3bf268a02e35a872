/* The per-node state of src/dist: buffers reused from call to call. */
#include <stdlib.h>

#include "dist/dist.h"

simple__layer_key_t simple__dist_key;

/* Frees a state and everything it holds, whole or partly made. */
static void free_state(simple__dist_t *d) {
  simple__buf_t *per_thread[] = {d->work[0], d->work[1], d->pack, d->cnt, d->reqs};
  for (size_t i = 0; i < sizeof per_thread / sizeof per_thread[0]; i++) {
    for (int t = 0; per_thread[i] && t < d->r; t++) simple__buf_free(&per_thread[i][t]);
    free(per_thread[i]);
  }
  for (int k = 0; k < 2; k++) simple__buf_free(&d->tab[k]);
  simple__dist_plans_free(d);
  free(d);
}

static void destroy(simple__node_t *n) {
  simple__dist_t *d = simple__dist_of(n);
  if (!d) return;
  free_state(d);
  *simple__layer_slot(n, &simple__dist_key) = NULL;
}

static void *create(simple__node_t *n) {
  simple__dist_t *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->r = n->threads;
  size_t r = (size_t)d->r;
  d->pack = calloc(r, sizeof *d->pack);
  d->cnt = calloc(r, sizeof *d->cnt);
  d->reqs = calloc(r, sizeof *d->reqs);
  d->work[0] = calloc(r, sizeof *d->work[0]);
  d->work[1] = calloc(r, sizeof *d->work[1]);
  if (d->pack && d->cnt && d->reqs && d->work[0] && d->work[1]) return d;
  free_state(d);
  return NULL;
}

simple__dist_t *simple__dist_state(simple_t *s) {
  return simple__layer_state(s->node, simple__layer_slot(s->node, &simple__dist_key), create,
                             destroy);
}
