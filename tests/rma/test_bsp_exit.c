/* A BSPlib program as the classic examples end: bsp_begin first in main,
 * the SPMD part (an inner product of a cyclically distributed vector, its
 * partial sums all-gathered with bsp_put), bsp_end, then processor 0
 * prints the result and calls exit(). The exit status is the job's: 0 by
 * default, argv[1] if given (tests/CMakeLists.txt runs it once with 3 and
 * checks that the job ends with status 3 and no complaint from MPI).
 * argv[2] "return" ends main with return instead of exit(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bsp_check.h"

static long inprod(int p, int s, long n) {
  long *part = malloc(sizeof(long) * (size_t)p);
  BSP_CHECK(part != NULL);
  bsp_push_reg(part, p * (int)sizeof(long));
  bsp_sync();
  long mine = 0;
  for (long i = s; i < n; i += p) mine += i * i; /* x[i] = y[i] = i */
  for (int q = 0; q < p; q++) bsp_put(q, &mine, part, s * (int)sizeof(long), sizeof(long));
  bsp_sync();
  long sum = 0;
  for (int q = 0; q < p; q++) sum += part[q];
  bsp_pop_reg(part);
  bsp_sync();
  free(part);
  return sum;
}

int main(int argc, char **argv) {
  bsp_begin(bsp_nprocs());
  int p = bsp_nprocs(), s = bsp_pid();
  long n = 1000;
  long sum = inprod(p, s, n);
  BSP_CHECK(sum == (n - 1) * n * (2 * n - 1) / 6);
  bsp_end();
  /* Sequential C from here: processor 0 alone. */
  printf("inner product of %ld: %ld on %d processors\n", n, sum, p);
  int status = argc > 1 ? atoi(argv[1]) : 0;
  if (argc > 2 && strcmp(argv[2], "return") == 0) return status;
  exit(status);
}
