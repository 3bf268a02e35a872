/* A BSPlib program written for processes: its SPMD part writes globals
 * (as BSPedupack's LU writes M, N and matrix_size). Not a test_*.c: built
 * by tests/rma/simple_cc_globals.sh, which checks that simple-cc's link
 * warning names exactly its writable globals and statics. */
#include <stdio.h>

#include "bsp_check.h"

int M, N = 3;             /* written in the SPMD part: listed */
static int counter;       /* listed */
static const int ro = 5;  /* read-only: not listed */
_Thread_local int tl_sum; /* one per thread: not listed */
const char *name = "lu";  /* a writable pointer: listed */

int main(void) {
  static int calls; /* listed, as a static of a function */
  bsp_begin(bsp_nprocs());
  tl_sum += bsp_pid();
  if (bsp_pid() == 0) {
    M = N = bsp_nprocs();
    counter++;
    calls++;
  }
  bsp_end();
  printf("%s %d %d %d %d\n", name, M, counter, calls, ro);
  return 0;
}
