/* bsp_begin(P) with P smaller than the job, as BSPlib programs that ask
 * the user for P do: processors 0..P-1 run the SPMD part with
 * bsp_nprocs() == P, the others take no part and wait until it ends.
 * argv[1]: P (default: the job's processors minus one, at least 1). The
 * SPMD part rotates a block of each processor's data around the ring of P
 * with bsp_put, reads its neighbour's with bsp_get, sends every processor
 * one message (BSMP), and registers and pops areas, all checked in closed
 * form; then processor 0 prints after bsp_end. */
#include <stdio.h>
#include <stdlib.h>

#include "bsp_check.h"

int main(int argc, char **argv) {
  int all = bsp_nprocs();
  int want = argc > 1 ? atoi(argv[1]) : all - 1;
  if (want < 1) want = 1;
  bsp_begin(want);
  int p = bsp_nprocs(), s = bsp_pid();
  BSP_CHECK(p == want);
  BSP_CHECK(s >= 0 && s < p);
  enum { N = 16 };
  int a[N], b[N], got[N];
  for (int i = 0; i < N; i++) a[i] = s * 100 + i;
  bsp_push_reg(a, sizeof a);
  bsp_push_reg(b, sizeof b);
  int tag = sizeof(int);
  bsp_set_tagsize(&tag);
  bsp_sync();
  int next = (s + 1) % p, prev = (s + p - 1) % p;
  bsp_put(next, a, b, 0, sizeof a);
  bsp_get(prev, a, 0, got, sizeof got);
  for (int q = 0; q < p; q++) {
    int t = s, v = s * 7 + q;
    bsp_send(q, &t, &v, sizeof v);
  }
  bsp_sync();
  for (int i = 0; i < N; i++) {
    BSP_CHECK(b[i] == prev * 100 + i);
    BSP_CHECK(got[i] == prev * 100 + i);
  }
  int nmsg = -1, nbytes = -1;
  bsp_qsize(&nmsg, &nbytes);
  BSP_CHECK(nmsg == p && nbytes == p * (int)sizeof(int));
  long seen = 0;
  for (int m = 0; m < nmsg; m++) {
    int st = -2, t = -1, v = -1;
    bsp_get_tag(&st, &t);
    BSP_CHECK(st == (int)sizeof(int) && t >= 0 && t < p);
    bsp_move(&v, sizeof v);
    BSP_CHECK(v == t * 7 + s);
    seen += 1L << t;
  }
  BSP_CHECK(seen == (1L << p) - 1);
  bsp_pop_reg(b);
  bsp_sync();
  /* b is gone, a is still there. */
  int one = 1;
  bsp_put(next, &one, a, 0, sizeof one);
  bsp_sync();
  BSP_CHECK(a[0] == 1);
  bsp_end();
  printf("bsp_begin(%d) in a job of %d processors: done\n", p, all);
  return 0;
}
