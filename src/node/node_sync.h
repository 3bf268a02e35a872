/* Internal: the shape every node-level phase of a collective shares, for
 * src/node and the layers above it (src/coll, ...).
 *
 *   1. each thread fills its slot (simple__node_my_slot: buffers, inline
 *      data) and calls simple__node_publish, one barrier that also combines
 *      the argument checks of all threads;
 *   2. threads work on each other's buffers through the returned slots;
 *   3. if a thread wrote into another's buffer, simple__node_finish (a
 *      barrier) keeps everyone in the call until the writes are done.
 *
 * Slots alternate by call parity: a thread that left call k can publish
 * for call k+1 while slower threads still read call k's slots, and nobody
 * can publish for call k+2 before everyone has left call k. */
#ifndef SIMPLE_NODE_SYNC_H
#define SIMPLE_NODE_SYNC_H

#include "run/job.h"

/* The calling thread's slot for its next publish. */
static inline simple__slot_t *simple__node_my_slot(simple_t *s) {
  return &s->node->slots[s->call & 1][s->thread];
}

/* Publishes this thread's arguments and waits for the node. Returns the
 * node's slots for this call, or NULL with *rc set: the thread's own error
 * `err`, SIMPLE_ERR_PEER if another thread's check failed, or
 * SIMPLE_ERR_FATAL. On a job of one node, through the posted-line
 * exchange (below); else through the counting barrier, as
 * simple__node_publish_lead with a leader that releases at once. */
simple__slot_t *simple__node_publish(simple_t *s, const void *send, void *recv, void *ptr, size_t n,
                                     int err, int *rc);

/* The posted-line exchange, the other way to start a node collective
 * (and the way simple__node_publish starts every call on a job of one
 * node, where no call has a leader): the thread copies `bytes` (<=
 * SIMPLE__INLINE_BYTES) of `data` into its slot's data (none with bytes
 * 0: what the caller wrote there already stays), posts its argument check
 * and the call's sequence number after it, then waits until every other
 * thread's slot holds this call. Returns the node's slots for the call, or
 * NULL with *rc set as for simple__node_publish; what a thread wrote into
 * its slot before the call is visible to the others after it. No barrier:
 * each thread reads every slot's sequence number in every call, so when
 * it posts for call k every thread has posted k - 1, and so has finished
 * call k - 2, whose slot (the same parity) it overwrites.
 * Cost: one line written and r - 1 read (one more per 64 bytes of data
 * beyond the first 48 a reader copies), in parallel; against a counting
 * barrier (the counter and generation lines, three or four transfers one
 * after the other) and the data lines read after it. All threads of one
 * call must start it the same way, this or simple__node_publish_lead,
 * whatever their arguments: a collective that starts with this does so on
 * every path. */
simple__slot_t *simple__node_exchange(simple_t *s, const void *data, size_t bytes, int err,
                                      int *rc);

/* The free check. Before a publish or an exchange, a collective entry
 * point may set s->sig, a 32-bit signature of its call (src/coll:
 * SIMPLE__COLL_CHECK hashes call, count, type, op and root); every publish
 * and exchange posts it in the thread's slot, on the line that already
 * carries the sequence number and the error flag, and clears it (a call
 * that sets none posts 0). The exchange compares every slot's signature on
 * the line it reads anyway; the barrier's leader compares them before it
 * works or releases (one posted line read per other thread). Threads that
 * differ get NULL with *rc = SIMPLE_ERR_FATAL and s->mismatch = 1: the one
 * code on which every caller returns at once without any inter-node step,
 * which a mismatch needs (those steps would follow the offender's
 * arguments). The entry point then asks simple__node_mismatch for the
 * thread's verdict. The job has not failed: nothing else sees the code. */
/* The verdict after a publish that found a mismatch (s->mismatch, which
 * this clears): SIMPLE_ERR_ARG on a thread whose signature differs from
 * the node's reference (the one most threads posted; the lowest thread's
 * among equals), else its own argument error or SIMPLE_ERR_PEER. *ref (if
 * not NULL) receives the reference thread. Reads the slots of the call, so
 * call it before the thread's next publish. */
int simple__node_mismatch(simple_t *s, int *ref);

/* rc, or the verdict when it is a mismatch's: for calls that end inside the
 * node (the node library). */
static inline int simple__node_verdict(simple_t *s, int rc) {
  return rc == SIMPLE_ERR_FATAL && s->mismatch ? simple__node_mismatch(s, NULL) : rc;
}

/* The slots of the call that the calling thread's last publish or
 * exchange started. */
static inline simple__slot_t *simple__node_slots(simple_t *s) {
  return s->node->slots[(s->call - 1) & 1];
}

/* A closing barrier; SIMPLE_ERR_FATAL if the job failed meanwhile. */
int simple__node_finish(simple_t *s);

/* The node phase of a large broadcast, called by each of the r threads
 * (me) once the source thread's buffer holds the data: every thread's
 * buffer (slots[t].recv) gets the `bytes` of slots[src].send. From 16
 * KiB the source, which would otherwise wait, copies the first 1/r of
 * every other buffer (cache lines), each other thread the rest of its own:
 * everyone copies about (r - 1)/r of the bytes instead of one thread idle
 * and the others copying all of them (2 threads: half the time where each
 * has a core; writes stay in the writer's own buffer but for the source's
 * share). The caller's closing barrier (simple__node_finish) follows. */
void simple__node_fan_out(const simple__slot_t *slots, int r, int src, int me, size_t bytes);

/* Publish for calls whose work one thread does for the node (an inter-node
 * step) while the others only wait for its result: one barrier instead of
 * two, its work done by the last thread to arrive (simple__barrier_lead).
 * That thread gets the slots with *lead = 1 and *rc = 0, does the work, and
 * must then call simple__node_lead_done with the work's result; the others
 * return after that (*lead = 0) with the slots, or NULL and *rc as for
 * simple__node_publish (SIMPLE_ERR_PEER also when the leader's work
 * failed). On an argument error anywhere the leader releases at once and
 * every thread gets NULL; the leader alone gets *lead = -1 then, telling
 * it to run the node's inter-node step in error mode (src/xchg's marks),
 * so that the other nodes, which wait on that step, hear the verdict. On a job of several nodes
 * simple__node_publish is this with a leader that releases at once: threads of one call may use
 * either form (a thread whose own arguments are wrong cannot always tell
 * which path the others take), and an error still reaches all of them.
 * For inter-node steps only: never called on a job of one node. */
simple__slot_t *simple__node_publish_lead(simple_t *s, const void *send, void *recv, void *ptr,
                                          size_t n, int err, int *rc, int *lead);
/* Releases the others after the leader's work; returns rc. */
int simple__node_lead_done(simple_t *s, int rc);

/* One thread per call (usually thread 0; a collective whose root thread
 * allocates may use that one instead), before publishing: a node-shared
 * scratch block of at least
 * `bytes` for the coming call (64-byte aligned), reused from call to call
 * and grown when needed; NULL if out of memory. Publish it through the
 * slot's ptr for the others. Two blocks alternate by call parity, so a
 * block is never grown while a slower thread still reads it: for what is
 * written before the publish (tables). Memory written only after it
 * belongs in src/xchg's room, one block for the node. */
void *simple__node_scratch(simple_t *s, size_t bytes);

/* Scans elements [lo, hi) of every thread's buffers (slots' send -> recv)
 * in thread order: inclusive, or exclusive (thread 0's recv untouched).
 * Only the calling thread touches these elements of any buffer, which makes
 * in-place calls (send == recv) safe without copies. If total is not NULL,
 * the combination of all r threads goes to total + lo (elements). Cost:
 * (r - 1) applications of op and r copies of the slice, in L1-sized
 * chunks. */
void simple__node_scan_slice(const simple__slot_t *slots, int r, int exclusive, simple_type_t type,
                             simple_op_t op, size_t lo, size_t hi, unsigned char *total);

/* The sliced combination of the node library, for layers that combine
 * into a buffer of their own: combines elements [lo, hi) of every thread's
 * slots[u].send, in thread order, into dest (element-indexed like the
 * inputs). dest may be any thread's input: each element is read before it
 * is written. */
void simple__node_combine_into(const simple__slot_t *slots, int r, simple_type_t type,
                               simple_op_t op, size_t lo, size_t hi, void *dest);

/* The slice [*lo, *hi) of count elements that thread `me` of r handles in a
 * sliced operation (cache-line aligned, at least 1 KiB each); empty when
 * *lo >= *hi. */
void simple__node_slice(size_t count, size_t elem, int r, int me, size_t *lo, size_t *hi);

#endif
