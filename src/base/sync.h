/* Internal: the node barrier that carries a return code, and the lazily
 * created per-node state of a layer. */
#ifndef SIMPLE_BASE_SYNC_H
#define SIMPLE_BASE_SYNC_H

#include "run/job.h"

/* A node barrier that also carries a return code: every thread gets
 * SIMPLE_ERR_FATAL if the job failed, its own rc if non-zero,
 * SIMPLE_ERR_PEER if another thread's rc was non-zero, else 0. Every
 * thread of the node must call it. Cost: one counting barrier (the flag
 * rides in the barrier's own line, no extra transfer). */
int simple__sync_rc(simple_t *s, int rc);

/* A layer's key: a zeroed static of the layer, which names the layer's
 * slot in every node's layer[] table. The slot's index is given out on
 * first use, once per process (SIMPLE__MAX_LAYERS of them). */
typedef struct {
  int id; /* the index + 1; 0: none given yet */
} simple__layer_key_t;

/* The layer's slot in node n. Cost: one acquire load once the key has its
 * index. Aborts the process if more layers than SIMPLE__MAX_LAYERS ask
 * (a build error, never a user's). */
void **simple__layer_slot_given(simple__node_t *n, simple__layer_key_t *key);
static inline void **simple__layer_slot(simple__node_t *n, simple__layer_key_t *key) {
  int id = __atomic_load_n(&key->id, __ATOMIC_ACQUIRE);
  return id ? &n->layer[id - 1] : simple__layer_slot_given(n, key);
}

/* The per-node state of a layer, kept in *slot (its simple__layer_slot):
 * created on first use by `create`, from any thread (a mutex makes the
 * creation unique; later calls cost one acquire load), and released by
 * `destroy`, registered as an at-close hook (it must do nothing when *slot
 * is NULL). Returns the state, or NULL when create or the registration
 * failed. */
void *simple__layer_create(simple__node_t *n, void **slot, void *(*create)(simple__node_t *n),
                           void (*destroy)(simple__node_t *n));
static inline void *simple__layer_state(simple__node_t *n, void **slot,
                                        void *(*create)(simple__node_t *n),
                                        void (*destroy)(simple__node_t *n)) {
  void *st = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  return st ? st : simple__layer_create(n, slot, create, destroy);
}

#endif
