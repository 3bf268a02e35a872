/* simple_abort from one thread ends the whole job, every node, with a
 * message naming node and thread, while the other threads wait in a
 * barrier that will never complete. Run by expect_failure.sh, which checks
 * the exit status and the message. */
#include <unistd.h>

#include "harness.h"

static void test(simple_t *s, void *arg) {
  (void)arg;
  int last = simple_nodes(s) - 1;
  if (simple_node(s) == last && simple_thread(s) == simple_threads(s) - 1)
    simple_abort(s, "deliberate abort for the test");
  if (simple_node(s) == last) {
    /* Waits for a thread that never comes: the barrier may only end with
     * the job (SIMPLE_ERR_FATAL, the abort under way), then we wait too. */
    if (simple_node_barrier(s) == SIMPLE_ERR_FATAL)
      for (;;) pause();
    simple_abort(s, "the node barrier returned while a thread was missing");
  }
  /* Other nodes wait, blocked, until the abort takes them down too. */
  for (;;) pause();
}

TEST_MAIN(test)
