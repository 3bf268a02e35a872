#include "run/wait.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "run/watchdog.h"
#include "simple/core.h"

simple__wait_policy_t simple__wait_policy = {.spin = 1000, .fatal = NULL};

/* Sleeps at most this long before looking at the fatal flag again, so a
 * failed job is noticed without any thread having to know every address
 * others may sleep on. 50 ms of latency on a failure path costs nothing. */
#define SIMPLE__SLEEP_NS 50000000L

static int futex_wait(atomic_uint *word, unsigned old, long ns) {
  struct timespec ts = {0, ns};
  return (int)syscall(SYS_futex, (unsigned *)word, FUTEX_WAIT_PRIVATE, old, &ts, NULL, 0);
}

/* A barrier needs every thread of the node; one that has returned from the
 * SPMD function will never come. Checked on each sleep timeout, so the job
 * ends within SIMPLE__SLEEP_NS of the departure instead of hanging. */
static void check_departed(atomic_uint *word, unsigned old) {
  if (!simple__wait_policy.departed ||
      atomic_load_explicit(simple__wait_policy.departed, memory_order_seq_cst) == 0)
    return;
  /* A thread departs only after its last collective, which changed every
   * word of that call (a barrier's generation; every posted line, since it
   * read them all): if the word is unchanged, the departed thread is
   * missing from the call we wait in. */
  if (atomic_load_explicit(word, memory_order_seq_cst) != old) return;
  simple_abort(NULL,
               "a thread returned from its SPMD function while other threads of its node "
               "wait for it in a barrier or collective (every thread must make the same "
               "collective calls)");
}

static int wait_impl(atomic_uint *word, unsigned old, atomic_uint *sleepers, int all_threads) {
  unsigned spin = simple__wait_policy.spin;
  for (unsigned i = 0; i < spin; i++) {
    if (atomic_load_explicit(word, memory_order_acquire) != old) return 0;
    simple__cpu_relax();
  }
  /* One yield lets a thread that shares our core finish its work before we
   * pay for a futex sleep. */
  sched_yield();
  for (unsigned i = 0; i < simple__wait_policy.yields; i++) {
    if (atomic_load_explicit(word, memory_order_acquire) != old) return 0;
    sched_yield();
  }
  /* Dekker pairing with simple__wake_all: we announce ourselves, then look
   * at the word; the waker changes the word, then looks for sleepers. With
   * both sides sequentially consistent one of us sees the other. */
  atomic_fetch_add_explicit(sleepers, 1, memory_order_seq_cst);
  simple__watch_enter(all_threads ? "a node barrier (a collective call of every thread)"
                                  : "a wait for another thread of the node");
  int rc = 0;
  while (atomic_load_explicit(word, memory_order_seq_cst) == old) {
    if (simple__job_failed()) {
      rc = SIMPLE_ERR_FATAL;
      break;
    }
    futex_wait(word, old, SIMPLE__SLEEP_NS);
    if (all_threads) check_departed(word, old);
  }
  simple__watch_leave();
  atomic_fetch_sub_explicit(sleepers, 1, memory_order_relaxed);
  atomic_thread_fence(memory_order_acquire);
  return rc;
}

int simple__wait_while(atomic_uint *word, unsigned old, atomic_uint *sleepers) {
  return wait_impl(word, old, sleepers, 0);
}

int simple__wait_collective(atomic_uint *word, unsigned old, atomic_uint *sleepers) {
  return wait_impl(word, old, sleepers, 1);
}

/* Sleep bounds of simple__wait_poll: nobody can wake the waiter when the
 * polled source has news, so it looks again after a timeout that grows. */
#define POLL_SLEEP_MIN_NS 20000L
#define POLL_SLEEP_MAX_NS 500000L

int simple__wait_poll(atomic_uint *word, unsigned old, atomic_uint *sleepers,
                      void (*poll)(void *arg), void *arg) {
  unsigned spin = simple__wait_policy.spin;
  long ns = 0;
  int watched = 0, rc = 0;
  for (unsigned i = 0;; i++) {
    if (atomic_load_explicit(word, memory_order_acquire) != old) break;
    poll(arg);
    if (atomic_load_explicit(word, memory_order_acquire) != old) break;
    if (simple__job_failed()) {
      rc = SIMPLE_ERR_FATAL;
      break;
    }
    if (i < spin) {
      simple__cpu_relax();
      continue;
    }
    if (i < spin + 4) {
      sched_yield();
      continue;
    }
    ns = ns ? (ns * 2 < POLL_SLEEP_MAX_NS ? ns * 2 : POLL_SLEEP_MAX_NS) : POLL_SLEEP_MIN_NS;
    /* Watched from the first sleep to the end of the wait (poll makes
     * only nonblocking MPI calls, which do not touch the mark). */
    if (!watched) simple__watch_enter("a wait for a message (from this node or another)");
    watched = 1;
    atomic_fetch_add_explicit(sleepers, 1, memory_order_seq_cst);
    if (atomic_load_explicit(word, memory_order_seq_cst) == old) futex_wait(word, old, ns);
    atomic_fetch_sub_explicit(sleepers, 1, memory_order_relaxed);
  }
  if (watched) simple__watch_leave();
  return rc;
}

void simple__wake_all(atomic_uint *word, atomic_uint *sleepers) {
  if (atomic_load_explicit(sleepers, memory_order_seq_cst) != 0)
    syscall(SYS_futex, (unsigned *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

void simple__barrier_init(simple__barrier_t *b, unsigned n) {
  atomic_init(&b->count, 0);
  atomic_init(&b->gen, 0);
  atomic_init(&b->sleepers, 0);
  atomic_init(&b->flags[0], 0);
  atomic_init(&b->flags[1], 0);
  b->n = n;
}

unsigned simple__barrier_lead(simple__barrier_t *b, unsigned flag, int *lead) {
  /* A thread that left an earlier wait because the job failed left its
   * arrival counted: after a failure the count no longer says who came, so
   * nobody may lead (and read the slots of threads that never came). */
  if (simple__job_failed()) {
    *lead = 0;
    return SIMPLE__BARRIER_FATAL;
  }
  /* A node of one thread: nobody to meet, so no shared word is touched (a
   * collective there passes two barriers: ~100 instructions and four
   * locked operations a call, on the path to and from its inter-node
   * step). */
  if (b->n == 1) {
    *lead = 1;
    return flag;
  }
  unsigned gen = atomic_load_explicit(&b->gen, memory_order_acquire);
  atomic_uint *flags = &b->flags[gen & 1];
  if (flag) atomic_fetch_or_explicit(flags, flag, memory_order_relaxed);
  *lead = atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) == b->n - 1;
  if (!*lead && wait_impl(&b->gen, gen, &b->sleepers, 1) != 0) return SIMPLE__BARRIER_FATAL;
  return atomic_load_explicit(flags, memory_order_relaxed);
}

void simple__barrier_lead_release(simple__barrier_t *b, unsigned flag) {
  if (b->n == 1) return; /* nobody waits for the release */
  /* Nobody else can move the generation while the leader holds it. */
  unsigned gen = atomic_load_explicit(&b->gen, memory_order_relaxed);
  if (flag) atomic_fetch_or_explicit(&b->flags[gen & 1], flag, memory_order_relaxed);
  /* Everyone has read the flags of gen - 1, so the word that gen + 1 will
   * use can be cleared; then the count, then the release. */
  atomic_store_explicit(&b->flags[(gen + 1) & 1], 0, memory_order_relaxed);
  atomic_store_explicit(&b->count, 0, memory_order_relaxed);
  atomic_store_explicit(&b->gen, gen + 1, memory_order_seq_cst);
  simple__wake_all(&b->gen, &b->sleepers);
}

unsigned simple__barrier_wait(simple__barrier_t *b, unsigned flag) {
  int lead;
  unsigned f = simple__barrier_lead(b, flag, &lead);
  if (lead) simple__barrier_lead_release(b, 0);
  return f;
}
