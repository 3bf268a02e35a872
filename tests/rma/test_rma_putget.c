/* Buffered put and get between every pair of processors, on both backends:
 * puts read their source at the call, gets see the values as the
 * superstep's computation left them (before the superstep's puts), and
 * several puts to one place are applied in source rank order. */
#include "harness.h"

#define N 64

static long val(int src, int dst, int i, int round) {
  return 1000000L * round + 1000L * src + 10 * dst + i % 7;
}

static void run(simple_t *s, int backend) {
  int p = simple_nprocs(s), me = simple_pid(s);
  CHECK_OK(simple_rma_set_backend(s, backend));
  CHECK_EQ(simple_rma_backend(s), backend);
  /* One slot per source processor: area[src * N + i]. */
  long *area = calloc((size_t)p * N, sizeof(long));
  long *got = calloc((size_t)p * N, sizeof(long));
  long last = -1, *src = malloc(N * sizeof(long));
  CHECK_OK(simple_rma_push_reg(s, area, (size_t)p * N * sizeof(long)));
  CHECK_OK(simple_rma_push_reg(s, &last, sizeof last));
  CHECK_OK(simple_rma_sync(s));
  for (int round = 1; round <= 3; round++) {
    for (int d = 0; d < p; d++) {
      for (int i = 0; i < N; i++) src[i] = val(me, d, i, round);
      CHECK_OK(simple_rma_put(s, d, src, area, (size_t)me * N * sizeof(long), N * sizeof(long)));
      /* The source is read at the call: clobbering it changes nothing. */
      memset(src, 0xff, N * sizeof(long));
      /* Everyone puts into `last` of d: the highest rank's value wins. */
      long mine = 1000L * round + me;
      CHECK_OK(simple_rma_put(s, d, &mine, &last, 0, sizeof mine));
      /* Get what d holds now (the previous round's values). */
      CHECK_OK(simple_rma_get(s, d, area, (size_t)me * N * sizeof(long), got + (size_t)d * N,
                              N * sizeof(long)));
    }
    /* Until the sync, nothing has arrived. */
    if (round > 1) CHECK_EQ(area[0], val(0, me, 0, round - 1));
    CHECK_OK(simple_rma_sync(s));
    for (int q = 0; q < p; q++)
      for (int i = 0; i < N; i++) {
        CHECK_EQ(area[(size_t)q * N + i], val(q, me, i, round));
        long want = round == 1 ? 0 : val(me, q, i, round - 1);
        CHECK_EQ(got[(size_t)q * N + i], want);
      }
    CHECK_EQ(last, 1000L * round + (p - 1));
  }
  CHECK_OK(simple_rma_pop_reg(s, &last));
  CHECK_OK(simple_rma_pop_reg(s, area));
  CHECK_OK(simple_rma_sync(s));
  free(area);
  free(got);
  free(src);
}

static void spmd(simple_t *s, void *arg) {
  (void)arg;
  run(s, SIMPLE_RMA_TWOSIDED);
  run(s, SIMPLE_RMA_ONESIDED);
  run(s, SIMPLE_RMA_TWOSIDED);
}

TEST_MAIN(spmd)
