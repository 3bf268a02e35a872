/* Internal: the hang report (SIMPLE_HANG_REPORT=SECONDS, default 60) and
 * the watchdog (SIMPLE_WATCHDOG=SECONDS, default off). Every blocking wait
 * of the library (a node barrier's sleep, an inter-node MPI wait) says
 * where it waits; a thread per process looks every 100 ms, and when one
 * wait has lasted longer than a limit it prints where every thread of the
 * node is (its wait, its last collective with arguments and call site):
 * past the report's limit once per hang, the job going on waiting (unless
 * the node ran a collective's error path on a guess of the other nodes'
 * call, n->guessed: then it ends the job); past the watchdog's, then it
 * aborts the job. The report never calls MPI.
 *
 * Cost when both are off: one load of a process-wide pointer per slow-path
 * wait. When on: three relaxed atomic stores around each slow-path wait
 * (no clock read: the watching thread times a wait from the first look
 * that finds it, so a wait is reported up to 0.1 s short), and a thread
 * that wakes ten times a second. */
#ifndef SIMPLE_RUN_WATCHDOG_H
#define SIMPLE_RUN_WATCHDOG_H

struct simple__node;
struct simple;

/* Makes the calling job thread s known to the watchdog, for its reports of
 * threads that never waited. No-op when the watchdog is off. */
void simple__watch_thread(struct simple *s);

/* Marks the calling thread as waiting in `what` (a string literal) from
 * now on, or as no longer waiting. No-ops outside a job or when the
 * watchdog is off. */
void simple__watch_enter(const char *what);
void simple__watch_leave(void);

/* Starts the watching thread if the watchdog (seconds > 0) or the hang
 * report (n->hang_report_s > 0) is on; returns 0 or an error code.
 * simple__watchdog_stop joins it. */
int simple__watchdog_start(struct simple__node *n, long seconds);
void simple__watchdog_stop(struct simple__node *n);

#endif
