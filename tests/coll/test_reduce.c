/* simple_reduce: every type, op and count, roots 0, last and middle, in
 * place at the root and not; only the root's buffer is written. */
#include "reduce_check.h"

static void test(simple_t *s, void *arg) {
  (void)arg;
  reduce_all(s, 1);
  /* Vectors of several segments of the reduce tree among nodes (128 KiB,
   * 4 in flight): 100003 elements are 7 segments of doubles, 4 of int32. */
  int p = simple_nprocs(s), roots[3] = {0, p - 1, p / 2};
  for (int r = 0; r < 3; r++) {
    reduce_one(s, SIMPLE_DOUBLE, SIMPLE_SUM, 100003, r == 1, roots[r]);
    reduce_one(s, SIMPLE_INT32, SIMPLE_MAX, 100003, 0, roots[r]);
  }
  char buf[8];
  CHECK_RC(simple_reduce(s, buf, buf, 1, SIMPLE_INT8, SIMPLE_SUM, simple_nprocs(s)),
           SIMPLE_ERR_RANK);
  CHECK_RC(simple_reduce(s, buf, buf, 1, SIMPLE_INT8, SIMPLE_SUM, -1), SIMPLE_ERR_RANK);
}

TEST_MAIN(test)
