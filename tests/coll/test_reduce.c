/* simple_reduce: every type, op and count, roots 0, last and middle, in
 * place at the root and not; only the root's buffer is written. */
#include "reduce_check.h"

static void test(simple_t *s, void *arg) {
  (void)arg;
  reduce_all(s, 1);
  char buf[8];
  CHECK_RC(simple_reduce(s, buf, buf, 1, SIMPLE_INT8, SIMPLE_SUM, simple_nprocs(s)),
           SIMPLE_ERR_RANK);
  CHECK_RC(simple_reduce(s, buf, buf, 1, SIMPLE_INT8, SIMPLE_SUM, -1), SIMPLE_ERR_RANK);
}

TEST_MAIN(test)
