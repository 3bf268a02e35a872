/* simple_redistribute and simple_redistribute_remote: every pair of the six distributions (rows or
 * columns; block, cyclic, block-cyclic) on shapes not divisible by the
 * processor count, 1D arrays, an empty array, several element sizes;
 * errors, including disagreeing descriptors caught before any data moves.
 * Checked against the serial reference (redist_check.h). */
#include "redist_check.h"

/* Over the nodes, every thread of a node must pass the node's storage:
 * a thread passing another pointer gets SIMPLE_ERR_ARG, the rest of the
 * job SIMPLE_ERR_PEER (no error where every node has one thread). */
static void node_errors(simple_t *s) {
  static double a[2][64], b[64];
  int P = simple_nodes(s), wide = 0;
  for (int k = 0; k < P; k++) wide |= simple_threads_on(s, k) > 1;
  simple_dist_t d = simple_dist_2d(P, 3, SIMPLE_ROWS, SIMPLE_BLOCK, 1, SIMPLE_OVER_NODES), x;
  int odd = simple_thread(s) == 1;
  CHECK_RC(simple_redistribute(s, a[odd], &d, b, &d, 8), !wide ? 0
                                                         : odd ? SIMPLE_ERR_ARG
                                                               : SIMPLE_ERR_PEER);
  x = d;
  x.over = SIMPLE_OVER_THREADS; /* one side over threads, the other over nodes */
  CHECK_RC(simple_redistribute(s, a[0], &d, b, &x, 8), SIMPLE_ERR_ARG);
  CHECK_OK(simple_node_barrier(s));
}

static void errors(simple_t *s) {
  int p = simple_nprocs(s);
  node_errors(s);
  /* Rows to columns of 8-byte elements, so that between nodes every
   * message goes in several segments. */
  redist_called_off(s, 40L * p + 3, 600, sizeof(double));
  double a[64], b[64];
  simple_dist_t d = simple_dist_2d(p, 3, SIMPLE_ROWS, SIMPLE_BLOCK, 1, SIMPLE_OVER_THREADS), x;
  CHECK_OK(simple_redistribute(s, a, &d, b, &d, sizeof(double)));
  CHECK_RC(simple_redistribute(NULL, a, &d, b, &d, 8), SIMPLE_ERR_NOT_IN_JOB);
  CHECK_RC(simple_redistribute(s, a, &d, b, &d, 0), SIMPLE_ERR_ARG);
  CHECK_RC(simple_redistribute(s, a, NULL, b, &d, 8), SIMPLE_ERR_ARG);
  CHECK_RC(simple_redistribute(s, a, &d, a, &d, 8), SIMPLE_ERR_ARG); /* in place */
  CHECK_RC(simple_redistribute(s, NULL, &d, b, &d, 8), SIMPLE_ERR_NULL);
  CHECK_RC(simple_redistribute(s, a, &d, NULL, &d, 8), SIMPLE_ERR_NULL);
  x = d;
  x.cols = 4; /* another shape */
  CHECK_RC(simple_redistribute(s, a, &d, b, &x, 8), SIMPLE_ERR_ARG);
  x = d;
  x.over = SIMPLE_OVER_NODE;
  CHECK_RC(simple_redistribute(s, a, &d, b, &x, 8), SIMPLE_ERR_ARG);
  x = d;
  x.kind = SIMPLE_BLOCK_CYCLIC;
  x.block = -2;
  CHECK_RC(simple_redistribute(s, a, &x, b, &d, 8), SIMPLE_ERR_ARG);
  x = d;
  x.rows = 0x7fffffffffffffffL / 2;
  CHECK_RC(simple_redistribute(s, a, &x, b, &x, 8), SIMPLE_ERR_COUNT);
  /* A leading dimension below the row length, negative, or whose storage
   * overflows. */
  x = d;
  x.ld = 2;
  CHECK_RC(simple_redistribute(s, a, &x, b, &d, 8), SIMPLE_ERR_ARG);
  x.ld = -1;
  CHECK_RC(simple_redistribute(s, a, &d, b, &x, 8), SIMPLE_ERR_ARG);
  x = d;
  x.rows = 1L << 40;
  x.ld = 1L << 30;
  CHECK_RC(simple_redistribute(s, a, &x, b, &x, 8), SIMPLE_ERR_COUNT);
  x = d;
  x.ld = 5; /* a valid one: 3 columns, rows 5 apart */
  {
    simple_domain_t dom;
    CHECK_OK(simple_dist_domain(s, &x, simple_pid(s), &dom));
    CHECK_EQ(dom.ld, 5);
    CHECK_OK(simple_dist_domain(s, &d, simple_pid(s), &dom));
    CHECK_EQ(dom.ld, 3);
  }
  /* One thread of the whole job wrong: its code, PEER everywhere else (the
   * other nodes must not wait for its messages). */
  int last = simple_pid(s) == p - 1;
  CHECK_RC(simple_redistribute(s, last ? NULL : a, &d, b, &d, 8),
           last ? SIMPLE_ERR_NULL : SIMPLE_ERR_PEER);
  CHECK_RC(simple_redistribute_remote(s, last ? NULL : a, &d, b, &d, 8),
           last ? SIMPLE_ERR_NULL : SIMPLE_ERR_PEER);
  CHECK_RC(simple_redistribute_remote(s, a, &d, a, &d, 8), SIMPLE_ERR_ARG); /* in place */
  CHECK_RC(simple_transpose(s, a, &d, simple_pid(s) == 0 ? NULL : b, &d, 8), p != 3 ? SIMPLE_ERR_ARG
                                                                             : simple_pid(s) == 0
                                                                                 ? SIMPLE_ERR_NULL
                                                                                 : SIMPLE_ERR_PEER);
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  int p = simple_nprocs(s), salt = 0;
  long shapes[][2] = {{13, 7}, {2 * p + 3, 5}, {6, 3 * p + 1}, {1, 1}};
  for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
    for (size_t a = 0; a < REDIST_NKINDS; a++)
      for (size_t b = 0; b < REDIST_NKINDS; b++)
        redist_case(s, OP_REDIST, redist_dist(shapes[sh][0], shapes[sh][1], a),
                    redist_dist(shapes[sh][0], shapes[sh][1], b), sh == 0 ? 4 : 8, 0, ++salt);
  /* 1D arrays: block <-> cyclic <-> block-cyclic. */
  for (size_t a = 0; a < 3; a++)
    for (size_t b = 0; b < 3; b++) {
      redist_case(s, OP_REDIST, redist_dist(37, 1, a), redist_dist(37, 1, b), 8, 0, ++salt);
      redist_case(s, OP_REDIST, redist_dist(p - 1, 1, a), redist_dist(p - 1, 1, b), 2, 0, ++salt);
    }
  /* Element sizes handled byte-wise, and one larger case (several tiles). */
  redist_case(s, OP_REDIST, redist_dist(19, 11, 0), redist_dist(19, 11, 4), 12, 0, ++salt);
  redist_case(s, OP_REDIST, redist_dist(19, 11, 5), redist_dist(19, 11, 1), 1, 0, ++salt);
  redist_case(s, OP_REDIST, redist_dist(70, 45, 0), redist_dist(70, 45, 3), 8, 0, ++salt);
  redist_case(s, OP_REDIST, redist_dist(0, 5, 0), redist_dist(0, 5, 3), 8, 0, ++salt);
  /* Over the nodes: node-shared storage, shared by the node's threads. */
  int P = simple_nodes(s);
  for (size_t a = 0; a < REDIST_NKINDS; a += 2)
    for (size_t b = 1; b < REDIST_NKINDS; b += 2)
      redist_case_ex(s, OP_REDIST, redist_dist(3 * P + 2, 2 * P + 1, a),
                     redist_dist(3 * P + 2, 2 * P + 1, b), 8, 0, ++salt, 1);
  redist_case_ex(s, OP_REDIST, redist_dist(70, 45, 0), redist_dist(70, 45, 3), 4, 0, ++salt, 1);
  /* Only what crosses between nodes: every pair of distributions, over
   * threads and over nodes, and the same plan with and without the
   * node-local copies one after the other (a kept plan must not serve
   * the other). */
  for (size_t a = 0; a < REDIST_NKINDS; a++)
    for (size_t b = 0; b < REDIST_NKINDS; b++)
      redist_case(s, OP_REMOTE, redist_dist(shapes[1][0], shapes[1][1], a),
                  redist_dist(shapes[1][0], shapes[1][1], b), 8, 0, ++salt);
  redist_case_ex(s, OP_REMOTE, redist_dist(3 * P + 2, 2 * P + 1, 0),
                 redist_dist(3 * P + 2, 2 * P + 1, 1), 8, 0, ++salt, 1);
  for (int rep = 0; rep < 3; rep++)
    redist_case(s, rep == 1 ? OP_REMOTE : OP_REDIST, redist_dist(70, 45, 0), redist_dist(70, 45, 3),
                8, 0, ++salt);
  /* Leading dimensions above the row length, on either side or both:
   * every pair of distributions, remote only, over nodes, transpose and
   * shift, and larger cases of 16-byte elements (on one host a message
   * between nodes goes whole, its pieces straight where they are one
   * stretch: here those at the unpadded end only). */
  for (size_t a = 0; a < REDIST_NKINDS; a++)
    for (size_t b = 0; b < REDIST_NKINDS; b++) {
      long r = shapes[1][0], c = shapes[1][1];
      redist_case(s, OP_REDIST, redist_dist_ld(r, c, a, (long)a + 1, p),
                  redist_dist_ld(r, c, b, (long)b % 3, p), 8, 0, ++salt);
    }
  redist_case(s, OP_REDIST, redist_dist(70, 45, 0), redist_dist_ld(70, 45, 3, 4, p), 16, 0, ++salt);
  redist_case(s, OP_REDIST, redist_dist_ld(70, 45, 3, 4, p), redist_dist(70, 45, 0), 16, 0, ++salt);
  redist_case(s, OP_REMOTE, redist_dist(70, 45, 0), redist_dist_ld(70, 45, 3, 4, p), 8, 0, ++salt);
  redist_case(s, OP_TRANSPOSE, redist_dist_ld(13, 7, 0, 2, p), redist_dist_ld(7, 13, 3, 3, p), 8, 0,
              ++salt);
  redist_case(s, OP_SHIFT, redist_dist_ld(13, 7, 1, 5, p), redist_dist_ld(13, 7, 0, 1, p), 8, 3,
              ++salt);
  redist_case_ex(s, OP_REDIST, redist_dist_ld(3 * P + 2, 2 * P + 1, 0, 3, P),
                 redist_dist_ld(3 * P + 2, 2 * P + 1, 3, 2, P), 8, 0, ++salt, 1);
  errors(s);
  /* Still in step after the errors. */
  redist_case(s, OP_REDIST, redist_dist(9, 4, 2), redist_dist(9, 4, 3), 8, 0, ++salt);
  CHECK_OK(simple_barrier(s));
}

TEST_MAIN(test)
