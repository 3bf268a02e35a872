/* User-defined ops: a non-commutative one is applied in thread order by
 * allreduce and scan. The op composes affine maps x -> a x + b, each stored
 * as one double complex a + b i: applying (a1, b1) then (a2, b2) gives
 * (a1 a2, a2 b1 + b2), associative but not commutative. */
#include "harness.h"

static void compose(void *acc, const void *in, size_t n, simple_type_t type, void *ctx) {
  (void)type;
  double _Complex *x = acc;
  const double _Complex *y = in;
  int *calls = ctx;
  __atomic_fetch_add(calls, 1, __ATOMIC_RELAXED);
  for (size_t i = 0; i < n; i++)
    x[i] = creal(x[i]) * creal(y[i]) + (creal(y[i]) * cimag(x[i]) + cimag(y[i])) * I;
}

/* Thread p's map for element i: small integers, so every result is exact. */
static double _Complex input(int p, size_t i) {
  double a = (p + (int)(i % 3)) % 3 == 0 ? 2.0 : ((p + (int)i) % 2 ? -1.0 : 1.0);
  double b = (double)((p * 5 + (int)(i % 7)) % 9) - 4.0;
  return a + b * I;
}

static double _Complex expected(int last, size_t i) {
  double a = 1, b = 0;
  for (int p = 0; p <= last; p++) {
    double _Complex y = input(p, i);
    b = creal(y) * b + cimag(y);
    a = a * creal(y);
  }
  return a + b * I;
}

static simple_op_t op;
static int calls;

static void test(simple_t *s, void *arg) {
  (void)arg;
  int me = simple_thread(s), r = simple_threads(s);
  enum { N = 700 };
  if (me == 0) CHECK_OK(simple_op_create(compose, &calls, &op));
  CHECK_OK(simple_node_barrier(s));
  CHECK(strcmp(simple_op_name(op), "user") == 0);
  double _Complex *in = malloc(sizeof(double _Complex) * N);
  double _Complex *out = malloc(sizeof(double _Complex) * N);
  for (size_t i = 0; i < N; i++) in[i] = input(me, i);

  CHECK_OK(simple_node_allreduce(s, in, out, N, SIMPLE_DOUBLE_COMPLEX, op));
  for (size_t i = 0; i < N; i++) CHECK(out[i] == expected(r - 1, i));
  CHECK_OK(simple_node_scan(s, in, out, N, SIMPLE_DOUBLE_COMPLEX, op));
  for (size_t i = 0; i < N; i++) CHECK(out[i] == expected(me, i));
  CHECK_OK(simple_node_barrier(s));
  if (r > 1) CHECK(__atomic_load_n(&calls, __ATOMIC_RELAXED) > 0);
  free(in);
  free(out);
  CHECK_OK(simple_node_barrier(s));
  if (me == 0) {
    CHECK_OK(simple_op_free(op));
    CHECK_RC(simple_op_free(op), SIMPLE_ERR_OP);
    CHECK_RC(simple_op_create(NULL, NULL, &op), SIMPLE_ERR_ARG);
  }
}

TEST_MAIN(test)
