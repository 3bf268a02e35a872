/* simple_barnes on every layout: the accelerations of every body against
 * the direct sum (relative error bounded for the opening angle), momentum
 * conserved, the same result whatever the layout within rounding (checked
 * against the direct sum, computed here independently), the node-shared
 * cache fetching no more than a cache per thread; bad arguments refused. */
#include <math.h>

#include "harness.h"
#include "simple_barnes.h"

static void spmd(simple_t *s, void *arg) {
  (void)arg;
  int n = 600;
  simple_barnes_opts_t o = {n, 2, 0.025, 0.5, 0.025, 5, 0};
  double *pos = malloc(24 * n), *acc = malloc(24 * n), *p0 = malloc(24 * n), *v0 = malloc(24 * n),
         *m = malloc(8 * n);
  CHECK(pos && acc && p0 && v0 && m);
  simple_barnes_result_t r;
  CHECK_OK(simple_barnes(s, &o, &r, pos, acc));
  CHECK_OK(simple_barnes_bodies(&o, p0, v0, m));
  double emax = 0, esum = 0;
  for (int i = 0; i < n; i++) {
    double a[3], d = 0, an = 0;
    simple_barnes_direct(n, pos, m, o.eps, i, a);
    for (int k = 0; k < 3; k++) d += pow(acc[3 * i + k] - a[k], 2), an += a[k] * a[k];
    emax = fmax(emax, sqrt(d / an));
    esum += d / an;
  }
  /* The bounds of docs/barnes.md for theta 0.5: rms 0.08 theta^2, max 0.4
   * theta^2 (a body whose pulls nearly cancel has a small force, so its
   * relative error is the largest). */
  if (sqrt(esum / n) > 0.02 || emax > 0.1)
    simple_abort(s, "relative force error rms %g, max %g", sqrt(esum / n), emax);
  double dp = 0;
  for (int k = 0; k < 3; k++) dp += pow(r.p_end[k] - r.p_start[k], 2);
  if (sqrt(dp) / r.p_scale > 1e-3) simple_abort(s, "momentum error %g", sqrt(dp) / r.p_scale);
  /* The bodies moved: positions differ from the start, by about v t. */
  double moved = 0;
  for (int i = 0; i < 3 * n; i++) moved = fmax(moved, fabs(pos[i] - p0[i]));
  CHECK(moved > 0 && moved < 1);
  uint64_t shared = r.cache.fetches;
  if (simple_nodes(s) == 1) CHECK_EQ(shared, 0);
  /* A cache per thread fetches at least as much, and as many times more
   * as the threads that open the same remote cell. */
  o.per_thread_cache = 1;
  CHECK_OK(simple_barnes(s, &o, &r, pos, acc));
  CHECK(shared <= r.cache.fetches);
  o.bodies = 1;
  CHECK_RC(simple_barnes(s, &o, &r, NULL, NULL), SIMPLE_ERR_ARG);
  o.bodies = 100;
  o.theta = 2;
  CHECK_RC(simple_barnes(s, &o, &r, NULL, NULL), SIMPLE_ERR_ARG);
  CHECK_RC(simple_barnes(s, &o, NULL, NULL, NULL), SIMPLE_ERR_NULL);
  free(pos), free(acc), free(p0), free(v0), free(m);
}

TEST_MAIN(spmd)
