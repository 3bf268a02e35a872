/* A job for the teardown tests (test_teardown.sh): every node starts, node
 * 0 prints "ready" once all nodes have passed a barrier (so every process
 * has initialized MPI and made its shared-memory segments), then:
 *   ok      every thread returns: a normal ending;
 *   abort   the last node's first thread calls simple_abort;
 *   crash   the last node's first thread dereferences an invalid pointer;
 *   wait    every thread waits in pause() until the job is ended from
 *           outside (a signal, a kill, a timeout). */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <simple.h>

static const char *mode = "ok";

static void body(simple_t *s, void *arg) {
  (void)arg;
  if (simple_barrier(s) != SIMPLE_SUCCESS) simple_abort(s, "the first barrier failed");
  if (simple_node(s) == 0 && simple_thread(s) == 0) {
    printf("ready\n");
    fflush(stdout);
  }
  int victim = simple_node(s) == simple_nodes(s) - 1 && simple_thread(s) == 0;
  if (strcmp(mode, "ok") == 0) return;
  if (victim && strcmp(mode, "abort") == 0) simple_abort(s, "deliberate abort");
  if (victim && strcmp(mode, "crash") == 0) {
    volatile int *volatile nowhere = (volatile int *)(size_t)8;
    *nowhere = 1;
  }
  for (;;) pause();
}

int main(int argc, char **argv) {
  if (argc > 1) mode = argv[1];
  return simple_run(&argc, &argv, body, NULL);
}
