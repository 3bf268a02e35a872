/* The small helpers every layer shares (src/base). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/size.h"
#include "base/sync.h"
#include "run/wait.h"

int simple__size_extent(const size_t *counts, const size_t *displs, int first, int last,
                        size_t *out) {
  *out = 0;
  if (first >= last) return 0;
  if (!counts || !displs) return SIMPLE_ERR_NULL;
  size_t m = 0;
  for (int i = first; i < last; i++) {
    if (counts[i] == 0) continue;
    if (displs[i] > SIZE_MAX - counts[i]) return SIMPLE_ERR_COUNT;
    if (displs[i] + counts[i] > m) m = displs[i] + counts[i];
  }
  *out = m;
  return 0;
}

int simple__size_sum(const size_t *counts, int first, int last, size_t *out) {
  size_t t = 0;
  for (int i = first; i < last; i++)
    if (simple__size_add(&t, counts[i])) return SIMPLE_ERR_COUNT;
  *out = t;
  return 0;
}

int simple__buf_grow_keep(simple__buf_t *b, size_t bytes, void **old) {
  *old = NULL;
  if (b->cap >= bytes && b->p) return 0;
  size_t want = b->cap > SIZE_MAX / 2 ? bytes : b->cap * 2 > bytes ? b->cap * 2 : bytes;
  void *p = NULL;
  if (posix_memalign(&p, SIMPLE__CACHE_LINE, want ? want : SIMPLE__CACHE_LINE) != 0) {
    /* The doubling may be what does not fit: try the size asked for. */
    if (want == bytes || posix_memalign(&p, SIMPLE__CACHE_LINE, bytes ? bytes : 1) != 0)
      return SIMPLE_ERR_NOMEM;
    want = bytes;
  }
  *old = b->p;
  b->p = p;
  b->cap = want;
  return 0;
}

int simple__buf_grow(simple__buf_t *b, size_t bytes) {
  void *old;
  int rc = simple__buf_grow_keep(b, bytes, &old);
  free(old);
  return rc;
}

void simple__buf_free(simple__buf_t *b) {
  free(b->p);
  b->p = NULL;
  b->cap = 0;
}

int simple__array_grow(void *arr, int *cap, int n, size_t elem, int first) {
  if (n < *cap) return 0;
  int ncap = *cap ? 2 * *cap : first;
  void *old, *p;
  memcpy(&old, arr, sizeof old); /* arr points to a T *, read without aliasing it */
  p = realloc(old, elem * (size_t)ncap);
  if (!p) return SIMPLE_ERR_NOMEM;
  memcpy(arr, &p, sizeof p);
  *cap = ncap;
  return 0;
}

int simple__sync_rc(simple_t *s, int rc) {
  unsigned f = simple__barrier_wait(&s->node->barrier, rc ? 1u : 0u);
  if (f & SIMPLE__BARRIER_FATAL) return SIMPLE_ERR_FATAL;
  return rc ? rc : f ? SIMPLE_ERR_PEER : 0;
}

static pthread_mutex_t layer_lock = PTHREAD_MUTEX_INITIALIZER;

void **simple__layer_slot_given(simple__node_t *n, simple__layer_key_t *key) {
  static int given;
  pthread_mutex_lock(&layer_lock);
  if (!key->id) {
    if (given == SIMPLE__MAX_LAYERS) {
      fprintf(stderr, "simple: more than %d layers keep per-node state\n", SIMPLE__MAX_LAYERS);
      abort();
    }
    __atomic_store_n(&key->id, ++given, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&layer_lock);
  return &n->layer[key->id - 1];
}

void *simple__layer_create(simple__node_t *n, void **slot, void *(*create)(simple__node_t *n),
                           void (*destroy)(simple__node_t *n)) {
  void *st;
  pthread_mutex_lock(&layer_lock);
  /* The hook first: it finds the slot empty (and does nothing) if create
   * fails, and nobody can see a state that is then taken back. */
  st = *slot;
  if (!st && simple__node_at_close(n, destroy) == 0 && (st = create(n)) != NULL)
    __atomic_store_n(slot, st, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&layer_lock);
  return st;
}
