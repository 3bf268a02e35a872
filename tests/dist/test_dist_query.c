/* Distribution descriptors: simple_dist_domain, simple_dist_owner and
 * simple_dist_owners against the serial reference (tests/dist/dist_ref.h)
 * for 1D and 2D shapes, both axes, every kind, over the threads of the
 * job, the nodes and the threads of a node; errors. */
#include "dist_ref.h"

static int parts_for(simple_t *s, simple_over_t over) {
  return over == SIMPLE_OVER_THREADS ? simple_nprocs(s)
         : over == SIMPLE_OVER_NODES ? simple_nodes(s)
                                     : simple_threads(s);
}

static void one(simple_t *s, long rows, long cols, simple_axis_t axis, simple_kind_t kind, long b,
                simple_over_t over) {
  simple_dist_t d = simple_dist_2d(rows, cols, axis, kind, b, over);
  int np = parts_for(s, over), ax = axis == SIMPLE_COLS;
  long n = ax ? cols : rows;
  CHECK_EQ(simple_dist_parts(s, &d), np);
  int mine = over == SIMPLE_OVER_THREADS ? simple_pid(s)
             : over == SIMPLE_OVER_NODES ? simple_node(s)
                                         : simple_thread(s);
  CHECK_EQ(simple_dist_my_part(s, &d), mine);
  ref_dist_t rd = {rows, cols, ax, kind, b, np, 0};
  ref_tab_t t;
  ref_tab_init(&t, rd);
  /* Domains: every index of a part's set is owned by it, at the next local
   * index; the counts match. */
  for (int q = 0; q < np; q++) {
    simple_domain_t dom;
    CHECK_OK(simple_dist_domain(s, &d, q, &dom));
    CHECK_EQ(dom.local_rows, ref_lrows(&t, q));
    CHECK_EQ(dom.local_cols, ref_lcols(&t, q));
    simple_range_t r = ax ? dom.col : dom.row, whole = ax ? dom.row : dom.col;
    CHECK(whole.lo == 0 && whole.hi == (ax ? rows : cols) && whole.count == (ax ? rows : cols));
    long l = 0;
    for (long b0 = r.lo; b0 < r.hi; b0 += r.stride)
      for (long g = b0; g < b0 + r.block && g < r.hi; g++) {
        CHECK_EQ(t.own[g], q);
        CHECK_EQ(t.loc[g], l);
        l++;
      }
    CHECK_EQ(l, t.cnt[q]);
  }
  /* Owners of every element (a sample of columns / rows of the whole
   * axis), with local coordinates. */
  for (long i = 0; i < rows; i += (ax ? 3 : 1))
    for (long j = 0; j < cols; j += (ax ? 1 : 3)) {
      int part;
      long li, lj;
      CHECK_OK(simple_dist_owner(s, &d, i, j, &part, &li, &lj));
      long g = ax ? j : i;
      CHECK_EQ(part, t.own[g]);
      CHECK_EQ(ax ? lj : li, t.loc[g]);
      CHECK_EQ(ax ? li : lj, ax ? i : j);
    }
  /* Owners of ranges: brute force over the reference. */
  int *got = malloc(sizeof(int) * (size_t)(np + 1)), *want = calloc((size_t)np, sizeof(int));
  CHECK(got && want);
  for (long a = 0; a <= n; a += (n > 20 ? 7 : 1))
    for (long e = a; e <= n; e += (n > 20 ? 5 : 1)) {
      memset(want, 0, sizeof(int) * (size_t)np);
      int wn = 0;
      for (long g = a; g < e; g++)
        if (!want[t.own[g]]) want[t.own[g]] = 1, wn++;
      int cnt = -1;
      long r0 = ax ? 0 : a, r1 = ax ? rows : e, c0 = ax ? a : 0, c1 = ax ? e : cols;
      CHECK_OK(simple_dist_owners(s, &d, r0, r1, c0, c1, got, np, &cnt));
      if ((ax ? rows : cols) == 0) wn = 0; /* an empty rectangle */
      CHECK_EQ(cnt, wn);
      for (int k = 0, q = 0; q < np && wn; q++)
        if (want[q]) CHECK_EQ(got[k++], q);
      /* A short list: the first ones, and the full count. */
      if (wn > 1) {
        CHECK_OK(simple_dist_owners(s, &d, r0, r1, c0, c1, got, 1, &cnt));
        CHECK_EQ(cnt, wn);
      }
    }
  free(got);
  free(want);
  ref_tab_free(&t);
}

static void errors(simple_t *s) {
  simple_dist_t d = simple_dist_2d(10, 4, SIMPLE_ROWS, SIMPLE_BLOCK, 1, SIMPLE_OVER_THREADS), bad;
  simple_domain_t dom;
  int part, cnt, parts[4];
  CHECK_RC(simple_dist_domain(NULL, &d, 0, &dom), SIMPLE_ERR_NOT_IN_JOB);
  CHECK_RC(simple_dist_domain(s, &d, 0, NULL), SIMPLE_ERR_ARG);
  CHECK_RC(simple_dist_domain(s, NULL, 0, &dom), SIMPLE_ERR_ARG);
  CHECK_RC(simple_dist_domain(s, &d, simple_nprocs(s), &dom), SIMPLE_ERR_RANK);
  CHECK_RC(simple_dist_domain(s, &d, -1, &dom), SIMPLE_ERR_RANK);
  bad = d;
  bad.rows = -1;
  CHECK_RC(simple_dist_domain(s, &bad, 0, &dom), SIMPLE_ERR_ARG);
  bad = d;
  bad.kind = SIMPLE_BLOCK_CYCLIC;
  bad.block = 0;
  CHECK_RC(simple_dist_domain(s, &bad, 0, &dom), SIMPLE_ERR_ARG);
  bad = d;
  bad.axis = (simple_axis_t)5;
  CHECK_RC(simple_dist_owner(s, &bad, 0, 0, &part, NULL, NULL), SIMPLE_ERR_ARG);
  bad = d;
  bad.over = (simple_over_t)5;
  CHECK_EQ(simple_dist_parts(s, &bad), -1);
  CHECK_RC(simple_dist_owner(s, &d, 10, 0, &part, NULL, NULL), SIMPLE_ERR_RANK);
  CHECK_RC(simple_dist_owner(s, &d, 0, 4, &part, NULL, NULL), SIMPLE_ERR_RANK);
  CHECK_RC(simple_dist_owner(s, &d, -1, 0, &part, NULL, NULL), SIMPLE_ERR_RANK);
  CHECK_RC(simple_dist_owner(s, &d, 0, 0, NULL, NULL, NULL), SIMPLE_ERR_ARG);
  CHECK_RC(simple_dist_owners(s, &d, 0, 11, 0, 4, parts, 4, &cnt), SIMPLE_ERR_RANK);
  CHECK_RC(simple_dist_owners(s, &d, 0, 10, 0, 4, NULL, 4, &cnt), SIMPLE_ERR_ARG);
  CHECK_RC(simple_dist_owners(s, &d, 0, 10, 0, 4, parts, 4, NULL), SIMPLE_ERR_ARG);
  CHECK_OK(simple_dist_owners(s, &d, 3, 3, 0, 4, NULL, 0, &cnt));
  CHECK_EQ(cnt, 0);
  d = simple_dist_1d(7, SIMPLE_CYCLIC, 1, SIMPLE_OVER_NODES);
  CHECK_EQ(d.cols, 1);
  CHECK_OK(simple_dist_owner(s, &d, 6, 0, &part, NULL, NULL));
  CHECK_EQ(part, 6 % simple_nodes(s));
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  static const long shapes[][2] = {{0, 3}, {1, 1}, {7, 1}, {13, 5}, {5, 13}, {40, 3}, {3, 70}};
  static const simple_over_t overs[] = {SIMPLE_OVER_THREADS, SIMPLE_OVER_NODES, SIMPLE_OVER_NODE};
  static const long blocks[] = {1, 3, 16};
  for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
    for (int axis = 0; axis < 2; axis++)
      for (size_t o = 0; o < 3; o++) {
        one(s, shapes[sh][0], shapes[sh][1], axis ? SIMPLE_COLS : SIMPLE_ROWS, SIMPLE_BLOCK, 1,
            overs[o]);
        one(s, shapes[sh][0], shapes[sh][1], axis ? SIMPLE_COLS : SIMPLE_ROWS, SIMPLE_CYCLIC, 1,
            overs[o]);
        for (size_t b = 0; b < 3; b++)
          one(s, shapes[sh][0], shapes[sh][1], axis ? SIMPLE_COLS : SIMPLE_ROWS,
              SIMPLE_BLOCK_CYCLIC, blocks[b], overs[o]);
      }
  errors(s);
  CHECK_OK(simple_barrier(s));
}

TEST_MAIN(test)
