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
  redist_called_off(s, n, n, 16);
  /* Still in step after the error. */
  redist_case(s, OP_REDIST, redist_dist(n, n, 3), redist_dist(n, n, 0), 16, 0, ++salt);
  CHECK_OK(simple_barrier(s));
}

TEST_MAIN(test)
