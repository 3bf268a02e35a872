/* simple_water on every layout: 64 and 125 molecules (odd counts per
 * thread), the final positions and energy against the sequential run of
 * the same code, energy conserved; bad arguments refused on every thread. */
#include <math.h>

#include "harness.h"
#include "simple_water.h"

static void spmd(simple_t *s, void *arg) {
  (void)arg;
  int sizes[] = {64, 125};
  for (int k = 0; k < 2; k++) {
    simple_water_opts_t o = {sizes[k], 4, 0.0001, 3};
    int n = o.molecules;
    double *pos = malloc(sizeof(double) * 9 * n), *ref = malloc(sizeof(double) * 9 * n);
    CHECK(pos && ref);
    simple_water_result_t r, q;
    CHECK_OK(simple_water(s, &o, &r, pos));
    CHECK_OK(simple_water_seq(&o, &q, ref));
    double d = 0;
    for (int i = 0; i < 9 * n; i++) d = fmax(d, fabs(pos[i] - ref[i]));
    if (d > 1e-8) simple_abort(s, "n %d: positions differ from the sequential run by %g", n, d);
    CHECK(fabs(r.e_end - q.e_end) <= 1e-9 * fabs(q.e_end));
    if (!(r.drift < 1e-3)) simple_abort(s, "n %d: energy drift %g", n, r.drift);
    /* The molecules stay whole: every O-H about 1 A. */
    for (int i = 0; i < n; i++) {
      double b = 0;
      for (int c = 0; c < 3; c++) b += pow(pos[9 * i + 3 + c] - pos[9 * i + c], 2);
      CHECK(fabs(sqrt(b) - 1.0) < 0.2);
    }
    free(pos);
    free(ref);
  }
  simple_water_opts_t bad = {4, 1, 0.0001, 1};
  simple_water_result_t r;
  CHECK_RC(simple_water(s, &bad, &r, NULL), SIMPLE_ERR_ARG);
  bad.molecules = 64;
  bad.dt = -1;
  CHECK_RC(simple_water(s, &bad, &r, NULL), SIMPLE_ERR_ARG);
  CHECK_RC(simple_water(s, NULL, NULL, NULL), SIMPLE_ERR_NULL);
}

TEST_MAIN(spmd)
