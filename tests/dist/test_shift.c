/* simple_shift: circular shifts of 1D arrays and of the rows of 2D
 * arrays by k = 0, 1, -1, a few more, more than the length and negative
 * beyond it, between the same and different distributions. Checked
 * against the serial reference. */
#include "redist_check.h"

static void test(simple_t *s, void *arg) {
  (void)arg;
  int p = simple_nprocs(s), salt = 0;
  long n = 3 * p + 2;
  long ks[] = {0, 1, -1, 5, n, n + 3, -2 * n - 1, 2 * p};
  for (size_t k = 0; k < sizeof ks / sizeof *ks; k++)
    for (size_t a = 0; a < 3; a++) {
      redist_case(s, OP_SHIFT, redist_dist(n, 1, a), redist_dist(n, 1, a), 8, ks[k], ++salt);
      redist_case(s, OP_SHIFT, redist_dist(n, 1, a), redist_dist(n, 1, (a + 1) % 3), 4, ks[k],
                  ++salt);
    }
  /* Rows of a matrix, to rows and to columns. */
  for (size_t a = 0; a < REDIST_NKINDS; a++)
    redist_case(s, OP_SHIFT, redist_dist(13, 6, a), redist_dist(13, 6, (a + 2) % REDIST_NKINDS), 8,
                4, ++salt);
  /* Over the nodes. */
  long m = 5L * simple_nodes(s) + 3;
  redist_case_ex(s, OP_SHIFT, redist_dist(m, 1, 0), redist_dist(m, 1, 1), 8, 7, ++salt, 1);
  redist_case_ex(s, OP_SHIFT, redist_dist(m, 4, 2), redist_dist(m, 4, 3), 8, -3, ++salt, 1);
  redist_case(s, OP_SHIFT, redist_dist(0, 1, 0), redist_dist(0, 1, 0), 8, 3, ++salt);
  redist_case(s, OP_SHIFT, redist_dist(1, 1, 0), redist_dist(1, 1, 1), 8, -7, ++salt);
  CHECK_OK(simple_barrier(s));
}

TEST_MAIN(test)
