/* simple_nqueens: the count for n = 1..13 under every option combination
 * (dynamic or static partition, with or without mirror symmetry, chosen
 * and explicit depths), checked against a plain serial backtracking solver
 * written here (arrays of used columns and diagonals, no bitmasks); every
 * seed searched exactly once over the job; argument errors. */
#include <inttypes.h>

#include "harness.h"
#include "simple_nqueens.h"

#define MAXN 13

/* The reference: queens placed row by row, a placement checked against
 * three arrays of used lines. */
typedef struct {
  int n, col[MAXN], d1[2 * MAXN], d2[2 * MAXN];
} ref_t;

static uint64_t ref_rows(ref_t *r, int row, int stop) {
  if (row == stop) return 1;
  uint64_t c = 0;
  for (int j = 0; j < r->n; j++) {
    int a = row + j, b = row - j + r->n - 1;
    if (r->col[j] || r->d1[a] || r->d2[b]) continue;
    r->col[j] = r->d1[a] = r->d2[b] = 1;
    c += ref_rows(r, row + 1, stop);
    r->col[j] = r->d1[a] = r->d2[b] = 0;
  }
  return c;
}

/* Placements of the first `rows` rows with no two queens attacking: the
 * solutions when rows = n, the seeds of depth rows otherwise. */
static uint64_t ref_count(int n, int rows) {
  ref_t r;
  memset(&r, 0, sizeof r);
  r.n = n;
  return ref_rows(&r, 0, rows);
}

static void check_one(simple_t *s, int n, const simple_nqueens_opts_t *o, uint64_t want,
                      uint64_t want_seeds) {
  uint64_t got = ~0ull;
  simple_nqueens_info_t info;
  memset(&info, 0xff, sizeof info);
  int rc = simple_nqueens_ex(s, n, o, &got, &info);
  if (rc != 0 || got != want)
    simple_abort(s, "n=%d static=%d symmetry=%d depth=%d: rc=%s count %" PRIu64 ", want %" PRIu64,
                 n, o->static_partition, o->symmetry, o->depth, simple_errname(rc), got, want);
  CHECK(info.depth >= 1 && info.depth <= n);
  if (o->depth && !(o->symmetry && n % 2 == 1 && o->depth == 1)) CHECK_EQ(info.depth, o->depth);
  /* Without symmetry the seeds are all valid placements of depth rows. */
  if (!o->symmetry && want_seeds) {
    if (info.depth == o->depth)
      CHECK_EQ(info.seeds, want_seeds);
    else
      CHECK_EQ(info.seeds, ref_count(n, info.depth));
  }
  /* Every seed searched once, over the whole job. */
  uint64_t explored = 0;
  CHECK_OK(simple_allreduce(s, &info.seeds_explored, &explored, 1, SIMPLE_UINT64, SIMPLE_SUM));
  CHECK_EQ(explored, info.seeds);
  /* Every thread has the same total (and the same depth and seeds). */
  uint64_t v[3] = {got, (uint64_t)info.depth, info.seeds}, mx[3];
  CHECK_OK(simple_allreduce(s, v, mx, 3, SIMPLE_UINT64, SIMPLE_MAX));
  CHECK(mx[0] == got && mx[1] == (uint64_t)info.depth && mx[2] == info.seeds);
}

static void errors(simple_t *s) {
  uint64_t x = 12345;
  simple_nqueens_opts_t o = {0, 0, 0, 0};
  CHECK_RC(simple_nqueens(NULL, 8, &o, &x), SIMPLE_ERR_NOT_IN_JOB);
  CHECK_RC(simple_nqueens(s, 0, &o, &x), SIMPLE_ERR_ARG);
  CHECK_RC(simple_nqueens(s, -3, NULL, &x), SIMPLE_ERR_ARG);
  CHECK_RC(simple_nqueens(s, SIMPLE_NQUEENS_MAX_N + 1, &o, &x), SIMPLE_ERR_ARG);
  CHECK_RC(simple_nqueens(s, 8, &o, NULL), SIMPLE_ERR_NULL);
  simple_nqueens_opts_t b = o;
  b.depth = 9;
  CHECK_RC(simple_nqueens(s, 8, &b, &x), SIMPLE_ERR_ARG);
  b = o;
  b.depth = -1;
  CHECK_RC(simple_nqueens(s, 8, &b, &x), SIMPLE_ERR_ARG);
  b = o;
  b.static_partition = 2;
  CHECK_RC(simple_nqueens(s, 8, &b, &x), SIMPLE_ERR_ARG);
  b = o;
  b.symmetry = -1;
  CHECK_RC(simple_nqueens(s, 8, &b, &x), SIMPLE_ERR_ARG);
  CHECK_EQ(x, 12345); /* never written on failure */
  if (simple_nprocs(s) > 1) {
    int last = simple_pid(s) == simple_nprocs(s) - 1;
    /* One thread with a bad n: it gets ARG, the others PEER. */
    CHECK_RC(simple_nqueens(s, last ? 0 : 8, &o, &x), last ? SIMPLE_ERR_ARG : SIMPLE_ERR_PEER);
    /* Valid but different arguments: ARG everywhere. */
    CHECK_RC(simple_nqueens(s, last ? 7 : 8, &o, &x), SIMPLE_ERR_ARG);
    b = o;
    b.symmetry = last;
    CHECK_RC(simple_nqueens(s, 8, &b, &x), SIMPLE_ERR_ARG);
    b = o;
    b.seed = last ? 7 : 8;
    CHECK_RC(simple_nqueens(s, 8, &b, &x), SIMPLE_ERR_ARG);
    /* One thread's NULL result. */
    CHECK_RC(simple_nqueens(s, 8, &o, last ? NULL : &x), last ? SIMPLE_ERR_NULL : SIMPLE_ERR_PEER);
    CHECK_EQ(x, 12345);
  }
  /* The job still works after the errors. */
  CHECK_OK(simple_nqueens(s, 8, NULL, &x));
  CHECK_EQ(x, ref_count(8, 8));
}

static void body(simple_t *s, void *arg) {
  (void)arg;
  /* The reference counts, computed once on processor 0. */
  uint64_t want[MAXN + 1] = {0};
  if (simple_pid(s) == 0)
    for (int n = 1; n <= MAXN; n++) want[n] = ref_count(n, n);
  CHECK_OK(simple_bcast(s, want, MAXN + 1, SIMPLE_UINT64, 0));

  for (int n = 1; n <= 12; n++)
    for (int st = 0; st <= 1; st++)
      for (int sym = 0; sym <= 1; sym++) {
        simple_nqueens_opts_t o = {st, sym, 0, 0};
        check_one(s, n, &o, want[n], 0);
        /* Explicit depths: one row, two rows, and every row (the seeds are
         * the solutions themselves). */
        int depths[3] = {1, n > 1 ? 2 : 1, n};
        for (int d = 0; d < 3; d++) {
          if (n > 10 && depths[d] == n) continue; /* many seeds, no new case */
          o.depth = depths[d];
          check_one(s, n, &o, want[n], sym ? 0 : ref_count(n, depths[d]));
        }
        /* Another shuffle for the static partition. */
        if (st) {
          simple_nqueens_opts_t o2 = {st, sym, 0, 0x1234567ull + (uint64_t)n};
          check_one(s, n, &o2, want[n], 0);
        }
      }
  for (int st = 0; st <= 1; st++) {
    simple_nqueens_opts_t o = {st, st, 0, 0};
    check_one(s, 13, &o, want[13], 0);
  }
  errors(s);
  if (simple_pid(s) == 0) printf("nqueens: n = 1..13 match the serial reference\n");
}

TEST_MAIN(body)
