/* Cannon's multiply (simple_matmul_cannon) against a serial dgemm of the
 * gathered matrices: both variants, both one-sided backends, several block
 * sizes; the argument errors; the checksum test of simple-matmul, which
 * must pass on the right product and fail on a wrong one. Layouts with a
 * processor count that is not a square check the error every processor
 * gets. */
#include <cblas.h>
#include <math.h>

#include "harness.h"
#include "simple_matmul.h"

/* The test's own matrices (not the library's generator): an LCG hash of
 * the coordinates, in [-1, 1). */
static double gen(int which, long i, long j) {
  uint64_t x = (uint64_t)(which * 1000003L + i) * 6364136223846793005ull +
               (uint64_t)j * 1442695040888963407ull;
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 32;
  return (double)(x >> 11) * 0x1.0p-52 - 1.0;
}

static void fill(long nb, int q, int pid, int which, double *blk) {
  long r0 = (pid / q) * nb, c0 = (pid % q) * nb;
  for (long r = 0; r < nb; r++)
    for (long c = 0; c < nb; c++) blk[r * nb + c] = gen(which, r0 + r, c0 + c);
}

/* One multiply of order n = nb q, checked at processor 0 against a serial
 * dgemm of the whole matrices (relative Frobenius error < 1e-12). */
static void check_product(simple_t *s, int q, long nb, simple_matmul_variant_t v) {
  int pid = simple_pid(s), p = simple_nprocs(s);
  long n = nb * q;
  size_t nb2 = (size_t)(nb * nb);
  double *a = malloc(nb2 * sizeof *a), *b = malloc(nb2 * sizeof *b), *c = malloc(nb2 * sizeof *c);
  CHECK(a && b && c);
  fill(nb, q, pid, 1, a);
  fill(nb, q, pid, 2, b);
  for (size_t k = 0; k < nb2; k++) c[k] = NAN; /* overwritten, never read */
  CHECK_OK(simple_matmul_cannon(s, n, a, b, c, v));
  /* a and b unchanged. */
  double *t = calloc(nb2, sizeof *t);
  CHECK(t);
  fill(nb, q, pid, 1, t);
  CHECK(memcmp(t, a, nb2 * sizeof *t) == 0);
  fill(nb, q, pid, 2, t);
  CHECK(memcmp(t, b, nb2 * sizeof *t) == 0);
  free(t);
  double *all = pid == 0 ? malloc((size_t)p * nb2 * sizeof *all) : NULL;
  CHECK(pid != 0 || all);
  CHECK_OK(simple_gather(s, c, all, nb2, SIMPLE_DOUBLE, 0));
  if (pid == 0) {
    size_t nn = (size_t)(n * n);
    double *A = malloc(nn * sizeof *A), *B = malloc(nn * sizeof *B), *R = malloc(nn * sizeof *R);
    CHECK(A && B && R);
    for (long i = 0; i < n; i++)
      for (long j = 0; j < n; j++) {
        A[i * n + j] = gen(1, i, j);
        B[i * n + j] = gen(2, i, j);
      }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0, A, (int)n,
                B, (int)n, 0.0, R, (int)n);
    double num = 0, den = 0;
    for (int w = 0; w < p; w++)
      for (long r = 0; r < nb; r++)
        for (long cc = 0; cc < nb; cc++) {
          double ref = R[((w / q) * nb + r) * n + (w % q) * nb + cc];
          double got = all[(size_t)w * nb2 + (size_t)(r * nb + cc)];
          num += (got - ref) * (got - ref);
          den += ref * ref;
        }
    double rel = sqrt(num / den);
    if (!(rel < 1e-12))
      simple_abort(s, "n = %ld, variant %s, backend %d: relative error %.3e", n,
                   simple_matmul_variant_name(v), simple_rma_backend(s), rel);
    free(A);
    free(B);
    free(R);
  }
  free(all);
  free(a);
  free(b);
  free(c);
}

static void test_errors(simple_t *s, int q) {
  double x[4] = {0}, y[4] = {0}, z[4] = {0};
  int pid = simple_pid(s);
  CHECK_RC(simple_matmul_cannon(s, 0, x, y, z, SIMPLE_MATMUL_PUT), SIMPLE_ERR_ARG);
  CHECK_RC(simple_matmul_cannon(s, -q, x, y, z, SIMPLE_MATMUL_GET), SIMPLE_ERR_ARG);
  if (q > 1) CHECK_RC(simple_matmul_cannon(s, q + 1, x, y, z, SIMPLE_MATMUL_PUT), SIMPLE_ERR_ARG);
  CHECK_RC(simple_matmul_cannon(s, q, x, y, z, (simple_matmul_variant_t)7), SIMPLE_ERR_ARG);
  CHECK_RC(simple_matmul_cannon(s, q, NULL, y, z, SIMPLE_MATMUL_PUT), SIMPLE_ERR_NULL);
  CHECK_RC(simple_matmul_cannon(s, q, x, y, NULL, SIMPLE_MATMUL_GET), SIMPLE_ERR_NULL);
  /* One processor's NULL: the error everywhere. */
  CHECK_RC(simple_matmul_cannon(s, q, pid == 0 ? NULL : x, y, z, SIMPLE_MATMUL_PUT),
           SIMPLE_ERR_NULL);
  /* n or variant different among processors. */
  if (simple_nprocs(s) > 1) {
    CHECK_RC(simple_matmul_cannon(s, pid == 0 ? 2 * q : q, x, y, z, SIMPLE_MATMUL_PUT),
             SIMPLE_ERR_ARG);
    CHECK_RC(simple_matmul_cannon(s, q, x, y, z, pid == 0 ? SIMPLE_MATMUL_GET : SIMPLE_MATMUL_PUT),
             SIMPLE_ERR_ARG);
  }
  int g;
  CHECK_RC(simple_matmul_grid(s, NULL), SIMPLE_ERR_NULL);
  CHECK_OK(simple_matmul_grid(s, &g));
  CHECK_EQ(g, q);
}

/* The checksum test: tiny on the right product, large on a wrong one. */
static void test_checksum(simple_t *s, int q) {
  long nb = 6, n = nb * q;
  size_t nb2 = (size_t)(nb * nb);
  double *a = malloc(nb2 * sizeof *a), *b = malloc(nb2 * sizeof *b), *c = malloc(nb2 * sizeof *c);
  CHECK(a && b && c);
  CHECK_OK(simple_matmul_fill(s, n, n - 1, 7, a)); /* last row and column zero */
  CHECK_OK(simple_matmul_fill(s, n, n, 8, b));
  int pid = simple_pid(s);
  if (pid == simple_nprocs(s) - 1) {
    CHECK(a[nb2 - 1] == 0.0);
    CHECK(a[nb - 1] == 0.0);
  }
  CHECK(a[0] == simple_matmul_elem(7, n - 1, (pid / q) * nb, (pid % q) * nb));
  CHECK_OK(simple_matmul_cannon(s, n, a, b, c, SIMPLE_MATMUL_GET));
  double e = 1;
  CHECK_OK(simple_matmul_checksum(s, n, a, b, c, 3, &e));
  CHECK(e < 1e-13);
  if (pid == 0) c[1] += 1e-6;
  CHECK_OK(simple_matmul_checksum(s, n, a, b, c, 3, &e));
  CHECK(e > 1e-10);
  CHECK_RC(simple_matmul_checksum(s, n, a, b, NULL, 3, &e), SIMPLE_ERR_NULL);
  CHECK_RC(simple_matmul_checksum(s, 0, a, b, c, 3, &e), SIMPLE_ERR_ARG);
  free(a);
  free(b);
  free(c);
}

static void body(simple_t *s, void *arg) {
  (void)arg;
  int q = -1, p = simple_nprocs(s);
  int rc = simple_matmul_grid(s, &q);
  int root = 0;
  while ((root + 1) * (root + 1) <= p) root++;
  if (root * root != p) {
    /* Not a square: the clear error, on every processor. */
    CHECK_EQ(rc, SIMPLE_ERR_ARG);
    CHECK_EQ(q, 0);
    double x[1] = {0}, y[1] = {0}, z[1] = {0};
    CHECK_RC(simple_matmul_cannon(s, 4, x, y, z, SIMPLE_MATMUL_PUT), SIMPLE_ERR_ARG);
    CHECK_RC(simple_matmul_cannon(s, 4, x, y, z, SIMPLE_MATMUL_GET), SIMPLE_ERR_ARG);
    CHECK_OK(simple_barrier(s));
    return;
  }
  CHECK_OK(rc);
  CHECK_EQ(q, root);
  test_errors(s, q);
  static const long nbs[] = {1, 3, 8, 17};
  static const int backends[] = {SIMPLE_RMA_TWOSIDED, SIMPLE_RMA_ONESIDED};
  for (int bk = 0; bk < 2; bk++) {
    CHECK_OK(simple_rma_set_backend(s, backends[bk]));
    for (size_t k = 0; k < sizeof nbs / sizeof *nbs; k++) {
      check_product(s, q, nbs[k], SIMPLE_MATMUL_PUT);
      check_product(s, q, nbs[k], SIMPLE_MATMUL_GET);
    }
  }
  /* The errors again, after multiplies: the layer's state is fine. */
  test_errors(s, q);
  test_checksum(s, q);
  CHECK_OK(simple_rma_set_backend(s, SIMPLE_RMA_TWOSIDED));
  check_product(s, q, 5, SIMPLE_MATMUL_PUT);
}

TEST_MAIN(body)
