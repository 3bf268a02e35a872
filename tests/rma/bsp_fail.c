/* BSPlib error cases, each of which must end the job through bsp_abort
 * with a message naming the call, the processors and the area. Not a
 * test_*.c: registered with tests/tools/expect_failure.sh, one CTest test
 * per case (argv[1]), each with the pattern its message must match. */
#include <stdio.h>
#include <string.h>

#include "bsp_check.h"

int main(int argc, char **argv) {
  bsp_begin(bsp_nprocs());
  const char *c = argc > 1 ? argv[1] : "put-range";
  int p = bsp_nprocs(), s = bsp_pid(), last = p - 1;
  int x[4] = {0}, y = 0, v = 1;
  bsp_push_reg(x, sizeof x);
  bsp_sync();
  if (strcmp(c, "put-range") == 0) {
    if (s == last) bsp_put(0, &v, x, 12, 8);
  } else if (strcmp(c, "get-range") == 0) {
    if (s == last) bsp_get(0, x, 16, &v, 1);
  } else if (strcmp(c, "unregistered") == 0) {
    if (s == last) bsp_put(0, &v, &y, 0, sizeof v);
  } else if (strcmp(c, "pid") == 0) {
    if (s == last) bsp_put(p, &v, x, 0, sizeof v);
  } else if (strcmp(c, "pop") == 0) {
    bsp_pop_reg(&y);
  } else if (strcmp(c, "push-mismatch") == 0) {
    if (s == 0) bsp_push_reg(&y, sizeof y);
  } else if (strcmp(c, "negative") == 0) {
    if (s == last) bsp_put(0, &v, x, -4, 4);
  } else if (strcmp(c, "move") == 0) {
    bsp_move(&v, sizeof v);
  } else if (strcmp(c, "abort") == 0) {
    if (s == last) bsp_abort("deliberate abort from %d", s);
  }
  bsp_sync();
  printf("case %s did not fail\n", c);
  bsp_end();
  return 0;
}
