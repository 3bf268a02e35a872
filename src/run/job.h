/* Internal: the state of a running job, shared by the layers of src/.
 * One simple__node_t per process (a "node"), one simple_t per thread. */
#ifndef SIMPLE_RUN_JOB_H
#define SIMPLE_RUN_JOB_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "run/wait.h"
#include "simple/core.h"

/* What one thread publishes for a node collective, read by the other
 * threads of the node: its buffers (first line), then the call's sequence
 * number, argument check and inline data (the posted line and the 16 lines
 * after it). Slots alternate by call parity, so a thread that has left
 * call k can publish for call k+1 while slower threads still read call
 * k's slot.
 *
 * Small inputs travel inside the slot itself: copied in before the call's
 * synchronization, they let small collectives finish with one instead of
 * two (nobody reads another thread's buffer, so nobody waits for the
 * reads). 1 KiB of blocks and a few headers: a barrier costs more than
 * copying 1 KiB twice (with 2 threads on the development VM, gathers and
 * all-to-alls of 512 B per block went from two barriers to one).
 *
 * On one node, and in the node library's reductions, scans and
 * broadcasts everywhere, the synchronization is the posted-line exchange
 * (src/node, simple__node_exchange): each thread writes its sequence
 * number after its data, and waits for every other thread's. The first 48 bytes of data share the
 * sequence number's cache line, so an 8-byte reduction costs one line
 * written and one read per other thread, where a counting barrier and a
 * data line cost three or four transfers in a row. */
#define SIMPLE__INLINE_BYTES 1072
typedef struct {
  _Alignas(SIMPLE__CACHE_LINE) const void *send;
  void *recv;
  void *ptr;
  size_t n;
  const void *aux[4]; /* what else a call's readers need besides the data */
  _Alignas(SIMPLE__CACHE_LINE) atomic_uint seq; /* the call posted last, 0: none yet */
  atomic_uint sleepers;                         /* threads asleep on seq */
  union {
    struct {
      int err;      /* the poster's argument check */
      unsigned sig; /* the poster's call signature (node check, src/node), 0: none */
    };
    uint64_t check; /* both, read as one word (simple__posted_check) */
  };
  unsigned char data[SIMPLE__INLINE_BYTES];
} simple__slot_t;

/* The word `check` of a slot whose poster found err and has signature
 * sig: a reader compares one word per other thread on the fast path. */
static inline uint64_t simple__posted_check(int err, unsigned sig) {
  union {
    struct {
      int err;
      unsigned sig;
    } f;
    uint64_t word;
  } w = {.f = {err, sig}};
  return w.word;
}

_Static_assert(sizeof(simple__slot_t) == 18 * SIMPLE__CACHE_LINE,
               "a slot is its buffers' line and 17 posted lines");
_Static_assert(offsetof(simple__slot_t, err) == offsetof(simple__slot_t, check) &&
                   offsetof(simple__slot_t, sig) == offsetof(simple__slot_t, check) + sizeof(int),
               "check is err then sig, as simple__posted_check builds it");

/* Upper layers that may register an at-close hook (simple__node_at_close). */
#define SIMPLE__MAX_AT_CLOSE 8
/* Layers above src/run that may keep per-node state (simple__layer_slot). */
#define SIMPLE__MAX_LAYERS 8

/* SIMPLE_SEGMENT_WHOLE's default: src/xchg sends a message between hosts
 * of 8 MiB or more whole (one way only: 16 MiB), below that in segments
 * (xchg.c gives the measurements). */
#define SIMPLE__SEGMENT_WHOLE ((long)8 * 1024 * 1024)
/* SIMPLE_SEGMENT_PIECES's default: a whole message whose pieces are all
 * 256 KiB or more goes as one MPI message per piece (xchg.h's parts). */
#define SIMPLE__SEGMENT_PIECES ((long)256 * 1024)

typedef struct simple__node {
  int node;             /* MYNODE */
  int nodes;            /* NODES */
  int threads;          /* THREADS on this node */
  int nprocs;           /* TID */
  int *threads_of;      /* [nodes]: threads on each node */
  int *first_pid;       /* [nodes + 1]: global rank of each node's thread 0 */
  int *host_of;         /* [nodes]: each node's host, named by the lowest node on
                           it (MPI_COMM_TYPE_SHARED: nodes that MPI's shared
                           memory joins) */
  int local_rank;       /* this process among those on the same host */
  int local_first_core; /* threads of lower local ranks on this host */
  int oversubscribed;   /* more runnable threads on the host than cores */
  int shared_anywhere;  /* some node of the job is oversubscribed: the same on
                           every node, for choices both ends of a transfer
                           must agree on (lanes, exchange methods) */
  int pin;              /* SIMPLE_PIN: bind each thread to a core */
  long watchdog_s;      /* SIMPLE_WATCHDOG: longest wait before aborting, 0: off */
  long hang_report_s;   /* SIMPLE_HANG_REPORT: longest wait before reporting it, 0: off */
  int checked;          /* SIMPLE_CHECK: collectives compare their calls first */
  void *comm;           /* the job's MPI communicator (MPI_Comm, opaque here) */
  int lanes;            /* inter-node lanes: threads of a node that may drive
                           transfers at once (set by src/xchg's open hook) */
  int lanes_shared;     /* SIMPLE_LANES_SHARED=1: drive them all where threads
                           share cores too (set by the same hook) */

  simple__barrier_t barrier;
  simple__slot_t *slots[2]; /* [2][threads] */
  simple__buf_t scratch[2]; /* node-shared work space, by call parity */

  atomic_int fatal;    /* the job failed: waits return SIMPLE_ERR_FATAL */
  atomic_int departed; /* threads that returned from the SPMD function */
  atomic_int guessed;  /* the node ran a collective's error path on a guess of
                          the other nodes' call (threads' calls that move
                          different messages among nodes): a wait past the
                          hang report's limit then ends the job */

  /* The per-node state of the layers above (each a slot of its own, found
   * by the layer's key: src/base/sync.h), set up lazily by each layer and
   * released by its at-close hook. */
  void *layer[SIMPLE__MAX_LAYERS];
  int nclose;
  void (*at_close[SIMPLE__MAX_AT_CLOSE])(struct simple__node *n);

  /* SIMPLE_SEGMENT_WHOLE: messages between hosts of this many bytes and
   * more go whole (src/xchg; one way only, from twice this), 0: none;
   * the same on every node. Read by
   * messages above a segment only: last, so that the fields every call
   * reads keep their places. */
  size_t segment_whole;
  /* SIMPLE_SEGMENT_PIECES: a whole message whose client lists its pieces
   * (xchg.h's parts), each of this many bytes or more, goes as one MPI
   * message per piece; 0: never. The same on every node. */
  size_t segment_pieces;
} simple__node_t;

/* The node of global rank pid (0 <= pid < nprocs): O(log NODES). */
int simple__node_of(const simple__node_t *n, int pid);

/* This process's node and the node count as the launcher set them, before
 * MPI is initialized; returns 0 (and sets nothing) when no known launcher
 * variable says so. */
int simple__launch_known(int *node, int *nodes);

/* Registers fn to run once when the job ends on this node: after every
 * thread has returned from the SPMD function and before the layers' close
 * hooks and MPI's end (so fn may still free MPI objects), in reverse order
 * of registration. Thread-safe; returns SIMPLE_ERR_NOMEM when the table is
 * full. */
int simple__node_at_close(simple__node_t *n, void (*fn)(simple__node_t *n));

/* A layer's hooks for every job of the process, for a layer that must set
 * something up collectively before any thread runs (one that sets up
 * lazily, under a collective call of its own, registers only an at-close
 * hook: simple__node_at_close). The layer registers them once per process,
 * from a constructor; src/run knows no layer by name.
 *
 * open runs on every node at job start, on the main thread before the
 * other threads start and after MPI is up, one hook after another
 * in the order of their names (the same on every node, whatever order the
 * constructors ran in: opens may make collective calls among the nodes,
 * such as simple__comm_dup). If any open fails on any node, the job does
 * not start (simple_run returns the first node's code). close runs on
 * every node at job end, after the at-close hooks and before MPI ends,
 * in reverse order; also after a failed open, so it must handle
 * a layer half set up. Returns 0, or SIMPLE_ERR_NOMEM when
 * SIMPLE__MAX_HOOKS layers have registered already. */
#define SIMPLE__MAX_HOOKS 8
typedef struct {
  const char *name;
  int (*open)(simple__node_t *n);
  void (*close)(simple__node_t *n);
} simple__layer_hooks_t;
int simple__layer_hooks(const simple__layer_hooks_t *h);

/* The collective a thread called last: src/coll records it at each call's
 * entry (six relaxed stores into the thread's own context, ~1 ns), the
 * hang report prints it, checked mode compares it. Written by its thread
 * alone and read by the watchdog's thread field by field (relaxed atomics:
 * a report taken while a call starts may mix two calls' fields). */
typedef struct {
  const char *name;   /* the call without its simple_ prefix; NULL before the first */
  const void *site;   /* the caller's return address */
  long long count;    /* -1 where it does not apply (the v forms, barrier) */
  int type, op, root; /* -1 where they do not apply */
} simple__call_t;

static inline void simple__call_record(simple__call_t *c, const char *name, const void *site,
                                       long long count, int type, int op, int root) {
  __atomic_store_n(&c->name, name, __ATOMIC_RELAXED);
  __atomic_store_n(&c->site, site, __ATOMIC_RELAXED);
  __atomic_store_n(&c->count, count, __ATOMIC_RELAXED);
  __atomic_store_n(&c->type, type, __ATOMIC_RELAXED);
  __atomic_store_n(&c->op, op, __ATOMIC_RELAXED);
  __atomic_store_n(&c->root, root, __ATOMIC_RELAXED);
}

/* A copy of c taken with relaxed loads (from another thread). */
simple__call_t simple__call_read(const simple__call_t *c);
/* "simple_allreduce(count 4, type double, op sum)"; "" when c names no call. */
void simple__call_describe(const simple__call_t *c, char *out, size_t len);
/* The code address site as "symbol+0xOFF (object)", or its address when no
 * symbol is known (a program built without -rdynamic exports none of its
 * own functions: addr2line -e PROGRAM finds the line). */
void simple__call_site(const void *site, char *out, size_t len);

/* Each thread's context on lines of its own (the team is one aligned
 * array): a thread writes its context on every collective (call, last,
 * sig), and contexts sharing a line made every call move that line
 * between the cores (measured on the 2-core VM, 8-byte alltoall on 1 x 2,
 * medians of 5 runs: 0.19 us packed, 0.14 us aligned). */
struct simple {
  _Alignas(SIMPLE__CACHE_LINE) simple__node_t *node;
  int thread;    /* MYTHREAD */
  int pid;       /* ID */
  unsigned call; /* node collectives made so far: selects the slot and line parity */
  void (*fn)(simple_t *, void *);
  void *arg;
  simple__call_t last; /* the collective called last */
  unsigned sig;        /* the signature the next publish posts (src/coll: SIMPLE__COLL_CHECK) */
  int mismatch;        /* the last publish found the node's threads calling differently */
  const void *vargs;   /* the v form's arrays of the call being made (src/coll: its rerun) */
  unsigned guess;      /* while the thread reruns a call on a guess of the other nodes'
                          call (src/coll/check.c), that call's signature; else 0 */
};

/* The calling thread's own context (simple_self), NULL outside a job.
 * initial-exec: one load from the thread pointer instead of a call to
 * __tls_get_addr, which every checked call would otherwise pay; the
 * library's 8 bytes of static TLS fit glibc's reserve even when the
 * library is dlopen'ed. */
extern _Thread_local simple_t *simple__self __attribute__((tls_model("initial-exec")));

/* Whether s is the context of the calling thread of a running job: the
 * check behind SIMPLE_ERR_NOT_IN_JOB. NULL, a context used by a thread the
 * job did not start, or one used after its thread's SPMD function returned
 * all fail it. One thread-pointer-relative load and a compare (~1 ns). */
#define SIMPLE__IN_JOB(s) ((s) != NULL && (s) == simple__self)

#endif
