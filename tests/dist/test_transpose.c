/* simple_transpose: the classic case (by rows, block, to by rows, block)
 * on square and rectangular shapes not divisible by the processor count,
 * one above a tile (32) in both dimensions, every element size path (1,
 * 2, 4, 8, 16 and a byte-wise 12); pieces large enough for streaming
 * stores; then every pair of distributions on a small shape; errors.
 * Checked against the serial reference. */
#include "redist_check.h"

static void errors(simple_t *s) {
  double a[64], b[64];
  int p = simple_nprocs(s);
  simple_dist_t d = simple_dist_2d(p, 3, SIMPLE_ROWS, SIMPLE_BLOCK, 1, SIMPLE_OVER_THREADS),
                t = simple_dist_2d(3, p, SIMPLE_ROWS, SIMPLE_BLOCK, 1, SIMPLE_OVER_THREADS);
  CHECK_OK(simple_transpose(s, a, &d, b, &t, 8));
  CHECK_RC(simple_transpose(s, a, &d, b, &d, 8), p == 3 ? 0 : SIMPLE_ERR_ARG); /* not the shape */
  simple_dist_t sq = simple_dist_2d(p, p, SIMPLE_ROWS, SIMPLE_BLOCK, 1, SIMPLE_OVER_THREADS);
  double c[64];
  CHECK_RC(simple_transpose(s, c, &sq, c, &sq, 8), SIMPLE_ERR_ARG); /* in place */
  CHECK_RC(simple_transpose(s, a, &d, b, &t, 0), SIMPLE_ERR_ARG);
  CHECK_RC(simple_transpose(NULL, a, &d, b, &t, 8), SIMPLE_ERR_NOT_IN_JOB);
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  int p = simple_nprocs(s), salt = 0;
  long shapes[][2] = {{1, 1},   {5, 5},   {17, 9}, {9, 17}, {3 * p + 2, 2 * p + 1},
                      {70, 45}, {33, 100}};
  static const size_t sizes[] = {8, 4, 1, 2, 16, 12};
  ref_dist_t r;
  for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
    for (size_t e = 0; e < sizeof sizes / sizeof *sizes; e++) {
      if (e > 1 && sh != 2 && sh != 5) continue; /* other sizes on two shapes */
      r = redist_dist(shapes[sh][0], shapes[sh][1], 0);
      ref_dist_t t = redist_dist(shapes[sh][1], shapes[sh][0], 0);
      redist_case(s, OP_TRANSPOSE, r, t, sizes[e], 0, ++salt);
    }
  /* Every pair of distributions. */
  for (size_t a = 0; a < REDIST_NKINDS; a++)
    for (size_t b = 0; b < REDIST_NKINDS; b++)
      redist_case(s, OP_TRANSPOSE, redist_dist(11, 2 * p + 1, a), redist_dist(2 * p + 1, 11, b), 8,
                  0, ++salt);
  /* Several tiles (32 lines x 8 along a run) in both dimensions of every
   * piece, on every layout: at least 32 p by 32 p, not divisible. */
  redist_case(s, OP_TRANSPOSE, redist_dist(33L * p + 5, 32L * p + 3, 0),
              redist_dist(32L * p + 3, 33L * p + 5, 0), 8, 0, ++salt);
  /* Pieces of 1 MiB and more of 16- and 8-byte elements, whose copies
   * stream their whole tiles past the cache (redist.c): every thread pair
   * at least 256 x 256 complex or 363 x 363 doubles, a partial tile at
   * each end. Up to 4 processors (the arrays grow with p squared). */
  if (p <= 4) {
    redist_case(s, OP_TRANSPOSE, redist_dist(256L * p + 5, 256L * p + 3, 0),
                redist_dist(256L * p + 3, 256L * p + 5, 0), 16, 0, ++salt);
    redist_case(s, OP_TRANSPOSE, redist_dist(363L * p + 7, 363L * p + 2, 0),
                redist_dist(363L * p + 2, 363L * p + 7, 0), 8, 0, ++salt);
  }
  /* Over the nodes (node-shared storage): the classic case with several
   * tiles, and a few other pairs. */
  int P = simple_nodes(s);
  redist_case_ex(s, OP_TRANSPOSE, redist_dist(33L * P + 40, 32L * P + 37, 0),
                 redist_dist(32L * P + 37, 33L * P + 40, 0), 8, 0, ++salt, 1);
  for (size_t a = 0; a < REDIST_NKINDS; a += 2)
    redist_case_ex(s, OP_TRANSPOSE, redist_dist(11, 2 * P + 1, a),
                   redist_dist(2 * P + 1, 11, (a + 1) % REDIST_NKINDS), 4, 0, ++salt, 1);
  /* Back to back, each call larger than the one before: thread 0 grows
   * the node's buffers before each call's first barrier while another
   * thread may still unpack the call before (src/dist keeps two sets of
   * buffers, by call parity, and no closing barrier over threads). */
  for (long it = 0; it < 24; it++)
    redist_case(s, OP_TRANSPOSE, redist_dist(2L * p + 3 * it, p + 5 * it, 0),
                redist_dist(p + 5 * it, 2L * p + 3 * it, 0), 8, 0, ++salt);
  /* Columns to columns, many tiles. */
  redist_case(s, OP_TRANSPOSE, redist_dist(40, 66, 3), redist_dist(66, 40, 3), 8, 0, ++salt);
  /* Empty. */
  redist_case(s, OP_TRANSPOSE, redist_dist(0, 6, 0), redist_dist(6, 0, 0), 8, 0, ++salt);
  errors(s);
  redist_case(s, OP_TRANSPOSE, redist_dist(7, 3, 0), redist_dist(3, 7, 0), 8, 0, ++salt);
  CHECK_OK(simple_barrier(s));
}

TEST_MAIN(test)
