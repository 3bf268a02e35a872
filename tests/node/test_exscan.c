/* simple_node_exscan: every type, op and count, in place and not. */
#include "combine_check.h"

static void test(simple_t *s, void *arg) {
  (void)arg;
  check_all(s, K_EXSCAN);
}

TEST_MAIN(test)
