/* simple_cholesky on every layout: several orders and block sizes (blocks
 * that do not divide n, one block, blocks of 1), the residual of the solve
 * under 1e-12; an indefinite matrix names its first non-positive pivot,
 * found here independently by an unblocked Cholesky of the same matrix;
 * bad arguments refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "simple_cholesky.h"

/* The first pivot (0-based) at which an unblocked Cholesky of the
 * generated matrix fails, -1 if none. */
static long first_bad_pivot(int n, double shift) {
  double *a = malloc(sizeof(double) * n * n);
  long bad = -1;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) a[i * n + j] = simple_cholesky_entry(n, shift, i, j);
  for (int j = 0; j < n && bad < 0; j++) {
    double d = a[j * n + j];
    for (int k = 0; k < j; k++) d -= a[j * n + k] * a[j * n + k];
    if (!(d > 0)) {
      bad = j;
      break;
    }
    d = sqrt(d);
    a[j * n + j] = d;
    for (int i = j + 1; i < n; i++) {
      double t = a[i * n + j];
      for (int k = 0; k < j; k++) t -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = t / d;
    }
  }
  free(a);
  return bad;
}

/* The messages that carry a finished block to another node in the dense
 * fan-out, from the documented method alone: one per block of L and node,
 * other than its owner's, where some thread reads the block. Block (x, y)
 * goes to thread (x mod pr) pc + (y mod pc) of the most square pr x pc
 * grid; it reads L(x,k) and L(y,k) for every k < y, and L(y,y) when x > y. */
static long dense_pushes(simple_t *s, int n, int nb) {
  int p = simple_nprocs(s), P = simple_nodes(s), pr = 1, N = (n + nb - 1) / nb;
  for (int d = 1; d * d <= p; d++)
    if (p % d == 0) pr = d;
  int pc = p / pr;
  char *reads = malloc((size_t)P);
  long total = 0;
  for (int i = 0; i < N; i++)
    for (int k = 0; k <= i; k++) {
      memset(reads, 0, (size_t)P);
      for (int x = 0; x < N; x++)
        for (int y = 0; y <= x; y++) {
          int uses =
              (x == i && k < y && y <= x) || (y == i && k < y) || (i == k && y == k && x > y);
          if (uses) reads[simple_node_of(s, (x % pr) * pc + y % pc)] = 1;
        }
      int home = simple_node_of(s, (i % pr) * pc + k % pc);
      for (int q = 0; q < P; q++) total += q != home && reads[q];
    }
  free(reads);
  return total;
}

static void spmd(simple_t *s, void *arg) {
  (void)arg;
  int cases[][2] = {{1, 1}, {37, 8}, {100, 16}, {64, 64}, {20, 1}, {150, 32}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    simple_cholesky_opts_t o = {cases[k][0], cases[k][1], 0, NULL};
    simple_cholesky_result_t r;
    CHECK_OK(simple_cholesky(s, &o, &r));
    CHECK_EQ(r.pivot, -1);
    if (!(r.residual < 1e-12)) simple_abort(s, "n %d nb %d: residual %g", o.n, o.nb, r.residual);
    /* A block crosses to a node once, however many of its threads read it. */
    CHECK_EQ(r.pushed_blocks, dense_pushes(s, o.n, o.nb));
  }
  /* Indefinite: the diagonal shifted down just enough that a pivot past
   * the first block fails (the Schur complements shrink along the
   * diagonal, so the first shift that fails at all fails late). */
  simple_cholesky_opts_t o = {60, 8, -60 / 2.0, NULL};
  long want = -1;
  while (want < 0) {
    o.shift -= 0.01;
    want = first_bad_pivot(o.n, o.shift);
  }
  CHECK(want >= 8);
  simple_cholesky_result_t r;
  CHECK_RC(simple_cholesky(s, &o, &r), SIMPLE_ERR_ARG);
  CHECK_EQ(r.pivot, want);
  /* The paper's sparse matrix, BCSSTK15, ordered by METIS. */
  o = (simple_cholesky_opts_t){0, 32, 0, "/work/shared/data/bcsstk15.mtx"};
  if (fopen(o.matrix, "r")) {
    CHECK_OK(simple_cholesky(s, &o, &r));
    CHECK_EQ(r.n, 3948);
    if (!(r.residual < 1e-12)) simple_abort(s, "bcsstk15: residual %g", r.residual);
  }
  /* Two copies of the 5-point Laplacian on a 12 x 12 grid, not coupled
   * (two components of equal work): residual under 1e-12, and on two
   * nodes each component stays on its node, so no block is read on the
   * other one. */
  char twin[64];
  snprintf(twin, sizeof twin, "/tmp/simple_chol_%d_t.mtx", (int)getppid());
  if (simple_thread(s) == 0) { /* every node: the nodes may not share /tmp */
    FILE *f = fopen(twin, "w");
    int g = 12, nn = 2 * g * g;
    fprintf(f, "%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n", nn, nn,
            2 * (g * g + 2 * g * (g - 1)));
    for (int c = 0; c < 2; c++)
      for (int y = 0; y < g; y++)
        for (int x = 0; x < g; x++) {
          int v = c * g * g + y * g + x + 1;
          fprintf(f, "%d %d 4\n", v, v);
          if (x > 0) fprintf(f, "%d %d -1\n", v, v - 1);
          if (y > 0) fprintf(f, "%d %d -1\n", v, v - g);
        }
    fclose(f);
  }
  CHECK_OK(simple_barrier(s));
  for (int nb = 1; nb <= 64; nb *= 4) {
    o = (simple_cholesky_opts_t){0, nb, 0, twin};
    CHECK_OK(simple_cholesky(s, &o, &r));
    CHECK_EQ(r.n, 288);
    if (!(r.residual < 1e-12)) simple_abort(s, "two grids, nb %d: residual %g", nb, r.residual);
    if (simple_nodes(s) <= 2) CHECK_EQ(r.remote_blocks, 0);
  }
  CHECK_OK(simple_barrier(s));
  if (simple_thread(s) == 0) remove(twin);
  /* Small files written here: an indefinite one (diagonal 1, 2, -3, 4, 5
   * with one coupling: row 2, 0-based, fails whatever the ordering), a
   * malformed one, a non-symmetric one. */
  char bad_spd[64], broken[64], general[64];
  snprintf(bad_spd, sizeof bad_spd, "/tmp/simple_chol_%d_a.mtx", (int)getppid());
  snprintf(broken, sizeof broken, "/tmp/simple_chol_%d_b.mtx", (int)getppid());
  snprintf(general, sizeof general, "/tmp/simple_chol_%d_c.mtx", (int)getppid());
  if (simple_thread(s) == 0) {
    FILE *f = fopen(bad_spd, "w");
    fprintf(f,
            "%%%%MatrixMarket matrix coordinate real symmetric\n5 5 6\n1 1 1\n2 1 0.1\n2 2 "
            "2\n3 3 -3\n4 4 4\n5 5 5\n");
    fclose(f);
    f = fopen(broken, "w");
    fprintf(f, "%%%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n2 2 x\n3 3 1\n");
    fclose(f);
    f = fopen(general, "w");
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n");
    fclose(f);
  }
  CHECK_OK(simple_barrier(s));
  o = (simple_cholesky_opts_t){0, 2, 0, bad_spd};
  CHECK_RC(simple_cholesky(s, &o, &r), SIMPLE_ERR_ARG);
  CHECK_EQ(r.pivot, 2);
  o.matrix = broken;
  CHECK_RC(simple_cholesky(s, &o, &r), SIMPLE_ERR_ARG);
  CHECK(strstr(r.error, "line 4: expected 'row column value'") != NULL);
  CHECK_EQ(r.pivot, -1);
  o.matrix = general;
  CHECK_RC(simple_cholesky(s, &o, &r), SIMPLE_ERR_ARG);
  CHECK(strstr(r.error, "symmetric") != NULL);
  o.matrix = "/nonexistent/matrix.mtx";
  CHECK_RC(simple_cholesky(s, &o, &r), SIMPLE_ERR_ARG);
  CHECK(strstr(r.error, "cannot open") != NULL);
  CHECK_OK(simple_barrier(s));
  if (simple_thread(s) == 0) remove(bad_spd), remove(broken), remove(general);
  o = (simple_cholesky_opts_t){-5, 8, 0, NULL};
  CHECK_RC(simple_cholesky(s, &o, &r), SIMPLE_ERR_ARG);
  CHECK_EQ(r.pivot, -1);
  CHECK_RC(simple_cholesky(s, &o, NULL), SIMPLE_ERR_NULL);
}

TEST_MAIN(spmd)
