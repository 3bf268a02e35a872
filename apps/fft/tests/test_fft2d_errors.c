/* simple_fft2d's argument errors: the documented code on the thread at
 * fault, SIMPLE_ERR_PEER on the others, no hang, no crash, and a good
 * call working afterwards. */
#include <complex.h>

#include "harness.h"
#include "simple_fft.h"

typedef double _Complex cplx;

/* The expected code on this thread when thread `culprit` alone is wrong. */
static int on(simple_t *s, int culprit, int code) {
  return simple_pid(s) == culprit ? code : SIMPLE_ERR_PEER;
}

static void good_call(simple_t *s, long n, long m) {
  long rows;
  CHECK_OK(simple_fft2d_local(s, n, m, 0, &rows, NULL));
  cplx *in = malloc(sizeof(cplx) * (size_t)(rows * m + 1)),
       *out = malloc(sizeof(cplx) * (size_t)(rows * m + 1));
  CHECK(in && out);
  CHECK_OK(simple_fft2d_fill(s, n, m, 0, 3, in));
  simple_fft2d_t *p;
  CHECK_OK(simple_fft2d_plan(s, n, m, SIMPLE_FFT_FORWARD, SIMPLE_FFT_ESTIMATE, &p));
  CHECK_OK(simple_fft2d_execute(s, p, in, out));
  double probe, parseval;
  CHECK_OK(simple_fft2d_check(s, p, in, out, &probe, &parseval));
  CHECK(probe < 1e-10 && parseval < 1e-10);
  simple_fft2d_destroy(p);
  free(in);
  free(out);
}

/* The sentinel fill_sentinel writes, still in out[0, len). */
static void fill_sentinel(cplx *out, size_t len) {
  for (size_t i = 0; i < len; i++) out[i] = (double)i + 0.5 * I;
}
static int sentinel_intact(const cplx *out, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (out[i] != (double)i + 0.5 * I) return 0;
  return 1;
}

/* A failing execute: code `want` on this thread, and out untouched on
 * every thread (the verdict comes before any data moves). */
#define CHECK_FAILS(call, want, out, len) \
  do {                                    \
    fill_sentinel(out, len);              \
    CHECK_RC(call, want);                 \
    CHECK(sentinel_intact(out, len));     \
  } while (0)

/* Executes of an n x m array (every thread has rows of both layouts: n,
 * m >= P): bad arguments on every thread and on one thread, with either
 * output layout; then good calls. */
static void execute_errors(simple_t *s, long n, long m) {
  int P = simple_nprocs(s), last = P - 1;
  const unsigned E = SIMPLE_FFT_ESTIMATE;
  long rows_in, rows_out;
  CHECK_OK(simple_fft2d_local(s, n, m, 0, &rows_in, NULL));
  CHECK_OK(simple_fft2d_local(s, n, m, 1, &rows_out, NULL));
  CHECK(rows_in > 0 && rows_out > 0);
  size_t big = (size_t)((rows_in > rows_out ? rows_in : rows_out) * (n > m ? n : m));
  cplx *a = calloc(big + 1, sizeof(cplx)), *b = calloc(big + 1, sizeof(cplx));
  CHECK(a && b);
  CHECK_OK(simple_fft2d_fill(s, n, m, 0, 5, a));
  simple_fft2d_t *nat, *tr;
  CHECK_OK(simple_fft2d_plan(s, n, m, SIMPLE_FFT_FORWARD, E, &nat));
  CHECK_OK(simple_fft2d_plan(s, n, m, SIMPLE_FFT_FORWARD, E | SIMPLE_FFT_TRANSPOSED_OUT, &tr));
  CHECK_RC(simple_fft2d_execute(NULL, nat, a, b), SIMPLE_ERR_NOT_IN_JOB);
  CHECK_FAILS(simple_fft2d_execute(s, NULL, a, b), SIMPLE_ERR_ARG, b, big);
  for (int k = 0; k < 2; k++) {
    simple_fft2d_t *q = k ? tr : nat;
    CHECK_FAILS(simple_fft2d_execute(s, simple_pid(s) == last ? NULL : q, a, b),
                on(s, last, SIMPLE_ERR_ARG), b, big);
    CHECK_FAILS(simple_fft2d_execute(s, q, simple_pid(s) == 0 ? NULL : a, b),
                on(s, 0, SIMPLE_ERR_NULL), b, big);
    CHECK_FAILS(simple_fft2d_execute(s, q, a, simple_pid(s) == last ? NULL : b),
                on(s, last, SIMPLE_ERR_NULL), b, big);
  }
  /* In place needs the same layouts; overlapping arrays are refused. */
  CHECK_RC(simple_fft2d_execute(s, tr, a, a), SIMPLE_ERR_ARG);
  CHECK_RC(simple_fft2d_execute(s, nat, a, a + 1), SIMPLE_ERR_ARG);
  CHECK_FAILS(simple_fft2d_execute(s, nat, a, simple_pid(s) == 0 ? a + 1 : b),
              on(s, 0, SIMPLE_ERR_ARG), b, big);
  /* Good calls after all that, checked. */
  double probe, parseval;
  CHECK_OK(simple_fft2d_execute(s, nat, a, b));
  CHECK_OK(simple_fft2d_check(s, nat, a, b, &probe, &parseval));
  CHECK(probe < 1e-10 && parseval < 1e-10);
  CHECK_OK(simple_fft2d_execute(s, tr, a, b));
  CHECK_OK(simple_fft2d_check(s, tr, a, b, &probe, &parseval));
  CHECK(probe < 1e-10 && parseval < 1e-10);
  CHECK_OK(simple_fft2d_execute(s, nat, a, a));
  simple_fft2d_destroy(nat);
  simple_fft2d_destroy(tr);
  free(a);
  free(b);
}

static void test_main(simple_t *s, void *arg) {
  (void)arg;
  int P = simple_nprocs(s), last = P - 1;
  const unsigned E = SIMPLE_FFT_ESTIMATE;
  simple_fft2d_t *p = (simple_fft2d_t *)(uintptr_t)1;

  /* Local queries. */
  CHECK_RC(simple_fft2d_local(NULL, 4, 4, 0, NULL, NULL), SIMPLE_ERR_NOT_IN_JOB);
  CHECK_RC(simple_fft2d_local(s, 0, 4, 0, NULL, NULL), SIMPLE_ERR_ARG);
  CHECK_RC(simple_fft2d_local(s, 4, -1, 1, NULL, NULL), SIMPLE_ERR_ARG);
  CHECK_RC(simple_fft2d_fill(s, 0, 4, 0, 1, NULL), SIMPLE_ERR_ARG);
  CHECK_RC(simple_fft2d_fill(s, 4 * P, 4, 0, 1, NULL), SIMPLE_ERR_NULL);
  CHECK_RC(simple_fft2d_plan(NULL, 4, 4, SIMPLE_FFT_FORWARD, E, &p), SIMPLE_ERR_NOT_IN_JOB);
  CHECK_OK(simple_fft2d_destroy(NULL));

  /* Plans: bad arguments everywhere, and on one thread only. */
  CHECK_RC(simple_fft2d_plan(s, 0, 4, SIMPLE_FFT_FORWARD, E, &p), SIMPLE_ERR_ARG);
  CHECK(p == NULL);
  CHECK_RC(simple_fft2d_plan(s, 4, -3, SIMPLE_FFT_FORWARD, E, &p), SIMPLE_ERR_ARG);
  CHECK_RC(simple_fft2d_plan(s, 4, 4, 0, E, &p), SIMPLE_ERR_ARG);
  CHECK_RC(simple_fft2d_plan(s, 4, 4, SIMPLE_FFT_FORWARD, 1u << 20, &p), SIMPLE_ERR_ARG);
  CHECK_RC(simple_fft2d_plan(s, 4, 4, SIMPLE_FFT_FORWARD, E | SIMPLE_FFT_MEASURE, &p),
           SIMPLE_ERR_ARG);
  CHECK_RC(simple_fft2d_plan(s, 4, 4, SIMPLE_FFT_FORWARD, E, NULL), SIMPLE_ERR_NULL);
  CHECK_RC(simple_fft2d_plan(s, 1L << 40, 1L << 30, SIMPLE_FFT_FORWARD, E, &p), SIMPLE_ERR_ARG);
  CHECK_RC(simple_fft2d_plan(s, simple_pid(s) == last ? 0 : 8, 8, SIMPLE_FFT_FORWARD, E, &p),
           on(s, last, SIMPLE_ERR_ARG));
  CHECK_RC(simple_fft2d_plan(s, 8, 8, SIMPLE_FFT_FORWARD, E, simple_pid(s) == 0 ? NULL : &p),
           on(s, 0, SIMPLE_ERR_NULL));
  if (P > 1) {
    /* Valid on every thread, but not the same: the same verdict for all. */
    CHECK_RC(simple_fft2d_plan(s, simple_pid(s) == last ? 9 : 8, 8, SIMPLE_FFT_FORWARD, E, &p),
             SIMPLE_ERR_ARG);
    CHECK_RC(simple_fft2d_plan(
                 s, 8, 8, simple_pid(s) == 0 ? SIMPLE_FFT_BACKWARD : SIMPLE_FFT_FORWARD, E, &p),
             SIMPLE_ERR_ARG);
    CHECK_RC(simple_fft2d_plan(s, 8, 8, SIMPLE_FFT_FORWARD,
                               E | (simple_pid(s) == 0 ? SIMPLE_FFT_TRANSPOSED_OUT : 0u), &p),
             SIMPLE_ERR_ARG);
  }
  CHECK(p == NULL);

  /* Executes: a small array, and one of more than 1 MiB per thread (the
   * first pass then writes out after a verdict of its own). */
  execute_errors(s, 2L * P + 1, 3L * P);
  execute_errors(s, 64L * P + 1, 1024);

  /* The checks, on arrays of their own. */
  long n = 2L * P + 1, m = 3L * P, rows_in;
  CHECK_OK(simple_fft2d_local(s, n, m, 0, &rows_in, NULL));
  cplx *a = calloc((size_t)(rows_in * m), sizeof(cplx)),
       *b = calloc((size_t)(rows_in * m), sizeof(cplx));
  CHECK(a && b);
  simple_fft2d_t *nat;
  CHECK_OK(simple_fft2d_plan(s, n, m, SIMPLE_FFT_FORWARD, E, &nat));
  CHECK_OK(simple_fft2d_execute(s, nat, a, b));

  /* Checks. */
  double e1, e2;
  CHECK_RC(simple_fft2d_check(s, NULL, a, b, &e1, &e2), SIMPLE_ERR_ARG);
  CHECK_RC(simple_fft2d_check(s, nat, simple_pid(s) == 0 ? NULL : a, b, &e1, &e2),
           on(s, 0, SIMPLE_ERR_NULL));
  CHECK_RC(simple_fft2d_relerr(s, a, b, 4, NULL), SIMPLE_ERR_NULL);
  CHECK_RC(simple_fft2d_relerr(s, simple_pid(s) == last ? NULL : a, b, 4, &e1),
           on(s, last, SIMPLE_ERR_NULL));
  CHECK_OK(simple_fft2d_relerr(s, a, a, 4, &e1));
  CHECK(e1 == 0);
  simple_fft2d_destroy(nat);
  free(a);
  free(b);

  /* Nothing is left broken. */
  good_call(s, 9, 14);
}

TEST_MAIN(test_main)
