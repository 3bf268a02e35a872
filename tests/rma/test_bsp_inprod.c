/* The classic BSPlib inner product, bsp_begin style: x and y of length n
 * are distributed cyclically; each processor sums its part, puts its sum
 * into every processor's array, and every processor adds the p sums.
 * Checked against the closed form sum_{i<n} i * (i + 1). */
#include <stdlib.h>

#include "bsp_check.h"

int main(int argc, char **argv) {
  bsp_begin(bsp_nprocs());
  int p = bsp_nprocs(), s = bsp_pid();
  long n = argc > 1 ? atol(argv[1]) : 100003;
  double *sums = calloc((size_t)p, sizeof(double));
  bsp_push_reg(sums, p * (int)sizeof(double));
  bsp_sync();

  double mine = 0;
  for (long i = s; i < n; i += p) mine += (double)i * (double)(i + 1);
  for (int t = 0; t < p; t++) bsp_put(t, &mine, sums, s * (int)sizeof(double), sizeof(double));
  bsp_sync();
  double alpha = 0;
  for (int t = 0; t < p; t++) alpha += sums[t];
  /* sum i^2 + sum i = (n-1) n (2n-1)/6 + (n-1) n/2 = (n-1) n (n+1)/3, exact in a double. */
  double want = (double)(n - 1) * (double)n * (double)(n + 1) / 3.0;
  BSP_CHECK(alpha == want);

  bsp_pop_reg(sums);
  bsp_sync();
  free(sums);
  bsp_end();
  return 0;
}
