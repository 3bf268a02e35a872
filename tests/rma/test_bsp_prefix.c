/* The classic BSPlib prefix sums, bsp_begin style: each processor holds a
 * block of values, sums it, gets the block sums of all lower processors
 * (bsp_get, served before the superstep's puts), and adds. A second pass
 * does the same with bsp_hpget after a sync. Checked against the closed
 * form of sum_{j<=i} j. */
#include <stdlib.h>

#include "bsp_check.h"

int main(int argc, char **argv) {
  bsp_begin(bsp_nprocs());
  int p = bsp_nprocs(), s = bsp_pid();
  int nloc = argc > 1 ? atoi(argv[1]) : 101;
  long *x = malloc(sizeof(long) * (size_t)nloc);
  long *lower = calloc((size_t)p, sizeof(long));
  long blocksum = 0;
  for (int i = 0; i < nloc; i++) {
    x[i] = (long)s * nloc + i;
    blocksum += x[i];
  }
  bsp_push_reg(&blocksum, sizeof blocksum);
  bsp_sync();
  for (int pass = 0; pass < 2; pass++) {
    for (int t = 0; t < s; t++) {
      if (pass == 0)
        bsp_get(t, &blocksum, 0, &lower[t], sizeof(long));
      else
        bsp_hpget(t, &blocksum, 0, &lower[t], sizeof(long));
    }
    /* A put into the same variable in the same superstep must not be seen
     * by the gets: they read the value the computation left. */
    if (pass == 0) {
      long junk = -12345;
      bsp_put(s, &junk, &blocksum, 0, sizeof junk);
    }
    bsp_sync();
    if (pass == 0) {
      BSP_CHECK(blocksum == -12345);
      blocksum = 0;
      for (int i = 0; i < nloc; i++) blocksum += x[i];
      bsp_sync();
    }
    long acc = 0;
    for (int t = 0; t < s; t++) acc += lower[t];
    for (int i = 0; i < nloc; i++) {
      acc += x[i];
      long g = (long)s * nloc + i;
      BSP_CHECK(acc == g * (g + 1) / 2);
    }
  }
  bsp_pop_reg(&blocksum);
  bsp_sync();
  free(x);
  free(lower);
  bsp_end();
  return 0;
}
