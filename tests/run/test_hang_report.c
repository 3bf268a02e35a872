/* The hang report: the last thread of the last node does not come to a
 * barrier until the file named by argv[1] exists, which the driver
 * (tests/tools/test_hang_report.sh) creates once it has seen the report.
 * The job must then finish normally: the report only prints. */
#include <sched.h>
#include <unistd.h>

#include "harness.h"

static const char *go;

static void test(simple_t *s, void *arg) {
  (void)arg;
  int32_t x = 1, y = 0;
  CHECK_OK(simple_allreduce(s, &x, &y, 1, SIMPLE_INT32, SIMPLE_SUM));
  CHECK_EQ(y, simple_nprocs(s));
  if (simple_pid(s) == simple_nprocs(s) - 1)
    while (access(go, F_OK) != 0) sched_yield();
  CHECK_OK(simple_barrier(s));
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_hang_report GO_FILE\n");
    return 2;
  }
  go = argv[1];
  return simple_run(&argc, &argv, test, NULL);
}
