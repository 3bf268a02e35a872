/* simple_rma_set_procs: only processors 0..P-1 take part from the next
 * sync on; the others only sync. Checks: the count takes effect at the
 * sync; a processor that sits out is refused as a target and may make no
 * call but sync; transfers, registrations and messages among those taking
 * part work (whole nodes may sit out); shrinking keeps registrations,
 * growing ends them all; bad counts and disagreeing counts are refused.
 * Pushes and pops of one address in one superstep cancel out. Both
 * backends. */
#include "harness.h"

static void run(simple_t *s, int backend) {
  int all = simple_nprocs(s), me = simple_pid(s);
  CHECK_OK(simple_rma_set_backend(s, backend));
  CHECK_EQ(simple_rma_procs(s), all);
  CHECK_RC(simple_rma_set_procs(s, 0), SIMPLE_ERR_RANK);
  CHECK_RC(simple_rma_set_procs(s, all + 1), SIMPLE_ERR_RANK);
  CHECK(strstr(simple_rma_error(s), "the job has") != NULL);

  int a[4] = {0}, keep[2] = {0}, v;
  CHECK_OK(simple_rma_push_reg(s, keep, sizeof keep));
  CHECK_OK(simple_rma_sync(s));

  /* Push then pop in one superstep: nothing changes (a stays unknown). */
  CHECK_OK(simple_rma_push_reg(s, a, sizeof a));
  CHECK_OK(simple_rma_pop_reg(s, a));
  CHECK_OK(simple_rma_sync(s));
  CHECK_RC(simple_rma_put(s, 0, &me, a, 0, sizeof me), SIMPLE_ERR_ARG);

  int P = all > 1 ? (all + 1) / 2 : 1; /* on 2x2: node 1 sits out */
  CHECK_OK(simple_rma_set_procs(s, P));
  CHECK_EQ(simple_rma_procs(s), all); /* not before the sync */
  CHECK_OK(simple_rma_sync(s));
  CHECK_EQ(simple_rma_procs(s), P);

  if (me < P) {
    int right = (me + 1) % P, left = (me + P - 1) % P;
    if (P < all) {
      CHECK_RC(simple_rma_put(s, P, &me, keep, 0, sizeof me), SIMPLE_ERR_RANK);
    }
    /* keep, registered before the shrink, is still there; a new one too. */
    CHECK_OK(simple_rma_push_reg(s, a, sizeof a));
    v = 100 + me;
    CHECK_OK(simple_rma_put(s, right, &v, keep, 0, sizeof v));
    CHECK_OK(simple_bsmp_send(s, right, NULL, &v, sizeof v));
    CHECK_OK(simple_rma_sync(s));
    CHECK_EQ(keep[0], 100 + left);
    CHECK_OK(simple_rma_put(s, right, &v, a, 3 * sizeof(int), sizeof v));
    int got = -1;
    CHECK_OK(simple_rma_get(s, left, keep, 0, &got, sizeof got));
    size_t nm = 0, nb = 0;
    CHECK_OK(simple_bsmp_qsize(s, &nm, &nb));
    CHECK_EQ(nm, 1);
    CHECK_OK(simple_rma_sync(s));
    CHECK_EQ(a[3], 100 + left);
    CHECK_EQ(got, 100 + (left + P - 1) % P);
    /* Disagreeing counts fail the sync on every thread of every node. */
    if (P > 1) {
      CHECK_OK(simple_rma_set_procs(s, me == 0 ? all : P));
      CHECK_RC(simple_rma_sync(s), SIMPLE_ERR_ARG);
      CHECK(strstr(simple_rma_error(s), "set_procs") != NULL);
    }
    /* Back to all: every registration ends. */
    CHECK_OK(simple_rma_set_procs(s, all));
    CHECK_OK(simple_rma_sync(s));
  } else {
    /* Sitting out: no call but sync. */
    CHECK_RC(simple_rma_put(s, 0, &me, keep, 0, sizeof me), SIMPLE_ERR_RANK);
    CHECK(strstr(simple_rma_error(s), "does not take part") != NULL);
    CHECK_RC(simple_rma_push_reg(s, a, sizeof a), SIMPLE_ERR_RANK);
    CHECK_RC(simple_bsmp_send(s, 0, NULL, &me, sizeof me), SIMPLE_ERR_RANK);
    int rounds = 0, rc;
    do {
      rc = simple_rma_sync(s);
      CHECK(rc == 0 || rc == SIMPLE_ERR_ARG);
      rounds++;
    } while (simple_rma_procs(s) < all);
    CHECK_EQ(rounds, P > 1 ? 4 : 3);
  }
  CHECK_EQ(simple_rma_procs(s), all);
  if (P < all) {
    /* The count grew back: keep is no longer registered. */
    CHECK_RC(simple_rma_put(s, (me + 1) % all, &me, keep, 0, sizeof me), SIMPLE_ERR_ARG);
  } else {
    CHECK_OK(simple_rma_pop_reg(s, a));
    CHECK_OK(simple_rma_pop_reg(s, keep));
  }
  CHECK_OK(simple_rma_sync(s));
}

static void spmd(simple_t *s, void *arg) {
  (void)arg;
  run(s, SIMPLE_RMA_TWOSIDED);
  run(s, SIMPLE_RMA_ONESIDED);
}

TEST_MAIN(spmd)
