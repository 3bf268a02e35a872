/* Repeated redistributions. A node keeps the last few plans it ran
 * (src/dist/redist.c): a call that repeats one takes its piece sizes from
 * there and skips a node barrier. Here: more distinct plans than are kept,
 * each repeated, all of them again in turn after the others pushed them
 * out, two alternating (as the 2D FFT's rows -> columns and back),
 * transposes, shifts and node-shared storage; every call with new data,
 * every element checked against the serial reference (redist_check.h).
 * Then errors on a repeated call, on the last thread and on thread 0:
 * nobody's destination written, the right codes, and the same call right
 * after moving every element. */
#include "redist_check.h"

/* A rows -> columns redistribution of doubles repeated, with the thread
 * `culprit` passing a NULL destination on the second of three calls. */
static void error_on_repeat(simple_t *s, int culprit) {
  int p = simple_nprocs(s), me = simple_pid(s);
  long rows = 6L * p + 5, cols = 70;
  simple_dist_t dr = simple_dist_2d(rows, cols, SIMPLE_ROWS, SIMPLE_BLOCK, 1, SIMPLE_OVER_THREADS);
  simple_dist_t dc = simple_dist_2d(rows, cols, SIMPLE_COLS, SIMPLE_BLOCK, 1, SIMPLE_OVER_THREADS);
  simple_domain_t mr, mc;
  CHECK_OK(simple_dist_domain(s, &dr, me, &mr));
  CHECK_OK(simple_dist_domain(s, &dc, me, &mc));
  size_t ns = (size_t)(mr.local_rows * mr.local_cols), nd = (size_t)(mc.local_rows * mc.local_cols);
  CHECK(nd > 0);
  double *a = malloc((ns + 1) * sizeof *a), *b = malloc(nd * sizeof *b);
  CHECK(a && b);
  for (int call = 0; call < 3; call++) {
    /* Element (i, j) of call `call`: its own data every time. */
    for (long i = 0; i < mr.local_rows; i++)
      for (long j = 0; j < cols; j++)
        a[i * cols + j] = (double)((mr.row.lo + i) * cols + j) + 1e6 * call;
    for (size_t k = 0; k < nd; k++) b[k] = -1.0;
    if (call == 1) {
      CHECK_RC(simple_redistribute(s, a, &dr, me == culprit ? NULL : b, &dc, sizeof(double)),
               me == culprit ? SIMPLE_ERR_NULL : SIMPLE_ERR_PEER);
      for (size_t k = 0; k < nd; k++)
        if (b[k] != -1.0) simple_abort(s, "a failed repeated redistribution wrote element %zu", k);
      continue;
    }
    CHECK_OK(simple_redistribute(s, a, &dr, b, &dc, sizeof(double)));
    for (long i = 0; i < rows; i++)
      for (long j = 0; j < mc.local_cols; j++)
        if (b[i * mc.local_cols + j] != (double)(i * cols + mc.col.lo + j) + 1e6 * call)
          simple_abort(s, "call %d: element (%ld, %ld) wrong", call, i, mc.col.lo + j);
  }
  free(a);
  free(b);
}

static void test_main(simple_t *s, void *arg) {
  (void)arg;
  int p = simple_nprocs(s), salt = 0;
  long rows = 5L * p + 3, cols = 4L * p + 1;
  /* Six plans, each three times in a row. */
  for (size_t a = 0; a < REDIST_NKINDS; a++)
    for (int rep = 0; rep < 3; rep++)
      redist_case(s, OP_REDIST, redist_dist(rows, cols, a),
                  redist_dist(rows, cols, (a + 3) % REDIST_NKINDS), 8, 0, ++salt);
  /* All six again in turn, twice: each comes back after the others. */
  for (int round = 0; round < 2; round++)
    for (size_t a = 0; a < REDIST_NKINDS; a++)
      redist_case(s, OP_REDIST, redist_dist(rows, cols, a),
                  redist_dist(rows, cols, (a + 3) % REDIST_NKINDS), 8, 0, ++salt);
  /* Two alternating, a transpose and a shift between them. */
  for (int rep = 0; rep < 4; rep++) {
    redist_case(s, OP_REDIST, redist_dist(rows, cols, 0), redist_dist(rows, cols, 3), 16, 0,
                ++salt);
    redist_case(s, OP_REDIST, redist_dist(rows, cols, 3), redist_dist(rows, cols, 0), 16, 0,
                ++salt);
    redist_case(s, OP_TRANSPOSE, redist_dist(rows, cols, 0), redist_dist(cols, rows, 1), 4, 0,
                ++salt);
    redist_case(s, OP_SHIFT, redist_dist(rows, cols, 2), redist_dist(rows, cols, 0), 8, rep % 2 + 1,
                ++salt);
  }
  /* Over the nodes: node-shared storage. */
  for (int rep = 0; rep < 3; rep++)
    redist_case_ex(s, OP_REDIST, redist_dist(rows, cols, 0), redist_dist(rows, cols, 4), 8, 0,
                   ++salt, 1);
  error_on_repeat(s, p - 1);
  error_on_repeat(s, 0);
}

TEST_MAIN(test_main)
