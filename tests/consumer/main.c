/* Built against the installed tree: sums thread ranks over the node and
 * checks the closed form r (r - 1) / 2. */
#include <simple.h>
#include <stdio.h>

static int failed;

static void body(simple_t *s, void *arg) {
  (void)arg;
  long me = simple_thread(s), sum = 0;
  long r = simple_threads(s);
  if (simple_node_allreduce(s, &me, &sum, 1, SIMPLE_INT64, SIMPLE_SUM) != 0 ||
      sum != r * (r - 1) / 2)
    failed = 1;
}

int main(int argc, char **argv) {
  if (SIMPLE_VERSION != simple_version()) return 1;
  int rc = simple_run(&argc, &argv, body, NULL);
  if (rc == 0 && !failed) printf("consumer: ok (simple %s)\n", simple_version_string());
  return rc || failed;
}
