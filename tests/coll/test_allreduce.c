/* simple_allreduce: every type, op and count, in place and not, against a
 * serial reference over all pids; a non-commutative user op in rank order. */
#include "reduce_check.h"

/* Affine maps x -> a x + b as a + b i, composed in rank order (see
 * tests/node/test_userop.c): associative, not commutative. */
static void compose(void *acc, const void *in, size_t n, simple_type_t type, void *ctx) {
  (void)type;
  (void)ctx;
  double _Complex *x = acc;
  const double _Complex *y = in;
  for (size_t i = 0; i < n; i++)
    x[i] = creal(x[i]) * creal(y[i]) + (creal(y[i]) * cimag(x[i]) + cimag(y[i])) * I;
}

static double _Complex map_of(int p, size_t i) {
  double a = (p + (int)(i % 3)) % 3 == 0 ? 2.0 : ((p + (int)i) % 2 ? -1.0 : 1.0);
  return a + (double)((p * 5 + (int)(i % 7)) % 9 - 4) * I;
}

static simple_op_t user_op;

static void test(simple_t *s, void *arg) {
  (void)arg;
  reduce_all(s, 0);

  if (simple_thread(s) == 0 && simple_node(s) == 0)
    CHECK_OK(simple_op_create(compose, NULL, &user_op));
  /* Ops are created in the same order on every node, so node 0's value is
   * the value everywhere; the other nodes create theirs too. */
  if (simple_thread(s) == 0 && simple_node(s) != 0)
    CHECK_OK(simple_op_create(compose, NULL, &user_op));
  CHECK_OK(simple_barrier(s));
  int p = simple_nprocs(s), me = simple_pid(s);
  static const size_t counts[] = {3, 20000};
  for (size_t c = 0; c < 2; c++) {
    size_t n = counts[c];
    double _Complex *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    for (size_t i = 0; i < n; i++) in[i] = map_of(me, i);
    CHECK_OK(simple_allreduce(s, in, out, n, SIMPLE_DOUBLE_COMPLEX, user_op));
    for (size_t i = 0; i < n; i++) {
      double a = 1, b = 0;
      for (int q = 0; q < p; q++) {
        double _Complex y = map_of(q, i);
        b = creal(y) * b + cimag(y);
        a *= creal(y);
      }
      if (out[i] != a + b * I) simple_abort(s, "user op: count %zu element %zu wrong", n, i);
    }
    free(in);
    free(out);
  }

  /* The last thread of every node passes no send buffer with a count that
   * the others reduce by the large path: it gets SIMPLE_ERR_NULL, the rest
   * of its node SIMPLE_ERR_PEER, and no node hangs. */
  size_t big = 20000;
  double *in = calloc(big, sizeof *in), *out = calloc(big, sizeof *out);
  CHECK(in && out);
  int bad = simple_thread(s) == simple_threads(s) - 1;
  CHECK_RC(simple_allreduce(s, bad ? NULL : in, out, big, SIMPLE_DOUBLE, SIMPLE_SUM),
           bad ? SIMPLE_ERR_NULL : SIMPLE_ERR_PEER);
  /* Nothing is left half done: the next call works. */
  for (size_t i = 0; i < big; i++) in[i] = 1.0;
  CHECK_OK(simple_allreduce(s, in, out, big, SIMPLE_DOUBLE, SIMPLE_SUM));
  for (size_t i = 0; i < big; i++) CHECK(out[i] == (double)p);
  free(in);
  free(out);
}

TEST_MAIN(test)
