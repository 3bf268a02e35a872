/* Waiting that survives oversubscription: spin briefly, then sleep on a
 * futex. Every wait in the library goes through here, so the policy
 * (how long to spin, when to give up on a failed job) lives in one place.
 *
 * Cost model: a wake-up found while spinning costs one cache-line transfer
 * (~50-100 ns); one that needs the futex costs two system calls and a
 * context switch (~2-5 us), which is why we spin first when every thread
 * has a core of its own, and hardly at all when threads share cores (then
 * spinning only steals the core from the thread we are waiting for).
 * Sharing a core, a waiter then polls between sched_yields for a while
 * (a yield hands the core over in ~1 us; a futex sleep and wake-up cost
 * more) before it sleeps.
 */
#ifndef SIMPLE_RUN_WAIT_H
#define SIMPLE_RUN_WAIT_H

#include <stdatomic.h>

#define SIMPLE__CACHE_LINE 64

/* Process-wide waiting policy, set once at job start. */
typedef struct {
  unsigned spin;        /* polls before sleeping */
  unsigned yields;      /* then polls, each after a sched_yield, before the
                           futex (only when threads share cores) */
  atomic_int *fatal;    /* non-zero: the job failed; waits return early */
  atomic_int *departed; /* threads of this node that returned from the SPMD
                           function: a barrier waiting for them would wait
                           forever, so it ends the job instead */
} simple__wait_policy_t;

extern simple__wait_policy_t simple__wait_policy;

/* Whether the job has entered its fatal state (a thread aborted): permanent,
 * so a call that finds it set returns SIMPLE_ERR_FATAL at once. One relaxed
 * load of a line that is written once. */
static inline int simple__job_failed(void) {
  return simple__wait_policy.fatal &&
         atomic_load_explicit(simple__wait_policy.fatal, memory_order_relaxed);
}

/* Blocks while *word == old. Returns 0 once it differs, or SIMPLE_ERR_FATAL
 * if the job entered its fatal state meanwhile. `sleepers` counts threads
 * asleep on word, so that wakers skip the system call when nobody sleeps. */
int simple__wait_while(atomic_uint *word, unsigned old, atomic_uint *sleepers);

/* As simple__wait_while, for a wait that every thread of the node takes
 * part in (a collective): it also ends the job if a thread of the node has
 * returned from its SPMD function while the word is still unchanged (that
 * thread would never change it). */
int simple__wait_collective(atomic_uint *word, unsigned old, atomic_uint *sleepers);

/* As simple__wait_while, for a word that may also be changed by work only
 * the waiter can do (a message from another node that MPI delivers only
 * inside an MPI call): poll(arg) runs before every look at the word. Spins
 * (policy.spin polls), yields 4 times, then sleeps on the futex with a
 * timeout that doubles from 20 us to 500 us (a thread of the node that
 * changes the word wakes it at once; what poll would find is seen at the
 * next timeout). The sleeps are watched (SIMPLE_WATCHDOG). */
int simple__wait_poll(atomic_uint *word, unsigned old, atomic_uint *sleepers,
                      void (*poll)(void *arg), void *arg);

/* Wakes every thread sleeping on word (after the caller changed it). */
void simple__wake_all(atomic_uint *word, atomic_uint *sleepers);

/* A reusable barrier for n threads that also combines one error flag:
 * simple__barrier_wait returns the OR of the flags all threads passed in.
 * The flag words alternate by generation parity: the last arriver of
 * generation g clears the word of generation g+1, which nobody can still be
 * reading because every thread has arrived at g. A barrier of one thread
 * (a node of one thread) returns at once with its own flag and touches no
 * shared word. */
typedef struct {
  _Alignas(SIMPLE__CACHE_LINE) atomic_uint count;
  _Alignas(SIMPLE__CACHE_LINE) atomic_uint gen;
  atomic_uint sleepers;
  atomic_uint flags[2];
  unsigned n;
} simple__barrier_t;

void simple__barrier_init(simple__barrier_t *b, unsigned n);
/* Returns the OR of all `flag` arguments of this generation, or
 * SIMPLE_ERR_FATAL's bit (1u << 31) if the job failed while waiting. */
unsigned simple__barrier_wait(simple__barrier_t *b, unsigned flag);
#define SIMPLE__BARRIER_FATAL (1u << 31)

/* The same barrier with work done by the last thread to arrive, before it
 * releases the others: simple__barrier_lead returns at once to that thread
 * (*lead = 1) with every other thread's flag, and that thread must then
 * call simple__barrier_lead_release with its own; the others (*lead = 0)
 * return after that release, as from simple__barrier_wait, with the
 * leader's flag included. For a step that one thread of the node does
 * between two barriers (an inter-node exchange): the last arriver does it
 * instead of a fixed master, so nobody waits in a first barrier and nobody
 * has to wake that master. When threads share a core, this saves one or
 * two thread switches per call (~1-2 us each on a virtual machine).
 * simple__barrier_wait is this with a leader that releases at once, so
 * threads of one generation may use either form: a flag raised by any of
 * them reaches all. */
unsigned simple__barrier_lead(simple__barrier_t *b, unsigned flag, int *lead);
void simple__barrier_lead_release(simple__barrier_t *b, unsigned flag);

static inline void simple__cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield" ::: "memory");
#else
  atomic_signal_fence(memory_order_seq_cst);
#endif
}

#endif
