/* simple: shared objects with one cache per node (paper 003's SAM, on a
 * cluster of multicore nodes).
 *
 * A space holds objects with global names. Each object lives at its home
 * (the node of the thread that created it) and is one of two kinds:
 *
 *   value        written once when created, then immutable: any thread may
 *                read it, and a copy fetched from another node stays valid
 *                for the life of the space (until simple_shobj_clear);
 *   accumulator  mutable: a thread that updates it gets exclusive access,
 *                the current version moving to it (acquire) and back to the
 *                home (release); a read returns one consistent version,
 *                never a mix of two.
 *
 * The cache is shared by all threads of a node: a remote value crosses the
 * network at most once per node, however many of the node's threads read
 * it (threads that ask for a value that is being fetched wait for that
 * fetch, spinning briefly then sleeping), where one cache per process (one
 * process per core) fetches it once per core. Its size is bounded; values
 * nobody holds are evicted, least recently brought in first.
 *
 * Fetches are one-sided (MPI windows, passive target): the home's threads
 * do not take part, so a home busy computing does not hold up its readers
 * (on a transport without remote memory access, such as TCP, MPI serves
 * them when the home next enters the MPI library).
 *
 * Costs: alpha = one network round trip between nodes, beta = time per byte
 * across the network, m = a lock, a hash lookup and an unlock on the node's
 * cache (~50-100 ns, more when threads contend), b = bytes of the object.
 * Errors are the library's codes (simple_strerror), among them
 * SIMPLE_ERR_UNKNOWN_OBJECT, SIMPLE_ERR_IMMUTABLE, SIMPLE_ERR_ACC_MISUSE and
 * SIMPLE_ERR_CACHE_FULL. */
#ifndef SIMPLE_SHOBJ_H
#define SIMPLE_SHOBJ_H

#include "simple/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A space of shared objects: one per job at a time or several, each opened
 * and closed by every thread of the job. Opaque. */
typedef struct simple_shobj_space simple_shobj_space_t;

/* The global name of an object: plain data, valid on every node (send it
 * in messages, store it in other objects). The all-zero name is no object
 * (SIMPLE_SHOBJ_NULL). */
typedef struct {
  uint64_t where; /* home node and place there */
  uint64_t what;  /* kind, generation and size */
} simple_obj_t;

#define SIMPLE_SHOBJ_NULL ((simple_obj_t){0, 0})

/* Settings of a space; the same on every thread of the job. A field left 0
 * takes its default. */
typedef struct {
  size_t heap_bytes;  /* room for the objects each node is home to
                         (default 64 MiB; each object takes its size
                         rounded up to 16 bytes plus 32 bytes) */
  size_t cache_bytes; /* room for the node's copies of other nodes' values
                         (default 32 MiB; rounded up to a power of two; a
                         copy takes its size plus 32 bytes, rounded up to a
                         power of two of at least 64 bytes) */
  int per_thread;     /* 1: one cache per thread instead of one per node
                         (each thread fetches for itself, as a process per
                         core would; for measuring the node-shared cache
                         against it); default 0 */
} simple_shobj_opts_t;

/* Collective over every thread of the job: a new space (every thread gets
 * the same handle). opts may be NULL (defaults). Cost: one window creation
 * among the nodes (a few alpha) and heap_bytes + cache_bytes of memory per
 * node, plus two job barriers. */
SIMPLE_API int simple_shobj_open(simple_t *s, const simple_shobj_opts_t *opts,
                                 simple_shobj_space_t **sp);
/* Collective over every thread of the job: ends the space; every name in
 * it becomes unknown and every pointer into it invalid. Cost: a job
 * barrier and the window's release. */
SIMPLE_API int simple_shobj_close(simple_t *s, simple_shobj_space_t *sp);

/* Collective over every thread of the job: forgets every object (names
 * from before are unknown from now on, SIMPLE_ERR_UNKNOWN_OBJECT) and empties
 * every cache, keeping the memory: for programs that rebuild their shared
 * data each step (a Barnes-Hut tree). Fails with SIMPLE_ERR_ACC_MISUSE if a
 * thread still holds a value or an accumulator. Cost: two job barriers. */
SIMPLE_API int simple_shobj_clear(simple_t *s, simple_shobj_space_t *sp);

/* Any thread: a new value of `bytes` bytes (may be 0) copied from data,
 * homed on the calling thread's node; *name gets its name. Other threads
 * may read it once they have the name (through any message or collective
 * that carries it). Cost: one atomic add and a copy of b bytes, local; no
 * network traffic. SIMPLE_ERR_NOMEM when the node's heap is full. */
SIMPLE_API int simple_shobj_value(simple_t *s, simple_shobj_space_t *sp, const void *data,
                                  size_t bytes, simple_obj_t *name);
/* Any thread: a new accumulator of `bytes` bytes, initially a copy of
 * init (zeros if init is NULL), homed on the calling thread's node. Cost:
 * as simple_shobj_value. */
SIMPLE_API int simple_shobj_acc(simple_t *s, simple_shobj_space_t *sp, const void *init,
                                size_t bytes, simple_obj_t *name);

/* The kind and size a name announces, without any traffic: 1 for a value,
 * 2 for an accumulator, 0 for a name that cannot be an object of any
 * space (the null name among them). */
SIMPLE_API int simple_shobj_kind(simple_obj_t name);
SIMPLE_API size_t simple_shobj_size(simple_obj_t name);
/* The home node of an object, -1 for the null name. */
SIMPLE_API int simple_shobj_home(simple_obj_t name);

/* Any thread: a value's bytes, in place: *data points at the home's copy
 * (on the home node) or at the node's cached copy, which stays valid until
 * the thread calls simple_shobj_done for the name (reads may nest: each
 * read needs its done). *bytes (if not NULL) gets its size.
 * Cost: m on a hit; a miss adds alpha + b beta (one get, the node's one
 * fetch of it; threads of the node that ask meanwhile wait for that get
 * instead of making their own). An accumulator's name gives
 * SIMPLE_ERR_ACC_MISUSE (read one with simple_shobj_get); a name not known
 * to the space SIMPLE_ERR_UNKNOWN_OBJECT; a cache whose room is held by
 * other reads, or too small for the value, SIMPLE_ERR_CACHE_FULL. */
SIMPLE_API int simple_shobj_read(simple_t *s, simple_shobj_space_t *sp, simple_obj_t name,
                                 const void **data, size_t *bytes);
/* Ends one simple_shobj_read of the name by this node: the cached copy may
 * be evicted once nobody holds it. SIMPLE_ERR_ACC_MISUSE if the node holds no
 * read of it. Cost: m. */
SIMPLE_API int simple_shobj_done(simple_t *s, simple_shobj_space_t *sp, simple_obj_t name);

/* Any thread: fetches every value of names[0..n) that the node does not
 * have yet into its cache, in one group: the gets to all homes are issued
 * together and completed by one flush, so the group costs about one alpha
 * plus its bytes instead of one alpha per value (paper 003's prefetch).
 * Later reads of these names hit (while the cache keeps them). Cost: n m
 * + alpha + (sum b) beta. Errors as simple_shobj_read, for the first name
 * that failed; the others are fetched all the same. */
SIMPLE_API int simple_shobj_fetch(simple_t *s, simple_shobj_space_t *sp, const simple_obj_t *names,
                                  size_t n);

/* Any thread: puts a copy of value `name` that reached this node another
 * way into the node's cache, so that later reads hit without a fetch. For
 * a creator that pushes its value, with its name, in a message to the
 * nodes that will read it (a message-passing program's habit), which on a
 * transport without remote memory access also spares them a get that
 * waits until the home next enters MPI. A value never changes, so any
 * faithful copy of its bytes is the value: the caller vouches for data
 * (bytes must be the size the name announces). Nothing happens on the
 * home node (reads use the home's copy) or when the node already has the
 * value or is fetching it. Cost: m + a copy of b bytes. Errors: an
 * accumulator's name SIMPLE_ERR_ACC_MISUSE, a name not of the space
 * SIMPLE_ERR_UNKNOWN_OBJECT, another size SIMPLE_ERR_ARG, data NULL
 * SIMPLE_ERR_NULL, no room SIMPLE_ERR_CACHE_FULL (nothing kept: a later
 * read fetches as usual). */
SIMPLE_API int simple_shobj_offer(simple_t *s, simple_shobj_space_t *sp, simple_obj_t name,
                                  const void *data, size_t bytes);

/* Any thread: copies an object into buf (cap bytes; *bytes, if not NULL,
 * gets its size; SIMPLE_ERR_TRUNCATE if cap is smaller). A value goes
 * through the cache as simple_shobj_read; an accumulator is read at its
 * home, one consistent version (the last release before the read), never
 * cached. Cost for an accumulator: 4 alpha + b beta (check its header,
 * take a reader's share of its lock, get, give the share back), more while
 * a thread holds it. */
SIMPLE_API int simple_shobj_get(simple_t *s, simple_shobj_space_t *sp, simple_obj_t name, void *buf,
                                size_t cap, size_t *bytes);

/* Any thread: exclusive access to an accumulator. Waits until no other
 * thread holds or reads it, then brings its current version to the
 * calling thread: *data points at the thread's private copy (valid until
 * release), which the thread may change at will. A thread holds at most
 * one accumulator at a time (so that two threads can never wait for each
 * other); a second acquire before release is SIMPLE_ERR_ACC_MISUSE, and so is
 * a release of a name the thread does not hold. A value's name gives
 * SIMPLE_ERR_IMMUTABLE. On an error the thread does not hold it (a read
 * that failed after the lock gives the lock back). Cost: 3 alpha + b beta
 * (check its header, lock, get), plus the wait for other holders. */
SIMPLE_API int simple_shobj_acquire(simple_t *s, simple_shobj_space_t *sp, simple_obj_t name,
                                    void **data);
/* Sends the thread's copy back to the home as the next version and ends
 * the exclusive access. On an MPI error the thread still holds it (the
 * home may have part of the new version), and may release again. Cost:
 * 2 alpha + b beta (put, unlock). */
SIMPLE_API int simple_shobj_release(simple_t *s, simple_shobj_space_t *sp, simple_obj_t name);
/* Replaces an accumulator's contents by `bytes` (its size) from data, as
 * acquire, copy, release. A value's name gives SIMPLE_ERR_IMMUTABLE. */
SIMPLE_API int simple_shobj_write(simple_t *s, simple_shobj_space_t *sp, simple_obj_t name,
                                  const void *data, size_t bytes);

/* The node's counters since the space opened (or the last reset): the same
 * on every thread of a node. Cost: a few loads. */
typedef struct {
  uint64_t fetches;     /* values this node got from other nodes */
  uint64_t bytes;       /* bytes those fetches moved (objects and headers) */
  uint64_t hits;        /* reads served by a copy the node had */
  uint64_t waits;       /* reads that waited for another thread's fetch */
  uint64_t local;       /* reads of values homed on this node */
  uint64_t groups;      /* group fetches (simple_shobj_fetch) that got anything */
  uint64_t evictions;   /* copies dropped to make room */
  uint64_t acc_gets;    /* accumulator versions read */
  uint64_t acc_updates; /* accumulator releases and writes */
  uint64_t offers;      /* values put in by simple_shobj_offer */
} simple_shobj_stats_t;
SIMPLE_API int simple_shobj_stats(simple_t *s, simple_shobj_space_t *sp, simple_shobj_stats_t *st);
/* Collective over the threads of the node: zeroes the node's counters. */
SIMPLE_API int simple_shobj_stats_reset(simple_t *s, simple_shobj_space_t *sp);

#ifdef __cplusplus
}
#endif

#endif /* SIMPLE_SHOBJ_H */
