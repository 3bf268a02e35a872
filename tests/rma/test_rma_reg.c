/* Registration: effective from the next sync, several live at once, an
 * address registered twice uses the latest, pops take effect at the sync
 * (and uncover the earlier registration of the same address), NULL with
 * size 0, and collective calls that disagree make sync fail everywhere
 * with nothing changed. Both backends. */
#include "harness.h"

static void run(simple_t *s, int backend) {
  int p = simple_nprocs(s), me = simple_pid(s), right = (me + 1) % p;
  CHECK_OK(simple_rma_set_backend(s, backend));
  int a[8] = {0}, b[8] = {0}, v = 100 + me;

  /* Not yet effective: refused, nothing queued. */
  CHECK_OK(simple_rma_push_reg(s, a, sizeof a));
  CHECK_RC(simple_rma_put(s, right, &v, a, 0, sizeof v), SIMPLE_ERR_ARG);
  CHECK(strstr(simple_rma_error(s), "not registered") != NULL);
  CHECK_OK(simple_rma_sync(s));
  CHECK_EQ(a[0], 0);

  /* Two live at once; b registered twice, the second time smaller. */
  CHECK_OK(simple_rma_push_reg(s, b, sizeof b));
  CHECK_OK(simple_rma_push_reg(s, b, 2 * sizeof(int)));
  CHECK_OK(simple_rma_push_reg(s, NULL, 0));
  CHECK_OK(simple_rma_sync(s));
  CHECK_OK(simple_rma_put(s, right, &v, a, 7 * sizeof(int), sizeof v));
  CHECK_OK(simple_rma_put(s, right, &v, b, 1 * sizeof(int), sizeof v));
  CHECK_RC(simple_rma_put(s, right, &v, b, 2 * sizeof(int), sizeof v), SIMPLE_ERR_ARG);
  CHECK(strstr(simple_rma_error(s), "outside") != NULL);
  CHECK_OK(simple_rma_put(s, right, NULL, NULL, 0, 0)); /* zero bytes of a zero-size area */
  CHECK_RC(simple_rma_put(s, right, &v, NULL, 0, 1), SIMPLE_ERR_ARG);
  CHECK_OK(simple_rma_sync(s));
  int left = (me + p - 1) % p;
  CHECK_EQ(a[7], 100 + left);
  CHECK_EQ(b[1], 100 + left);

  /* Pop the latest b: still usable in this superstep, the full-size one
   * is uncovered at the sync. */
  CHECK_OK(simple_rma_pop_reg(s, b));
  CHECK_OK(simple_rma_pop_reg(s, NULL));
  CHECK_RC(simple_rma_put(s, right, &v, b, 4 * sizeof(int), sizeof v), SIMPLE_ERR_ARG);
  CHECK_OK(simple_rma_put(s, right, &v, b, 0, sizeof v));
  CHECK_OK(simple_rma_sync(s));
  CHECK_EQ(b[0], 100 + left);
  CHECK_OK(simple_rma_put(s, right, &v, b, 6 * sizeof(int), sizeof v));
  CHECK_OK(simple_rma_sync(s));
  CHECK_EQ(b[6], 100 + left);

  /* Popping what is not registered. */
  int c;
  CHECK_RC(simple_rma_pop_reg(s, &c), SIMPLE_ERR_ARG);

  /* Disagreement: processor 0 pushes one more; every sync fails and no
   * registration changes anywhere. */
  if (me == 0) CHECK_OK(simple_rma_push_reg(s, &c, sizeof c));
  CHECK_OK(simple_rma_push_reg(s, &v, sizeof v));
  if (p > 1) {
    CHECK_RC(simple_rma_sync(s), SIMPLE_ERR_ARG);
    CHECK(strstr(simple_rma_error(s), "push_reg") != NULL);
    CHECK_RC(simple_rma_put(s, right, &v, &v, 0, sizeof v), SIMPLE_ERR_ARG);
    /* Disagreeing pops: only processor 0 pops b. */
    if (me == 0) CHECK_OK(simple_rma_pop_reg(s, b));
    CHECK_RC(simple_rma_sync(s), SIMPLE_ERR_ARG);
    CHECK_OK(simple_rma_put(s, right, &v, b, 0, sizeof v)); /* b is still registered */
  } else {
    CHECK_OK(simple_rma_sync(s));
    CHECK_OK(simple_rma_pop_reg(s, &c));
    CHECK_OK(simple_rma_pop_reg(s, &v));
  }
  CHECK_OK(simple_rma_sync(s));

  /* Pops in the same order everywhere, then nothing is left. */
  CHECK_OK(simple_rma_pop_reg(s, b));
  CHECK_OK(simple_rma_pop_reg(s, a));
  CHECK_OK(simple_rma_sync(s));
  CHECK_RC(simple_rma_put(s, right, &v, a, 0, sizeof v), SIMPLE_ERR_ARG);
  CHECK_RC(simple_rma_put(s, right, &v, b, 0, sizeof v), SIMPLE_ERR_ARG);
  CHECK_OK(simple_rma_sync(s));
}

static void spmd(simple_t *s, void *arg) {
  (void)arg;
  run(s, SIMPLE_RMA_TWOSIDED);
  run(s, SIMPLE_RMA_ONESIDED);
}

TEST_MAIN(spmd)
