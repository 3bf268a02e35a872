/* Internal to src/msg: mailboxes, envelopes, requests and buffers.
 *
 * Every thread has a mailbox in its node's shared memory: a short lock and
 * two FIFO queues, the envelopes of messages that arrived before a matching
 * receive (unexpected) and the receives posted before their message
 * (posted). A sender (or, for messages from other nodes, the thread that
 * pulled it from MPI) deposits into the destination mailbox: it takes the
 * first matching posted receive, or appends its envelope. A receive takes
 * the first matching envelope, or is appended to the posted queue. Both
 * queues are FIFO and every message of one (source, destination) pair is
 * deposited in send order, which gives MPI's non-overtaking order.
 *
 * Messages from other nodes: one MPI message on the msg communicator whose
 * tag encodes (user tag, source thread, destination thread). Any thread of
 * the node may pull arrived messages with MPI_Improbe(ANY_SOURCE, ANY_TAG)
 * and deposit them in their destination's mailbox as MPI envelopes (the
 * matched-message handle; nothing is received yet). Pulling is serialized
 * by a per-node try-lock, held until the pulled message is deposited, so
 * deposits keep MPI's order. The payload is received (MPI_Imrecv) straight
 * into the receive buffer once a receive matches the envelope. */
#ifndef SIMPLE_MSG_MSG_H
#define SIMPLE_MSG_MSG_H

#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sync.h"
#include "net/net_comm.h"
#include "run/job.h"
#include "simple/msg.h"

/* Typed intra-node messages up to this size are copied into a library
 * buffer when no receive is posted; larger ones wait for the receiver. */
#define SIMPLE__MSG_EAGER ((size_t)16384)

/* A library-owned message buffer (the object behind a simple_buf_t). */
typedef struct simple__mbuf simple__mbuf_t;

enum { SIMPLE__ENV_BUF, SIMPLE__ENV_RDV, SIMPLE__ENV_MPI };

struct simple__req;

/* A message that has arrived in a mailbox but is not received yet. */
typedef struct simple__env {
  struct simple__env *next;
  int src, tag; /* global source rank, user tag */
  size_t bytes;
  int kind;
  simple__mbuf_t *buf;      /* ENV_BUF: the payload, handed to the receiver */
  const void *sdata;        /* ENV_RDV: the sender's buffer */
  struct simple__req *sreq; /* ENV_RDV: the sender's request, completed when copied */
  long long mpimsg;         /* ENV_MPI: the matched MPI message */
} simple__env_t;

struct simple__mbuf {
  simple__env_t env; /* its envelope, when it travels inside a node */
  unsigned char *data;
  size_t size, cap, rpos;
};

enum { SIMPLE__REQ_SEND, SIMPLE__REQ_RECV, SIMPLE__REQ_BUFRECV };
/* Request states. DONE and MPI are published by whichever thread matched
 * the request; only the owner moves MPI to DONE. */
enum {
  SIMPLE__REQ_PENDING = 0,
  SIMPLE__REQ_DONE = 1,
  SIMPLE__REQ_MPI = 2,
  SIMPLE__REQ_INLINE = 3 /* done, envelope and payload (typed receive) or buffer pointer
                            (buffer receive) in the mailbox's first line */
};

typedef struct simple__req {
  _Alignas(SIMPLE__CACHE_LINE) atomic_uint state;
  atomic_uint sleepers;
  int kind;
  int remote;               /* may be matched by a message from another node */
  int direct;               /* receive posted in MPI itself (tag and size from MPI) */
  int src, tag;             /* receive: what it matches (wildcards allowed) */
  void *buf;                /* receive: where the payload goes */
  size_t cap;               /* receive: room in bytes */
  struct simple__req *next; /* posted queue, or the owner's free list */
  simple_status_t st;       /* receive: what matched */
  int err;                  /* the operation's error, known at completion */
  simple__mbuf_t *mbuf;     /* buffer receive: the result; truncation: temporary */
  long long mpireq;         /* state MPI: the request to complete */
  simple__env_t env;        /* rendezvous send: its envelope */
  atomic_uint *word;        /* completion word: &state, or the mailbox's fstate */
  atomic_uint *wsleep;
  uint32_t gen; /* handle generation */
} simple__req_t;

/* Small messages to a thread blocked in simple_recv travel inside its
 * mailbox: the sender writes envelope and payload where the receiver is
 * already looking, so a message of up to 28 bytes costs about two transfers
 * of one cache line (the sender's write, the receiver's read) instead of
 * the lock, request, buffer and flag lines of the general path. Up to 220
 * bytes, the rest of the payload goes in the three lines after the queues,
 * whose transfers overlap with the first line's. A buffer message to a
 * thread blocked in simple_buf_recv travels the same way, with the buffer's
 * address in place of the payload: three transfers at any size (the line,
 * then the buffer's header, which the receiver writes first). */
#define SIMPLE__MSG_INLINE_HEAD 28
#define SIMPLE__MSG_INLINE      220

/* A thread's mailbox. The first line is what senders touch on the fast
 * path; the queues, in the second line, only on the general one. */
typedef struct {
  _Alignas(SIMPLE__CACHE_LINE) atomic_int lock;
  atomic_uint nunexp; /* envelopes queued: read without the lock by probes */
  atomic_uint fstate; /* the armed blocking receive's completion word */
  atomic_uint fsleepers;
  uint8_t farmed;  /* the owner's blocking receive waits here (under lock) */
  uint8_t fcap;    /* min(its room, SIMPLE__MSG_INLINE) */
  uint8_t rbytes;  /* inline delivery: size */
  uint8_t finline; /* the armed receive takes inline deliveries (typed) */
  int fsrc, ftag;  /* what the armed receive matches */
  int rsrc, rtag;  /* inline delivery: envelope */
  unsigned char fdata[SIMPLE__MSG_INLINE_HEAD]; /* inline delivery: payload head, or the
                                                   simple__mbuf_t pointer for a buffer receive */
  _Alignas(SIMPLE__CACHE_LINE) atomic_uint seq; /* bumped by every append, for blocked probes */
  atomic_uint sleepers;
  simple__env_t *uhead, *utail;
  simple__req_t *phead, *ptail;
  /* inline delivery: payload beyond the head */
  _Alignas(SIMPLE__CACHE_LINE) unsigned char fext[SIMPLE__MSG_INLINE - SIMPLE__MSG_INLINE_HEAD];
} simple__mailbox_t;

_Static_assert(offsetof(simple__mailbox_t, seq) == SIMPLE__CACHE_LINE,
               "the fast-path fields of a mailbox fill exactly its first cache line");

/* One handle table entry: the object and the generation of its id. */
typedef struct {
  void *p;
  uint32_t gen;
  int next_free;
} simple__handle_t;

typedef struct {
  simple__handle_t *h;
  int n, cap, free_head;
} simple__htab_t;

/* A thread's state. The mailbox is written by others; what follows it
 * only by the owner. */
typedef struct {
  simple__mailbox_t box;
  _Alignas(SIMPLE__CACHE_LINE) simple__req_t blocking; /* blocking send/recv */
  simple__htab_t reqs, bufs;
  simple__req_t *free_reqs;
  simple__req_t **all_reqs; /* every request ever made, freed at close */
  int nall, capall;
  unsigned probes;           /* empty probes, to poll MPI every k-th */
  simple__mbuf_t *cache[16]; /* small freed buffers for reuse */
  int ncache;
  /* Buffers sent to other nodes whose MPI send is still in flight: the
   * library owns them until MPI_Test says so. */
  struct {
    simple__mbuf_t *b;
    long long req;
  } * pend;
  int npend, cappend;
} simple__mth_t;

typedef struct {
  simple__node_t *n;
  simple__comm_t *comm; /* the layer's own communicator (msg_req.c) */
  int tbits;            /* bits of a thread index in the MPI tag */
  int tag_ub;           /* largest user tag */
  _Alignas(SIMPLE__CACHE_LINE) atomic_int poll_lock;
  _Alignas(SIMPLE__CACHE_LINE) simple__mth_t *th; /* [threads] */
} simple__msg_node_t;

/* The node's message state, created on first use; NULL when out of memory. */
simple__msg_node_t *simple__msg_state(simple_t *s);
/* The common start of every public call: the job, the node state, the
 * thread. */
#define SIMPLE__MSG_ENTER(s, m, me)                     \
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB; \
  simple__msg_node_t *m = simple__msg_state(s);         \
  if (!m) return SIMPLE_ERR_NOMEM;                      \
  simple__mth_t *me = &m->th[(s)->thread];              \
  (void)me
/* The node's state once created (NULL before). */
extern simple__layer_key_t simple__msg_key;
static inline simple__msg_node_t *simple__msg_of(simple__node_t *n) {
  return *simple__layer_slot(n, &simple__msg_key);
}

/* Buffers (msg_buf.c). */
simple__mbuf_t *simple__mbuf_new(simple__mth_t *t, size_t cap);
void simple__mbuf_free(simple__mth_t *t, simple__mbuf_t *b);

/* Handle tables: ids are (generation << 32) | (slot + 1). */
int simple__htab_add(simple__htab_t *t, void *p, uint64_t *id);
void *simple__htab_get(simple__htab_t *t, uint64_t id);
void simple__htab_del(simple__htab_t *t, uint64_t id);

/* Receives into a new buffer, or sends a buffer (msg.c). */
int simple__msg_buf_recv(simple_t *s, int source, int tag, simple__mbuf_t **out,
                         simple_status_t *status);
int simple__msg_buf_send(simple_t *s, simple__mbuf_t *b, int dest, int tag);
/* 0, or the error of a send to dest with tag (rank, tag range). */
int simple__msg_check_dest(simple_t *s, int dest, int tag);

/* ------------------------------------------------------------------------
 * Shared by the files of src/msg. */

/* Mailbox lock: critical sections are a few pointer updates, so spin, and
 * yield when the holder seems preempted (threads may outnumber cores). The
 * first try is the exchange itself: a sender's lock line usually sits in
 * the receiver's cache, and a load before the exchange would fetch it
 * shared and then upgrade it, two coherence round trips (~30 ns each)
 * where the exchange alone takes one. Only a failed try polls by loads
 * (simple__msg_spin_lock, which alone takes a lock that is usually held:
 * the node's poll lock). */
static inline void simple__msg_spin_lock(atomic_int *l) {
  for (unsigned i = 0;; i++) {
    if (!atomic_load_explicit(l, memory_order_relaxed) &&
        !atomic_exchange_explicit(l, 1, memory_order_acquire))
      return;
    if (i < 100)
      simple__cpu_relax();
    else
      sched_yield();
  }
}

static inline void simple__msg_box_lock(atomic_int *l) {
  if (atomic_exchange_explicit(l, 1, memory_order_acquire)) simple__msg_spin_lock(l);
}

static inline void simple__msg_box_unlock(atomic_int *l) {
  atomic_store_explicit(l, 0, memory_order_release);
}

/* Completes a request: publishes its state and wakes its owner. Once the
 * word is stored the owner may reuse r at once: only the two atomics are
 * touched afterwards (requests and mailboxes live until the job ends). */
static inline void simple__msg_req_complete(simple__req_t *r, unsigned state) {
  atomic_uint *word = r->word, *sleepers = r->wsleep;
  atomic_store_explicit(word, state, memory_order_seq_cst);
  simple__wake_all(word, sleepers);
}

/* Ends an inline delivery to the blocked receiver of mailbox b (under its
 * lock, the payload written): the envelope goes into b's first line, and
 * the receiver is released. */
static inline void simple__msg_inline_done(simple__mailbox_t *b, int src, int tag) {
  b->rsrc = src;
  b->rtag = tag;
  simple__msg_box_unlock(&b->lock);
  atomic_store_explicit(&b->fstate, SIMPLE__REQ_INLINE, memory_order_seq_cst);
  simple__wake_all(&b->fstate, &b->fsleepers);
}

/* The MPI tag of a message: (user tag, source thread, destination thread). */
static inline int simple__msg_mpi_tag(const simple__msg_node_t *m, int tag, int sth, int dth) {
  return (((tag << m->tbits) | sth) << m->tbits) | dth;
}

/* Requests (msg_req.c): per-thread pools, never freed before the job ends,
 * so a thread that completed a request may still read its sleeper count
 * after the owner has reused it (a spurious wake-up at worst). A new
 * request is registered in the thread's handle table as *id (NULL when
 * out of memory); the caller initializes it. */
simple__req_t *simple__msg_req_new(simple__mth_t *t, uint64_t *id);
void simple__msg_req_put(simple__mth_t *t, simple__req_t *r);
void simple__msg_req_init(simple__req_t *r, int kind);

/* Mailboxes (msg_box.c). take_posted: the first posted receive matching an
 * envelope, unlinked; take_armed: the owner's armed blocking receive if it
 * matches; find_unexp: the first arrived envelope matching
 * (src, tag), unlinked when take; deliver: moves an envelope's payload into
 * a receive and completes it; deposit: hands an envelope to thread t's
 * mailbox (a matching posted receive, else the unexpected queue); post:
 * a receive into the calling thread's mailbox (matched at once if an
 * envelope waits), post_blocking the same for the blocking receive. */
simple__req_t *simple__msg_take_posted(simple__mailbox_t *b, const simple__env_t *e);
simple__req_t *simple__msg_take_armed(simple__mth_t *t, const simple__env_t *e);
simple__env_t *simple__msg_find_unexp(simple__mailbox_t *b, int src, int tag, int take);
void simple__msg_deliver(simple__mth_t *me, simple__req_t *r, simple__env_t *e);
void simple__msg_deposit(simple__mth_t *me, simple__mth_t *t, simple__env_t *e);
void simple__msg_post(simple__mth_t *me, simple__req_t *r);
void simple__msg_post_blocking(simple__mth_t *me, simple__req_t *r);

/* The inter-node side (msg_remote.c): pulls arrived messages into the
 * mailboxes (one poller per node at a time), frees the buffers of
 * completed sends, completes direct MPI receives, and waits on a word
 * while polling MPI (src/run/wait.c's simple__wait_poll). */
void simple__msg_poll_mpi(simple__msg_node_t *m, simple__mth_t *me);
void simple__msg_progress_sends(simple__mth_t *me);
void simple__msg_mpi_done(const simple__msg_node_t *m, simple__req_t *r, int rc, int mtag,
                          size_t bytes);
int simple__msg_req_wait(simple__msg_node_t *m, simple__mth_t *me, simple__req_t *r);
int simple__msg_wait_remote(simple__msg_node_t *m, simple__mth_t *me, atomic_uint *word,
                            unsigned old, atomic_uint *sleepers);

#endif
