/* Every refused argument of the one-sided calls returns its documented
 * code, does nothing (nothing is written anywhere, nothing queued), and
 * leaves a message naming the call, the processors and the area. */
#include <stdint.h>

#include "harness.h"

static void has(simple_t *s, const char *what) {
  const char *e = simple_rma_error(s);
  if (!strstr(e, what)) simple_abort(s, "error message '%s' lacks '%s'", e, what);
}

static void spmd(simple_t *s, void *arg) {
  (void)arg;
  int p = simple_nprocs(s), me = simple_pid(s), right = (me + 1) % p;
  long area[4] = {0}, v = 7, guard[4] = {0};
  char who[64];
  snprintf(who, sizeof who, "processor %d", me);
  int initial = simple_rma_backend(s); /* from SIMPLE_RMA: the same everywhere */
  CHECK_OK(simple_rma_push_reg(s, area, sizeof area));
  CHECK_OK(simple_rma_sync(s));
  CHECK(simple_rma_error(s)[0] == '\0');

  /* Processor out of range. */
  CHECK_RC(simple_rma_put(s, p, &v, area, 0, sizeof v), SIMPLE_ERR_RANK);
  has(s, "put");
  has(s, who);
  CHECK_RC(simple_rma_put(s, -1, &v, area, 0, sizeof v), SIMPLE_ERR_RANK);
  CHECK_RC(simple_rma_hpput(s, p, &v, area, 0, sizeof v), SIMPLE_ERR_RANK);
  CHECK_RC(simple_rma_get(s, p, area, 0, &v, sizeof v), SIMPLE_ERR_RANK);
  has(s, "get");
  CHECK_RC(simple_rma_hpget(s, -5, area, 0, &v, sizeof v), SIMPLE_ERR_RANK);
  CHECK_RC(simple_bsmp_send(s, p, NULL, &v, sizeof v), SIMPLE_ERR_RANK);
  has(s, "send");

  /* NULL buffers with bytes to move. */
  CHECK_RC(simple_rma_put(s, right, NULL, area, 0, 8), SIMPLE_ERR_NULL);
  CHECK_RC(simple_rma_get(s, right, area, 0, NULL, 8), SIMPLE_ERR_NULL);
  CHECK_RC(simple_bsmp_send(s, right, NULL, NULL, 8), SIMPLE_ERR_NULL);
  CHECK_RC(simple_rma_push_reg(s, NULL, 8), SIMPLE_ERR_NULL);

  /* Unregistered areas, named in the message. */
  CHECK_RC(simple_rma_put(s, right, &v, guard, 0, sizeof v), SIMPLE_ERR_ARG);
  has(s, "not registered");
  has(s, who);
  CHECK_RC(simple_rma_get(s, right, guard, 0, &v, sizeof v), SIMPLE_ERR_ARG);
  CHECK_RC(simple_rma_put(s, right, &v, area + 1, 0, sizeof v), SIMPLE_ERR_ARG);
  CHECK_RC(simple_rma_pop_reg(s, guard), SIMPLE_ERR_ARG);
  has(s, "pop_reg");

  /* Outside the area: past the end, straddling it, offsets that overflow. */
  CHECK_RC(simple_rma_put(s, right, &v, area, sizeof area, 1), SIMPLE_ERR_ARG);
  has(s, "outside");
  char other[64];
  snprintf(other, sizeof other, "processor %d", right);
  has(s, other);
  CHECK_RC(simple_rma_put(s, right, &v, area, sizeof area - 4, sizeof v), SIMPLE_ERR_ARG);
  CHECK_RC(simple_rma_hpput(s, right, &v, area, sizeof area - 4, sizeof v), SIMPLE_ERR_ARG);
  CHECK_RC(simple_rma_put(s, right, &v, area, SIZE_MAX, 2), SIMPLE_ERR_ARG);
  CHECK_RC(simple_rma_put(s, right, &v, area, 8, SIZE_MAX), SIMPLE_ERR_ARG);
  CHECK_RC(simple_rma_get(s, right, area, sizeof area + 1, &v, 0), SIMPLE_ERR_ARG);
  CHECK_RC(simple_rma_hpget(s, right, area, 24, &v, 16), SIMPLE_ERR_ARG);
  /* The edges are fine: a zero-length transfer at the end, the whole area. */
  CHECK_OK(simple_rma_put(s, right, &v, area, sizeof area, 0));
  CHECK_OK(simple_rma_get(s, right, area, 0, guard, sizeof area));

  /* BSMP: nothing to move; NULL arguments. */
  CHECK_RC(simple_bsmp_move(s, &v, sizeof v), SIMPLE_ERR_ARG);
  has(s, "move");
  CHECK_RC(simple_bsmp_get_tag(s, NULL, NULL), SIMPLE_ERR_NULL);
  CHECK_RC(simple_bsmp_set_tagsize(s, NULL), SIMPLE_ERR_NULL);
  CHECK_RC(simple_bsmp_hpmove(s, NULL, NULL, NULL), SIMPLE_ERR_NULL);

  /* Outside a job. */
  CHECK_RC(simple_rma_put(NULL, 0, &v, area, 0, 1), SIMPLE_ERR_NOT_IN_JOB);
  CHECK_RC(simple_rma_sync(NULL), SIMPLE_ERR_NOT_IN_JOB);
  CHECK_RC(simple_bsmp_send(NULL, 0, NULL, NULL, 0), SIMPLE_ERR_NOT_IN_JOB);

  /* None of the refused calls moved anything: only the whole-area get. */
  memset(area, 0x5a, sizeof area);
  CHECK_OK(simple_rma_sync(s));
  /* The get reads the area as the computation left it: after the memset. */
  for (int i = 0; i < 4; i++) CHECK_EQ(guard[i], 0x5a5a5a5a5a5a5a5aLL);
  size_t nm = 1, nb = 1;
  CHECK_OK(simple_bsmp_qsize(s, &nm, &nb));
  CHECK_EQ(nm, 0);
  CHECK_EQ(nb, 0);
  for (int i = 0; i < 4; i++) CHECK_EQ(area[i], 0x5a5a5a5a5a5a5a5aLL);
  /* Bad backend on one thread: it gets ARG, the others PEER. */
  int rc = simple_rma_set_backend(s, me == 0 && simple_thread(s) == 0 ? 99 : SIMPLE_RMA_TWOSIDED);
  if (simple_node(s) == 0)
    CHECK_EQ(rc, me == 0 ? SIMPLE_ERR_ARG : SIMPLE_ERR_PEER);
  else
    CHECK_EQ(rc, 0);
  /* Node 0 kept its backend, the others chose two-sided: if they differ,
   * the next sync fails everywhere (two-sided, so nobody hangs). */
  int differ = simple_nodes(s) > 1 && initial != SIMPLE_RMA_TWOSIDED;
  CHECK_RC(simple_rma_sync(s), differ ? SIMPLE_ERR_ARG : 0);
  if (differ) has(s, "set_backend");
  CHECK_OK(simple_rma_set_backend(s, SIMPLE_RMA_TWOSIDED));
  CHECK_OK(simple_rma_pop_reg(s, area));
  CHECK_OK(simple_rma_sync(s));
}

TEST_MAIN(spmd)
