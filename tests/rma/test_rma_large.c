/* Growing traffic on both backends: each superstep every processor puts a
 * block of growing size (up to 1 MiB) to its right neighbour and gets one
 * from its left, plus many small puts (one element each), so the staging
 * of every node pair grows several times. Checked element by element. */
#include <stdint.h>

#include "harness.h"

#define MAXN (128 * 1024) /* uint64 elements: 1 MiB */

static uint64_t v(int pid, size_t i, int step) {
  return ((uint64_t)pid << 40) ^ (i * 2654435761u) ^ (uint64_t)step;
}

static void run(simple_t *s, int backend) {
  int p = simple_nprocs(s), me = simple_pid(s), right = (me + 1) % p, left = (me + p - 1) % p;
  CHECK_OK(simple_rma_set_backend(s, backend));
  uint64_t *a = calloc(MAXN, 8), *src = malloc(MAXN * 8), *got = malloc(MAXN * 8);
  uint64_t *pub = malloc(MAXN * 8), *small = calloc((size_t)p * 64, 8);
  CHECK_OK(simple_rma_push_reg(s, a, MAXN * 8));
  CHECK_OK(simple_rma_push_reg(s, pub, MAXN * 8));
  CHECK_OK(simple_rma_push_reg(s, small, (size_t)p * 64 * 8));
  CHECK_OK(simple_rma_sync(s));
  int step = 0;
  for (size_t n = 1; n <= MAXN; n *= 4, step++) {
    for (size_t i = 0; i < n; i++) {
      src[i] = v(me, i, step);
      pub[i] = v(me, i, step + 100);
    }
    CHECK_OK(simple_rma_put(s, right, src, a, 0, n * 8));
    CHECK_OK(simple_rma_get(s, left, pub, 0, got, n * 8));
    for (int d = 0; d < p; d++)
      for (int i = 0; i < 64; i++) {
        uint64_t x = v(me, (size_t)i, step + 7);
        CHECK_OK(simple_rma_put(s, d, &x, small, ((size_t)me * 64 + (size_t)i) * 8, 8));
      }
    CHECK_OK(simple_rma_sync(s));
    for (size_t i = 0; i < n; i++) {
      if (a[i] != v(left, i, step)) CHECK_EQ(a[i], v(left, i, step));
      if (got[i] != v(left, i, step + 100)) CHECK_EQ(got[i], v(left, i, step + 100));
    }
    for (int q = 0; q < p; q++)
      for (int i = 0; i < 64; i++)
        CHECK_EQ(small[(size_t)q * 64 + (size_t)i], v(q, (size_t)i, step + 7));
  }
  CHECK_OK(simple_rma_pop_reg(s, a));
  CHECK_OK(simple_rma_pop_reg(s, pub));
  CHECK_OK(simple_rma_pop_reg(s, small));
  CHECK_OK(simple_rma_sync(s));
  free(a);
  free(src);
  free(got);
  free(pub);
  free(small);
}

static void spmd(simple_t *s, void *arg) {
  (void)arg;
  run(s, SIMPLE_RMA_ONESIDED);
  run(s, SIMPLE_RMA_TWOSIDED);
}

TEST_MAIN(spmd)
