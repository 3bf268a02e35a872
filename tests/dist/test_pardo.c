/* pardo and control: simple_range_part against the reference owner of
 * every index (tests/dist/dist_ref.h) for many ranges, part counts and
 * kinds; the loop macros over the job and over a node cover every index
 * exactly once (counted with simple_allreduce / simple_node_allreduce);
 * the control macros select the documented threads; errors. */
#include "dist_ref.h"

static const simple_kind_t kinds[] = {SIMPLE_BLOCK, SIMPLE_CYCLIC, SIMPLE_BLOCK_CYCLIC};

/* Every index of [lo, hi) enumerated from the range of its owner, and
 * nothing else; counts, bounds and the block form's contiguity. */
static void check_ranges(simple_t *s) {
  static const long los[] = {0, -7, 3};
  static const long lens[] = {0, 1, 5, 17, 64, 101};
  static const long blocks[] = {1, 2, 3, 8, 200};
  for (int np = 1; np <= 9; np++)
    for (size_t a = 0; a < sizeof los / sizeof *los; a++)
      for (size_t b = 0; b < sizeof lens / sizeof *lens; b++)
        for (size_t k = 0; k < 3; k++)
          for (size_t c = 0; c < (kinds[k] == SIMPLE_BLOCK_CYCLIC ? 5u : 1u); c++) {
            long lo = los[a], n = lens[b], hi = lo + n, bl = blocks[c];
            int *seen = calloc((size_t)n + 1, sizeof(int));
            CHECK(seen);
            for (int t = 0; t < np; t++) {
              simple_range_t r;
              CHECK_OK(simple_range_part(lo, hi, kinds[k], bl, np, t, &r));
              CHECK(r.stride >= 1 && r.block >= 1);
              long cnt = 0;
              for (long b0 = r.lo; b0 < r.hi; b0 += r.stride)
                for (long i = b0; i < b0 + r.block && i < r.hi; i++) {
                  CHECK(i >= lo && i < hi);
                  CHECK_EQ(ref_owner(n, np, kinds[k], bl, i - lo), t);
                  seen[i - lo]++;
                  cnt++;
                }
              CHECK_EQ(r.count, cnt);
              CHECK_EQ(cnt, ref_count(n, np, kinds[k], bl, t));
              if (kinds[k] == SIMPLE_BLOCK) CHECK(cnt == 0 || r.hi - r.lo == cnt);
            }
            for (long i = 0; i < n; i++) CHECK_EQ(seen[i], 1);
            free(seen);
          }
  /* Errors; the range is left empty. */
  simple_range_t r;
  CHECK_RC(simple_range_part(0, 10, SIMPLE_BLOCK, 1, 0, 0, &r), SIMPLE_ERR_RANK);
  CHECK_RC(simple_range_part(0, 10, SIMPLE_BLOCK, 1, 4, 4, &r), SIMPLE_ERR_RANK);
  CHECK_RC(simple_range_part(0, 10, SIMPLE_BLOCK, 1, 4, -1, &r), SIMPLE_ERR_RANK);
  CHECK_EQ(r.hi - r.lo, 0);
  CHECK_RC(simple_range_part(0, 10, SIMPLE_BLOCK_CYCLIC, 0, 4, 1, &r), SIMPLE_ERR_ARG);
  CHECK_RC(simple_range_part(0, 10, (simple_kind_t)7, 1, 4, 1, &r), SIMPLE_ERR_ARG);
  CHECK_RC(simple_range_part(0, 10, SIMPLE_BLOCK, 1, 4, 1, NULL), SIMPLE_ERR_ARG);
  CHECK_RC(simple_range_part(-2, 0x7fffffffffffffffL, SIMPLE_BLOCK, 1, 4, 1, &r), SIMPLE_ERR_COUNT);
  CHECK_OK(simple_range_part(5, 2, SIMPLE_CYCLIC, 1, 4, 1, &r)); /* hi < lo: empty */
  CHECK_EQ(r.count, 0);
  CHECK_RC(simple_pardo_range(NULL, 0, 10, SIMPLE_OVER_THREADS, SIMPLE_BLOCK, 1, &r),
           SIMPLE_ERR_NOT_IN_JOB);
  CHECK_RC(simple_pardo_range(s, 0, 10, (simple_over_t)9, SIMPLE_BLOCK, 1, &r), SIMPLE_ERR_ARG);
}

/* The macros: every index of the loop runs on exactly one thread of the
 * job (or of each node), the one the reference names. */
static void check_macros(simple_t *s) {
  int p = simple_nprocs(s), me = simple_pid(s), r = simple_threads(s), t = simple_thread(s);
  static const long lens[] = {0, 3, 10, 37, 200};
  for (size_t a = 0; a < sizeof lens / sizeof *lens; a++) {
    long n = lens[a], lo = -4, hi = lo + n;
    int32_t *mark = calloc((size_t)n + 1, sizeof(int32_t) * 6),
            *sum = calloc((size_t)n + 1, sizeof(int32_t) * 6);
    CHECK(mark && sum);
    int32_t *m0 = mark, *m1 = mark + n, *m2 = mark + 2 * n, *m3 = mark + 3 * n, *m4 = mark + 4 * n,
            *m5 = mark + 5 * n;
    SIMPLE_PARDO(s, i, lo, hi) {
      CHECK_EQ(ref_owner(n, p, SIMPLE_BLOCK, 1, i - lo), me);
      m0[i - lo]++;
    }
    SIMPLE_PARDO_CYCLIC(s, i, lo, hi) {
      CHECK_EQ(ref_owner(n, p, SIMPLE_CYCLIC, 1, i - lo), me);
      m1[i - lo]++;
    }
    SIMPLE_PARDO_BLOCK_CYCLIC(s, i, lo, hi, 3) {
      CHECK_EQ(ref_owner(n, p, SIMPLE_BLOCK_CYCLIC, 3, i - lo), me);
      m2[i - lo]++;
    }
    /* Nested: the inner loop has its own index name. */
    SIMPLE_NODE_PARDO(s, i, lo, hi) {
      CHECK_EQ(ref_owner(n, r, SIMPLE_BLOCK, 1, i - lo), t);
      m3[i - lo]++;
      SIMPLE_NODE_PARDO_CYCLIC(s, j, 0, 2) { (void)j; }
    }
    SIMPLE_NODE_PARDO_CYCLIC(s, i, lo, hi) {
      CHECK_EQ(ref_owner(n, r, SIMPLE_CYCLIC, 1, i - lo), t);
      m4[i - lo]++;
    }
    SIMPLE_NODE_PARDO_BLOCK_CYCLIC(s, i, lo, hi, 2) {
      CHECK_EQ(ref_owner(n, r, SIMPLE_BLOCK_CYCLIC, 2, i - lo), t);
      m5[i - lo]++;
    }
    /* Job loops: summed over the job; node loops: over the node. */
    if (n) {
      CHECK_OK(simple_allreduce(s, mark, sum, 3 * (size_t)n, SIMPLE_INT32, SIMPLE_SUM));
      CHECK_OK(simple_node_allreduce(s, m3, sum + 3 * n, 3 * (size_t)n, SIMPLE_INT32, SIMPLE_SUM));
    }
    for (long i = 0; i < 6 * n; i++) CHECK_EQ(sum[i], 1);
    free(mark);
    free(sum);
  }
}

static void check_control(simple_t *s) {
  int node = simple_node(s), t = simple_thread(s), P = simple_nodes(s), p = simple_nprocs(s);
  int32_t hits[7] = {0}, tot[7];
  SIMPLE_ON_MASTER(s) hits[0]++;
  SIMPLE_ON_NODE_MASTERS(s) hits[1]++;
  SIMPLE_ON_NODE(s, P - 1) hits[2]++;
  SIMPLE_ON_NODE_THREAD(s, 1) hits[3]++;
  SIMPLE_ON_THREAD(s, P - 1, simple_threads_on(s, P - 1) - 1) {
    CHECK_EQ(node, P - 1);
    CHECK_EQ(t, simple_threads(s) - 1);
    hits[4]++;
  }
  SIMPLE_ON_PID(s, p - 1) hits[5]++;
  /* else attaches to the condition. */
  SIMPLE_ON_MASTER(s) { CHECK_EQ(simple_pid(s), 0); }
  else hits[6]++;
  SIMPLE_ON_NODE(s, P) hits[6] += 100; /* nobody */
  CHECK_OK(simple_allreduce(s, hits, tot, 7, SIMPLE_INT32, SIMPLE_SUM));
  int with_two = 0;
  for (int k = 0; k < P; k++) with_two += simple_threads_on(s, k) >= 2;
  CHECK_EQ(tot[0], 1);
  CHECK_EQ(tot[1], P);
  CHECK_EQ(tot[2], simple_threads_on(s, P - 1));
  CHECK_EQ(tot[3], with_two);
  CHECK_EQ(tot[4], 1);
  CHECK_EQ(tot[5], 1);
  CHECK_EQ(tot[6], p - 1);
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  check_ranges(s);
  check_macros(s);
  check_control(s);
  CHECK_OK(simple_barrier(s));
}

TEST_MAIN(test)
