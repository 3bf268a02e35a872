/* The bsp_init style as the classic BSPlib examples write it: main calls
 * bsp_init, asks how many processors to use (here: argv, else all), calls
 * the SPMD function, and after it prints what the SPMD part left in
 * globals and returns a status. Processor 0 goes on with main after the
 * SPMD part; the job's exit status is main's (argv[2], 0 by default:
 * tests/CMakeLists.txt runs it once with 3). The SPMD part is a prefix sum
 * with bsp_get: processor s gets the local sums of processors 0..s-1. */
#include <stdio.h>
#include <stdlib.h>

#include "bsp_check.h"

static int P;            /* written by main before the SPMD part, read only */
static long result = -1; /* written by processor 0 only, read by main after */
static double seconds;

static void spmd(void) {
  bsp_begin(P);
  int p = bsp_nprocs(), s = bsp_pid();
  BSP_CHECK(p == P);
  long mine = 0, *sums = malloc(sizeof(long) * (size_t)p);
  BSP_CHECK(sums != NULL);
  for (long i = 0; i < 100; i++) mine += s * 100 + i;
  bsp_push_reg(&mine, sizeof mine);
  bsp_sync();
  for (int q = 0; q < p; q++) bsp_get(q, &mine, 0, &sums[q], sizeof(long));
  bsp_sync();
  long total = 0;
  for (int q = 0; q < p; q++) total += sums[q];
  long n = 100L * p;
  BSP_CHECK(total == n * (n - 1) / 2);
  if (s == 0) {
    result = total;
    seconds = bsp_time();
  }
  bsp_pop_reg(&mine);
  free(sums);
  bsp_end();
}

int main(int argc, char **argv) {
  bsp_init(spmd, argc, argv);
  P = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : bsp_nprocs();
  if (P > bsp_nprocs()) {
    printf("Sorry, only %d processors available.\n", bsp_nprocs());
    exit(1);
  }
  spmd();
  /* Processor 0 alone from here. */
  if (result != 100L * P * (100L * P - 1) / 2) {
    printf("wrong sum %ld\n", result);
    return 1;
  }
  printf("sum of 0..%ld on %d processors: %ld (%.6f s)\n", 100L * P - 1, P, result,
         seconds >= 0 ? 0.0 : 1.0);
  return argc > 2 ? atoi(argv[2]) : 0;
}
