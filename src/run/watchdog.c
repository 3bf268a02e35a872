#include "run/watchdog.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "run/job.h"

/* A thread's mark. No clock read on the waiting side: the thread counts
 * its waits, and the watching thread times a wait from the first look that
 * found its count (so a wait is timed up to one look, 100 ms, short). */
typedef struct {
  _Alignas(SIMPLE__CACHE_LINE) _Atomic(const char *) what; /* NULL: not waiting */
  atomic_ullong waits;      /* waits begun; written by the thread alone */
  _Atomic(simple_t *) self; /* the thread's context, for its last call */
} watch_slot_t;

/* The watching thread's own view of a slot: the wait it last found there
 * and when it first found it. */
typedef struct {
  unsigned long long wait;
  long long since_ns; /* -1: not waiting when last looked at */
} watch_seen_t;

typedef struct {
  simple__node_t *node;
  long limit_s;
  watch_slot_t *slots; /* [threads] */
  watch_seen_t *seen;  /* [threads], the watching thread's */
  /* The watching thread naps on `wake` (CLOCK_MONOTONIC) between looks, so
   * that stopping it at the job's end wakes it at once: a plain sleep of
   * 100 ms made every job's end wait up to 100 ms for the join. */
  pthread_mutex_t lock;
  pthread_cond_t wake;
  int stop; /* under lock */
  pthread_t tid;
} watchdog_t;

/* One job per process at a time, so one watchdog. */
static _Atomic(watchdog_t *) active;

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static watch_slot_t *my_slot(void) {
  watchdog_t *w = atomic_load_explicit(&active, memory_order_acquire);
  if (!w) return NULL;
  simple_t *s = simple_self();
  return s ? &w->slots[s->thread] : NULL;
}

void simple__watch_thread(simple_t *s) {
  watchdog_t *w = atomic_load_explicit(&active, memory_order_acquire);
  if (w) atomic_store_explicit(&w->slots[s->thread].self, s, memory_order_relaxed);
}

void simple__watch_enter(const char *what) {
  watch_slot_t *slot = my_slot();
  if (!slot) return;
  /* The count first: a look that finds `what` (acquire) finds this wait's
   * count too. */
  atomic_store_explicit(&slot->waits, atomic_load_explicit(&slot->waits, memory_order_relaxed) + 1,
                        memory_order_relaxed);
  atomic_store_explicit(&slot->what, what, memory_order_release);
}

void simple__watch_leave(void) {
  watch_slot_t *slot = my_slot();
  if (slot) atomic_store_explicit(&slot->what, NULL, memory_order_release);
}

/* Where every thread of the node is: how long it has waited and in what,
 * and the collective it called last with its arguments and call site. */
static void report(watchdog_t *w, long long now, const char *who) {
  for (int t = 0; t < w->node->threads; t++) {
    const char *what = atomic_load_explicit(&w->slots[t].what, memory_order_acquire);
    simple_t *self = atomic_load_explicit(&w->slots[t].self, memory_order_relaxed);
    simple__call_t last = {0};
    if (self) last = simple__call_read(&self->last);
    char call[256] = "", site[512] = "", where[900] = "";
    if (last.name) {
      simple__call_describe(&last, call, sizeof call);
      simple__call_site(last.site, site, sizeof site);
      snprintf(where, sizeof where, "; last collective %s from %s", call, site);
    }
    /* A wait that began after this look counts as just begun. */
    long long since = w->seen[t].since_ns >= 0 ? w->seen[t].since_ns : now;
    if (what)
      fprintf(stderr, "simple: %s: node %d thread %d has waited %.1f s in %s%s\n", who,
              w->node->node, t, 1e-9 * (double)(now - since), what, where);
    else
      fprintf(stderr, "simple: %s: node %d thread %d is not waiting (computing)%s\n", who,
              w->node->node, t, where);
  }
}

/* Waits 100 ms, or less when the job stops it; returns 1 when stopped. */
static int nap(watchdog_t *w) {
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_nsec += 100000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&w->lock);
  while (!w->stop && pthread_cond_timedwait(&w->wake, &w->lock, &until) == 0) {
  }
  int stop = w->stop;
  pthread_mutex_unlock(&w->lock);
  return stop;
}

static void *watch_main(void *arg) {
  watchdog_t *w = arg;
  long long limit = (long long)w->limit_s * 1000000000LL;
  long long report_after = (long long)w->node->hang_report_s * 1000000000LL;
  /* The wait last reported, by the time it began: a report is printed once
   * per hang, not every 100 ms while it lasts. */
  long long reported_since = -1;
  while (!nap(w)) {
    long long now = now_ns(), oldest = -1;
    for (int t = 0; t < w->node->threads; t++) {
      const char *what = atomic_load_explicit(&w->slots[t].what, memory_order_acquire);
      unsigned long long wait = atomic_load_explicit(&w->slots[t].waits, memory_order_relaxed);
      watch_seen_t *v = &w->seen[t];
      if (!what) {
        v->since_ns = -1;
        continue;
      }
      if (v->since_ns < 0 || v->wait != wait) {
        v->wait = wait;
        v->since_ns = now;
      }
      if (oldest < 0 || v->since_ns < oldest) oldest = v->since_ns;
    }
    if (oldest < 0) continue;
    if (limit > 0 && now - oldest > limit) {
      report(w, now, "watchdog");
      simple_abort(NULL, "watchdog: a wait lasted longer than SIMPLE_WATCHDOG=%ld s", w->limit_s);
    }
    if (report_after > 0 && now - oldest > report_after && oldest != reported_since) {
      report(w, now, "hang report");
      /* The node ran a collective's error path on a guess of the other
       * nodes' call (src/coll/check.c said which calls): a wait now is
       * most likely that guess gone wrong, which no verdict can reach. */
      if (atomic_load_explicit(&w->node->guessed, memory_order_relaxed))
        simple_abort(NULL,
                     "hang report: node %d waits after its threads called collectives that move"
                     " different messages among nodes (the warning above); ending the job",
                     w->node->node);
      fprintf(stderr,
              "simple: hang report: node %d goes on waiting (SIMPLE_HANG_REPORT=%ld s;"
              " SIMPLE_WATCHDOG=SECONDS ends the job instead)\n",
              w->node->node, w->node->hang_report_s);
      reported_since = oldest;
    }
  }
  return NULL;
}

int simple__watchdog_start(simple__node_t *n, long seconds) {
  if (seconds <= 0 && n->hang_report_s <= 0) return 0;
  watchdog_t *w = calloc(1, sizeof *w);
  if (!w) return SIMPLE_ERR_NOMEM;
  w->slots = aligned_alloc(SIMPLE__CACHE_LINE, sizeof(watch_slot_t) * (size_t)n->threads);
  w->seen = malloc(sizeof(watch_seen_t) * (size_t)n->threads);
  pthread_condattr_t attr;
  int sync = pthread_condattr_init(&attr) == 0;
  int made = sync && pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 &&
             pthread_cond_init(&w->wake, &attr) == 0;
  if (sync) pthread_condattr_destroy(&attr);
  if (made && pthread_mutex_init(&w->lock, NULL) != 0) {
    pthread_cond_destroy(&w->wake);
    made = 0;
  }
  if (made && w->slots && w->seen) {
    for (int t = 0; t < n->threads; t++) {
      w->slots[t] = (watch_slot_t){NULL}; /* not waiting, no wait yet, no context */
      w->seen[t] = (watch_seen_t){0, -1};
    }
    w->node = n;
    w->limit_s = seconds;
    atomic_store(&active, w);
    if (pthread_create(&w->tid, NULL, watch_main, w) == 0) return 0;
    atomic_store(&active, NULL);
  }
  if (made) {
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
  }
  free(w->slots);
  free(w->seen);
  free(w);
  return SIMPLE_ERR_NOMEM;
}

void simple__watchdog_stop(simple__node_t *n) {
  (void)n;
  watchdog_t *w = atomic_exchange(&active, NULL);
  if (!w) return;
  pthread_mutex_lock(&w->lock);
  w->stop = 1;
  pthread_cond_signal(&w->wake);
  pthread_mutex_unlock(&w->lock);
  pthread_join(w->tid, NULL);
  pthread_cond_destroy(&w->wake);
  pthread_mutex_destroy(&w->lock);
  free(w->slots);
  free(w->seen);
  free(w);
}
