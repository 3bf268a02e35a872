/* Messages from and to other nodes: pulling arrived messages from MPI into
 * mailboxes, completing MPI transfers, and waiting while MPI is polled. */
#include "msg/msg.h"

#include <stdlib.h>

#include "run/wait.h"

/* Messages pulled from MPI per poll at most, so one poller cannot be held
 * forever by a stream of arrivals. */
#define POLL_BATCH 32

/* ------------------------------------------------------------------------
 * MPI: pulling arrived messages into mailboxes. */

void simple__msg_poll_mpi(simple__msg_node_t *m, simple__mth_t *me) {
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
    if (simple__comm_improbe(m->comm, &found, &node, &mtag, &bytes, &msg) != 0 || !found) break;
    simple__env_t *e = malloc(sizeof *e);
    if (!e) {
      atomic_store_explicit(&m->poll_lock, 0, memory_order_release);
      simple_abort(NULL, "simple msg: out of memory for an incoming message");
    }
    *e = (simple__env_t){.src = n->first_pid[node] + ((mtag >> m->tbits) & mask),
                         .tag = mtag >> (2 * m->tbits),
                         .bytes = bytes,
                         .kind = SIMPLE__ENV_MPI,
                         .mpimsg = msg};
    simple__msg_deposit(me, &m->th[mtag & mask], e);
  }
  atomic_store_explicit(&m->poll_lock, 0, memory_order_release);
}

/* Frees the buffers whose sends to other nodes have completed. */
void simple__msg_progress_sends(simple__mth_t *me) {
  int k = 0;
  while (k < me->npend) {
    int done = 0;
    if (simple__comm_test(&me->pend[k].req, &done, NULL, NULL) != 0) done = 1;
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
  simple__msg_poll_mpi(a->m, a->me);
  if (a->me->npend) simple__msg_progress_sends(a->me);
}

/* Takes the result of a request's completed MPI transfer (the tag and size
 * MPI saw, for a direct receive) and marks the request DONE. */
void simple__msg_mpi_done(const simple__msg_node_t *m, simple__req_t *r, int rc, int mtag,
                          size_t bytes) {
  if (rc && !r->err) r->err = rc;
  if (r->direct && rc != SIMPLE_ERR_MPI) {
    r->st.tag = mtag >> (2 * m->tbits);
    r->st.bytes = bytes;
  }
  atomic_store_explicit(r->word, SIMPLE__REQ_DONE, memory_order_relaxed);
}

int simple__msg_req_wait(simple__msg_node_t *m, simple__mth_t *me, simple__req_t *r) {
  if (atomic_load_explicit(r->word, memory_order_acquire) == SIMPLE__REQ_PENDING) {
    poll_arg_t a = {m, me};
    int rc = r->remote || me->npend
                 ? simple__wait_poll(r->word, SIMPLE__REQ_PENDING, r->wsleep, poll_hook, &a)
                 : simple__wait_while(r->word, SIMPLE__REQ_PENDING, r->wsleep);
    if (rc) return rc;
  }
  /* Left PENDING: an MPI receive or send may remain to complete. */
  if (atomic_load_explicit(r->word, memory_order_acquire) == SIMPLE__REQ_MPI) {
    int mtag = 0;
    size_t bytes = 0;
    int rc = simple__comm_wait(&r->mpireq, &mtag, &bytes);
    simple__msg_mpi_done(m, r, rc, mtag, bytes);
  }
  return r->err;
}

int simple__msg_wait_remote(simple__msg_node_t *m, simple__mth_t *me, atomic_uint *word,
                            unsigned old, atomic_uint *sleepers) {
  poll_arg_t a = {m, me};
  return simple__wait_poll(word, old, sleepers, poll_hook, &a);
}
