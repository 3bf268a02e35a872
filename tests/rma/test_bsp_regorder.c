/* Registration calls of one superstep take effect at the sync in call
 * order, BSPlib style:
 *   - push then pop of the same area: the pair is legal and leaves the
 *     registrations as they were (an earlier registration of the address
 *     stays in force);
 *   - pop then push: the old registration goes, the new one is in force;
 *   - two pushes then a pop: the later push is undone, the earlier stays.
 * Each case is checked by transfers that only the expected registration
 * allows (its size on the target), values in closed form.
 * tests/rma/bsp_fail.c checks that a pushed-and-popped area is not
 * registered and that the popped size is refused. */
#include <stdio.h>

#include "bsp_check.h"

int main(void) {
  bsp_begin(bsp_nprocs());
  int p = bsp_nprocs(), s = bsp_pid(), next = (s + 1) % p, prev = (s + p - 1) % p;
  int x[8] = {0}, y[8] = {0}, z[2] = {0};
  bsp_push_reg(x, 4 * sizeof(int)); /* 16 bytes */
  bsp_sync();

  /* Push then pop of x: the 16-byte registration stays. */
  bsp_push_reg(x, 2 * sizeof(int));
  bsp_pop_reg(x);
  /* Push then pop of z, never registered before: nothing changes. */
  bsp_push_reg(z, sizeof z);
  bsp_pop_reg(z);
  bsp_sync();
  int v = 1000 + s;
  bsp_put(next, &v, x, 3 * sizeof(int), sizeof v); /* needs 16 bytes */
  bsp_sync();
  BSP_CHECK(x[3] == 1000 + prev);

  /* Pop then push of x: the new 32-byte registration is in force. */
  bsp_pop_reg(x);
  bsp_push_reg(x, 8 * sizeof(int));
  bsp_sync();
  v = 2000 + s;
  bsp_put(next, &v, x, 7 * sizeof(int), sizeof v); /* needs 32 bytes */
  bsp_sync();
  BSP_CHECK(x[7] == 2000 + prev);

  /* Two pushes of y and one pop: the first push (8 bytes) stays. */
  bsp_push_reg(y, 2 * sizeof(int));
  bsp_push_reg(y, 8 * sizeof(int));
  bsp_pop_reg(y);
  bsp_sync();
  int w[2] = {3000 + s, 4000 + s};
  bsp_put(next, w, y, 0, sizeof w);
  int back = -1;
  bsp_get(prev, y, sizeof(int), &back, sizeof back);
  bsp_sync();
  BSP_CHECK(y[0] == 3000 + prev && y[1] == 4000 + prev);
  /* The get read y as the computation left it, before the superstep's
   * puts: 0 on the first run. */
  BSP_CHECK(back == 0);

  /* Push, pop, push of the same address in one superstep: one push
   * remains, the last (it was pushed after the pop). */
  bsp_pop_reg(y);
  bsp_push_reg(z, sizeof(int));
  bsp_pop_reg(z);
  bsp_push_reg(z, sizeof z);
  bsp_sync();
  bsp_put(next, &v, z, sizeof(int), sizeof v); /* needs 8 bytes */
  bsp_sync();
  BSP_CHECK(z[1] == 2000 + prev);
  bsp_pop_reg(z);
  bsp_pop_reg(x);
  bsp_sync();
  if (s == 0) printf("registration order: %d processors agree\n", p);
  bsp_end();
  return 0;
}
