/* BSPlib error cases, each of which must end the job through bsp_abort
 * with a message naming the call, the processors and the area. Not a
 * test_*.c: registered with tests/tools/expect_failure.sh, one CTest test
 * per case (argv[1]), each with the pattern its message must match. */
#include <stdio.h>
#include <string.h>

#include "bsp_check.h"

int main(int argc, char **argv) {
  const char *c = argc > 1 ? argv[1] : "put-range";
  int all = bsp_nprocs();
  if (strcmp(c, "null-init") == 0) bsp_init(NULL, argc, argv);
  if (strcmp(c, "begin-many") == 0)
    bsp_begin(all + 1);
  else if (strcmp(c, "subset-pid") == 0)
    bsp_begin(all > 1 ? all - 1 : 1);
  else
    bsp_begin(all);
  int p = bsp_nprocs(), s = bsp_pid(), last = p - 1;
  int x[4] = {0}, y = 0, v = 1, *null = NULL;
  void *vnull = NULL;
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
  } else if (strcmp(c, "push-pop") == 0) {
    /* Pushed and popped in one superstep: not registered afterwards. */
    bsp_push_reg(&y, sizeof y);
    bsp_pop_reg(&y);
    bsp_sync();
    if (s == last) bsp_put(0, &v, &y, 0, sizeof v);
  } else if (strcmp(c, "pop-push") == 0) {
    /* Popped then pushed smaller in one superstep: the new size holds. */
    bsp_pop_reg(x);
    bsp_push_reg(x, 8);
    bsp_sync();
    if (s == last) bsp_put(0, &v, x, 12, sizeof v);
  } else if (strcmp(c, "subset-pid") == 0) {
    /* Processor all-1 takes no part in bsp_begin(all-1). */
    if (s == 0) bsp_put(all - 1, &v, x, 0, sizeof v);
  } else if (strcmp(c, "null-qsize") == 0) {
    int n;
    bsp_qsize(&n, null);
  } else if (strcmp(c, "null-get-tag") == 0) {
    bsp_get_tag(null, &y);
  } else if (strcmp(c, "null-hpmove") == 0) {
    bsp_hpmove(vnull, &vnull);
  } else if (strcmp(c, "null-move") == 0) {
    bsp_send(s, NULL, &v, sizeof v);
    bsp_sync();
    bsp_move(vnull, sizeof v);
  } else if (strcmp(c, "null-put") == 0) {
    bsp_put(0, vnull, x, 0, sizeof v);
  } else if (strcmp(c, "null-hpput") == 0) {
    bsp_hpput(0, vnull, x, 0, sizeof v);
  } else if (strcmp(c, "null-get") == 0) {
    bsp_get(0, x, 0, vnull, sizeof v);
  } else if (strcmp(c, "null-hpget") == 0) {
    bsp_hpget(0, x, 0, vnull, sizeof v);
  } else if (strcmp(c, "null-push") == 0) {
    bsp_push_reg(vnull, 4);
  } else if (strcmp(c, "null-send") == 0) {
    bsp_send(0, NULL, vnull, 4);
  } else if (strcmp(c, "null-tagsize") == 0) {
    bsp_set_tagsize(null);
  } else if (strcmp(c, "null-abort") == 0) {
    const char *fmt = vnull;
    bsp_abort(fmt);
  }
  bsp_sync();
  printf("case %s did not fail\n", c);
  bsp_end();
  return 0;
}
