/* Failures that must end the whole job, never hang it (run by
 * expect_failure.sh, which checks the exit status and the message):
 *   crash    the last thread of the last node dereferences an invalid
 *            pointer while every other thread waits in a collective;
 *   depart   that thread returns from its SPMD function while the others
 *            wait in a collective;
 *   kill     that node's process is killed from outside (SIGKILL) while
 *            the others wait;
 *   stuck    that thread never comes (it sleeps), with SIMPLE_WATCHDOG set:
 *            the watchdog reports where every thread is and aborts;
 *   leave    every thread of the last node returns, with SIMPLE_WATCHDOG
 *            set: the other nodes wait in MPI for a node that is gone, and
 *            their watchdogs end the job.
 * The victim is on a node with at least two threads where the layout has
 * one, so that its own node has threads waiting for it too. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static const char *mode = "crash";

static void test(simple_t *s, void *arg) {
  (void)arg;
  int last = simple_nodes(s) - 1;
  int victim = simple_node(s) == last && simple_thread(s) == simple_threads(s) - 1;
  CHECK_OK(simple_barrier(s));
  if (strcmp(mode, "leave") == 0 && simple_node(s) == last && simple_nodes(s) > 1) return;
  if (victim && strcmp(mode, "stuck") == 0)
    for (;;) pause();
  if (victim) {
    if (strcmp(mode, "crash") == 0) {
      volatile int *nowhere = (volatile int *)(size_t)8;
      *nowhere = 1;
    } else if (strcmp(mode, "kill") == 0) {
      kill(getpid(), SIGKILL);
    }
    return; /* depart */
  }
  /* Waits for the victim forever, unless the job ends. */
  if (simple_barrier(s) == SIMPLE_ERR_FATAL) {
    /* The job is ending: until its process is taken down, every call says
     * so at once, and none reads what the victim never wrote (a small and a
     * large reduction, whose leader combines every thread's input). */
    static double x[4096], y[4096];
    for (int i = 0; i < 20; i++) {
      int rc[4] = {simple_barrier(s), simple_allreduce(s, x, y, 1, SIMPLE_DOUBLE, SIMPLE_SUM),
                   simple_allreduce(s, x, y, 4096, SIMPLE_DOUBLE, SIMPLE_SUM),
                   simple_node_allreduce(s, x, y, 1, SIMPLE_DOUBLE, SIMPLE_SUM)};
      for (int k = 0; k < 4; k++)
        if (rc[k] != SIMPLE_ERR_FATAL)
          simple_abort(s, "call %d returned %s after the job failed", k, simple_errname(rc[k]));
    }
    for (;;) pause();
  }
  simple_abort(s, "the barrier returned although a thread never came");
}

int main(int argc, char **argv) {
  if (argc > 1) mode = argv[1];
  return simple_run(&argc, &argv, test, NULL);
}
