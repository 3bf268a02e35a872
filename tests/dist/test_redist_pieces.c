/* Redistributions whose pieces are large: every thread's block of a
 * (72 p + 5)-square array of 16-byte elements, pieces of 83 KiB and more,
 * more than one segment (63 KiB) each. A node-pair message that goes
 * whole, and whose pieces are all SIMPLE_SEGMENT_PIECES bytes or more,
 * goes as one MPI message per piece (src/xchg), straight from and into
 * the threads' storage where a piece is one stretch there. The tests run
 * with the default (these pieces are below it: one message per node pair)
 * and with SIMPLE_SEGMENT_PIECES=65536 (tests/CMakeLists.txt), where rows
 * move to blocks of columns and back (pieces that land, or leave, as
 * stretches of storage), to cyclic columns (packed in the room), by
 * transposes, remote only, repeated (a kept plan), and called off by one
 * thread: the other nodes take back the receives they posted for each
 * piece, nobody's destination is written, and the same call right after
 * moves every element. Checked against the serial reference
 * (redist_check.h). */
#include "redist_check.h"

/* A rows -> columns redistribution of 16-byte elements in which the last
 * thread passes a NULL destination: SIMPLE_ERR_NULL there, SIMPLE_ERR_PEER
 * everywhere else, no destination written; then the same call with every
 * argument right. */
static void called_off(simple_t *s, long n) {
  int last = simple_pid(s) == simple_nprocs(s) - 1;
  simple_dist_t dr = simple_dist_2d(n, n, SIMPLE_ROWS, SIMPLE_BLOCK, 1, SIMPLE_OVER_THREADS);
  simple_dist_t dc = simple_dist_2d(n, n, SIMPLE_COLS, SIMPLE_BLOCK, 1, SIMPLE_OVER_THREADS);
  simple_domain_t mr, mc;
  CHECK_OK(simple_dist_domain(s, &dr, simple_pid(s), &mr));
  CHECK_OK(simple_dist_domain(s, &dc, simple_pid(s), &mc));
  size_t ns = (size_t)(mr.local_rows * n), nd = (size_t)(n * mc.local_cols);
  double *a = malloc(2 * ns * sizeof *a), *b = malloc(2 * nd * sizeof *b);
  CHECK(a && b);
  for (long i = 0; i < mr.local_rows; i++)
    for (long j = 0; j < n; j++) {
      a[2 * (i * n + j)] = (double)(mr.row.lo + i);
      a[2 * (i * n + j) + 1] = (double)j;
    }
  for (size_t k = 0; k < 2 * nd; k++) b[k] = -1.0;
  CHECK_RC(simple_redistribute(s, a, &dr, last ? NULL : b, &dc, 16),
           last ? SIMPLE_ERR_NULL : SIMPLE_ERR_PEER);
  for (size_t k = 0; k < 2 * nd; k++)
    if (b[k] != -1.0) simple_abort(s, "called-off redistribution wrote double %zu", k);
  CHECK_OK(simple_redistribute(s, a, &dr, b, &dc, 16));
  for (long i = 0; i < n; i++)
    for (long j = 0; j < mc.local_cols; j++)
      if (b[2 * (i * mc.local_cols + j)] != (double)i ||
          b[2 * (i * mc.local_cols + j) + 1] != (double)(mc.col.lo + j))
        simple_abort(s, "element (%ld, %ld) wrong after a called-off redistribution", i,
                     mc.col.lo + j);
  free(a);
  free(b);
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  long n = 72L * simple_nprocs(s) + 5;
  int salt = 0;
  /* Kinds (redist_check.h): 0 rows in blocks, 3 columns in blocks, 4
   * cyclic columns. */
  for (int rep = 0; rep < 2; rep++) {
    redist_case(s, OP_REDIST, redist_dist(n, n, 0), redist_dist(n, n, 3), 16, 0, ++salt);
    redist_case(s, OP_REDIST, redist_dist(n, n, 3), redist_dist(n, n, 0), 16, 0, ++salt);
  }
  redist_case(s, OP_REDIST, redist_dist(n, n, 0), redist_dist(n, n, 4), 16, 0, ++salt);
  redist_case(s, OP_REMOTE, redist_dist(n, n, 0), redist_dist(n, n, 3), 16, 0, ++salt);
  redist_case(s, OP_REMOTE, redist_dist(n, n, 3), redist_dist(n, n, 0), 16, 0, ++salt);
  redist_case(s, OP_TRANSPOSE, redist_dist(n, n, 0), redist_dist(n, n, 0), 16, 0, ++salt);
  called_off(s, n);
  /* Still in step after the error. */
  redist_case(s, OP_REDIST, redist_dist(n, n, 3), redist_dist(n, n, 0), 16, 0, ++salt);
  CHECK_OK(simple_barrier(s));
}

TEST_MAIN(test)
