/* Internal: the optional watchdog (SIMPLE_WATCHDOG=SECONDS). Every blocking
 * wait of the library (a node barrier's sleep, an inter-node MPI wait) says
 * where it waits; a watchdog thread per process looks every 100 ms, and
 * when one wait has lasted longer than the limit it prints where every
 * thread of the node is, then aborts the job.
 *
 * Cost when off: one load of a process-wide pointer per slow-path wait.
 * When on: two relaxed atomic stores around each wait. */
#ifndef SIMPLE_RUN_WATCHDOG_H
#define SIMPLE_RUN_WATCHDOG_H

struct simple__node;

/* Marks the calling thread as waiting in `what` (a string literal) from
 * now on, or as no longer waiting. No-ops outside a job or when the
 * watchdog is off. */
void simple__watch_enter(const char *what);
void simple__watch_leave(void);

/* Starts the watchdog thread if SIMPLE_WATCHDOG is set (limit > 0 s);
 * returns 0 or an error code. simple__watchdog_stop joins it. */
int simple__watchdog_start(struct simple__node *n, long seconds);
void simple__watchdog_stop(struct simple__node *n);

#endif
