/* The classic BSPlib reversal, bsp_init style: a global array of
 * p * nloc integers in blocks is reversed in one superstep of puts, each
 * element straight to its new owner. Also checks that bsp_nprocs() before
 * the job matches bsp_nprocs() inside it. */
#include <stdlib.h>

#include "bsp_check.h"

static int nprocs_before = -1; /* written before the job starts, then read only */
static int nloc = 37;

static void spmd(void) {
  bsp_begin(nprocs_before);
  int p = bsp_nprocs(), s = bsp_pid();
  BSP_CHECK(p == nprocs_before);
  long total = (long)p * nloc;
  int *x = malloc(sizeof(int) * (size_t)nloc);
  for (int i = 0; i < nloc; i++) x[i] = s * nloc + i;
  bsp_push_reg(x, nloc * (int)sizeof(int));
  bsp_sync();
  for (int i = 0; i < nloc; i++) {
    long g = (long)s * nloc + i, r = total - 1 - g;
    /* x[i] is overwritten by another processor's put at the sync only:
     * the put reads its source now. */
    bsp_put((int)(r / nloc), &x[i], x, (int)(r % nloc) * (int)sizeof(int), sizeof(int));
  }
  bsp_sync();
  for (int i = 0; i < nloc; i++) BSP_CHECK(x[i] == (int)(total - 1 - ((long)s * nloc + i)));
  bsp_pop_reg(x);
  /* Processors other than 0 leave at bsp_end (BSPlib: only processor 0
   * goes on after it), so what they own is freed before. */
  free(x);
  bsp_end();
}

int main(int argc, char **argv) {
  bsp_init(spmd, argc, argv);
  nprocs_before = bsp_nprocs();
  if (argc > 1) nloc = atoi(argv[1]);
  spmd();
  return 0;
}
