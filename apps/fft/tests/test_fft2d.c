/* simple_fft2d against FFTW's serial 2D transform of the gathered array
 * (a different FFTW code path: one 2D plan, no transposes of ours), and
 * against the direct sums and Parseval (simple_fft2d_check), for sizes
 * that are powers of two or not, divisible by the thread count or not,
 * smaller than it (threads without rows), n != m, both directions, every
 * input and output layout, normalized, in place, and the round trip. */
#include <complex.h>
#include <math.h>

#include <fftw3.h>

#include "harness.h"
#include "simple_fft.h"

typedef double _Complex cplx;

#define TOL 1e-10

/* Gathers the r x c array distributed by rows over the job into `all` at
 * processor 0 (rank order is row order for a block distribution). */
static void gather(simple_t *s, const cplx *local, long rows, long c, cplx *all) {
  int P = simple_nprocs(s);
  long mine = rows, *cnt = simple_pid(s) == 0 ? malloc(sizeof(long) * (size_t)P) : NULL;
  size_t *counts = simple_pid(s) == 0 ? malloc(sizeof(size_t) * 2 * (size_t)P) : NULL;
  CHECK_OK(simple_gather(s, &mine, cnt, 1, SIMPLE_INT64, 0));
  if (simple_pid(s) == 0) {
    size_t at = 0;
    for (int q = 0; q < P; q++) {
      counts[q] = (size_t)(cnt[q] * c);
      counts[P + q] = at;
      at += counts[q];
    }
  }
  CHECK_OK(simple_gatherv(s, local, (size_t)(rows * c), all, counts, counts ? counts + P : NULL,
                          SIMPLE_DOUBLE_COMPLEX, 0));
  free(cnt);
  free(counts);
}

/* One transform of test array `seed` with the given flags, checked. */
static void one(simple_t *s, long n, long m, int sign, unsigned flags, int inplace, uint64_t seed) {
  int me = simple_pid(s);
  int tin = (flags & SIMPLE_FFT_TRANSPOSED_IN) != 0,
      tout = (flags & SIMPLE_FFT_TRANSPOSED_OUT) != 0;
  long in_rows, in_lo, out_rows, out_lo;
  CHECK_OK(simple_fft2d_local(s, n, m, tin, &in_rows, &in_lo));
  CHECK_OK(simple_fft2d_local(s, n, m, tout, &out_rows, &out_lo));
  long in_cols = tin ? n : m, out_cols = tout ? n : m;
  size_t in_len = (size_t)(in_rows * in_cols), out_len = (size_t)(out_rows * out_cols);
  cplx *in = malloc(sizeof(cplx) * (in_len + 1)), *orig = malloc(sizeof(cplx) * (in_len + 1));
  cplx *out = malloc(sizeof(cplx) * (out_len + 1));
  CHECK(in && orig && out);
  CHECK_OK(simple_fft2d_fill(s, n, m, tin, seed, in));
  memcpy(orig, in, sizeof(cplx) * in_len);
  /* Output poisoned, so that an element left unwritten shows. */
  for (size_t i = 0; i < out_len; i++) out[i] = NAN;

  simple_fft2d_t *p = NULL;
  CHECK_OK(simple_fft2d_plan(s, n, m, sign, flags, &p));
  CHECK(p != NULL);
  if (inplace) {
    CHECK(tin == tout);
    memcpy(out, in, sizeof(cplx) * in_len);
    CHECK_OK(simple_fft2d_execute(s, p, out, out));
  } else {
    CHECK_OK(simple_fft2d_execute(s, p, in, out));
    /* The input is kept. */
    CHECK(memcmp(in, orig, sizeof(cplx) * in_len) == 0);
  }

  /* The serial reference, on the natural n x m input. */
  cplx *x = NULL, *y = NULL, *ref = NULL;
  if (me == 0) {
    x = fftw_malloc(sizeof(cplx) * (size_t)(n * m));
    y = fftw_malloc(sizeof(cplx) * (size_t)(n * m));
    ref = fftw_malloc(sizeof(cplx) * (size_t)(n * m));
    CHECK(x && y && ref);
  }
  gather(s, orig, in_rows, in_cols, x);
  gather(s, out, out_rows, out_cols, y);
  double err = 0;
  if (me == 0) {
    cplx *nat = x;
    if (tin) { /* x holds m x n: the input's transpose */
      nat = fftw_malloc(sizeof(cplx) * (size_t)(n * m));
      CHECK(nat);
      for (long i = 0; i < n; i++)
        for (long j = 0; j < m; j++) nat[i * m + j] = x[j * n + i];
    }
    simple_fft_lock();
    fftw_plan f = fftw_plan_dft_2d((int)n, (int)m, (fftw_complex *)nat, (fftw_complex *)ref, sign,
                                   FFTW_ESTIMATE);
    simple_fft_unlock();
    CHECK(f != NULL);
    fftw_execute(f);
    simple_fft_lock();
    fftw_destroy_plan(f);
    simple_fft_unlock();
    double scale = flags & SIMPLE_FFT_NORMALIZE ? 1.0 / ((double)n * (double)m) : 1.0;
    double emax = 0, rmax = 0;
    for (long i = 0; i < n; i++)
      for (long j = 0; j < m; j++) {
        cplx r = ref[i * m + j] * scale, g = tout ? y[j * n + i] : y[i * m + j];
        double e = cabs(g - r);
        if (!(e <= emax)) emax = e;
        if (cabs(r) > rmax) rmax = cabs(r);
      }
    err = emax / rmax;
    if (nat != x) fftw_free(nat);
    if (!(err < TOL))
      simple_abort(s, "%ld x %ld sign %d flags %#x inplace %d: error %.3e against serial FFTW", n,
                   m, sign, flags, inplace, err);
  }
  fftw_free(x);
  fftw_free(y);
  fftw_free(ref);

  /* The direct sums and Parseval: independent of FFTW. */
  double probe = 1, parseval = 1;
  CHECK_OK(simple_fft2d_check(s, p, orig, out, &probe, &parseval));
  if (!(probe < TOL) || !(parseval < TOL))
    simple_abort(s, "%ld x %ld flags %#x: probe error %.3e, Parseval error %.3e", n, m, flags,
                 probe, parseval);

  /* The round trip: the opposite direction, normalized, with the layouts
   * swapped, gives the input back. */
  unsigned back_flags = SIMPLE_FFT_ESTIMATE | SIMPLE_FFT_NORMALIZE |
                        (tout ? SIMPLE_FFT_TRANSPOSED_IN : 0) |
                        (tin ? SIMPLE_FFT_TRANSPOSED_OUT : 0);
  cplx *back = malloc(sizeof(cplx) * (in_len + 1));
  CHECK(back);
  CHECK_OK(simple_fft2d(s, n, m, -sign, back_flags, out, back));
  double rt = 1;
  CHECK_OK(simple_fft2d_relerr(s, back, orig, in_len, &rt));
  double want = flags & SIMPLE_FFT_NORMALIZE ? 1.0 / ((double)n * (double)m) : 1.0;
  if (want != 1.0) {
    /* A normalized forward and a normalized backward divide twice. */
    for (size_t i = 0; i < in_len; i++) back[i] *= (double)n * (double)m;
    CHECK_OK(simple_fft2d_relerr(s, back, orig, in_len, &rt));
  }
  if (!(rt < TOL)) simple_abort(s, "%ld x %ld flags %#x: round trip error %.3e", n, m, flags, rt);

  CHECK_OK(simple_fft2d_destroy(p));
  free(in);
  free(orig);
  free(out);
  free(back);
}

static void test_main(simple_t *s, void *arg) {
  (void)arg;
  static const long sizes[][2] = {{1, 1},   {1, 5},   {6, 1},   {2, 3},   {7, 5},   {8, 8},
                                  {12, 10}, {17, 31}, {30, 64}, {64, 48}, {100, 33}};
  const unsigned E = SIMPLE_FFT_ESTIMATE;
  /* And blocks of columns 256 wide (the widest; some 255), whose rows
   * the transform spaces further apart than they are wide, for input rows
   * of either length. */
  long P = simple_nprocs(s), wide[][2] = {{12, 256 * P - 1}, {256 * P - 1, 12}, {8, 256 * P}};
  size_t nsizes = sizeof sizes / sizeof *sizes, nwide = sizeof wide / sizeof *wide;
  for (size_t k = 0; k < nsizes + nwide; k++) {
    long n = k < nsizes ? sizes[k][0] : wide[k - nsizes][0],
         m = k < nsizes ? sizes[k][1] : wide[k - nsizes][1];
    uint64_t seed = 100 + k;
    one(s, n, m, SIMPLE_FFT_FORWARD, E, 0, seed);
    one(s, n, m, SIMPLE_FFT_FORWARD, E | SIMPLE_FFT_TRANSPOSED_OUT, 0, seed);
    one(s, n, m, SIMPLE_FFT_BACKWARD, E | SIMPLE_FFT_TRANSPOSED_IN, 0, seed);
    one(s, n, m, SIMPLE_FFT_BACKWARD,
        E | SIMPLE_FFT_TRANSPOSED_IN | SIMPLE_FFT_TRANSPOSED_OUT | SIMPLE_FFT_NORMALIZE, 0, seed);
    one(s, n, m, SIMPLE_FFT_FORWARD, E, 1, seed);
  }
  /* The planner rigors that measure (default and explicit). */
  one(s, 48, 40, SIMPLE_FFT_FORWARD, 0, 0, 7);
  one(s, 40, 48, SIMPLE_FFT_BACKWARD, SIMPLE_FFT_MEASURE | SIMPLE_FFT_TRANSPOSED_OUT, 0, 8);

  /* One plan, several executes on different arrays (the plan is reused,
   * and arrays only 8-byte aligned get FFTW plans of their own). */
  long n = 20, m = 36, rows;
  CHECK_OK(simple_fft2d_local(s, n, m, 0, &rows, NULL));
  simple_fft2d_t *p;
  CHECK_OK(simple_fft2d_plan(s, n, m, SIMPLE_FFT_FORWARD, E, &p));
  size_t len = (size_t)(rows * m);
  double *raw_in = malloc(sizeof(cplx) * (len + 1)), *raw_out = malloc(sizeof(cplx) * (len + 1));
  CHECK(raw_in && raw_out);
  for (int shift = 0; shift < 2; shift++) {
    cplx *in = (cplx *)(void *)(raw_in + shift), *out = (cplx *)(void *)(raw_out + shift);
    CHECK_OK(simple_fft2d_fill(s, n, m, 0, 55 + (uint64_t)shift, in));
    CHECK_OK(simple_fft2d_execute(s, p, in, out));
    double probe, parseval;
    CHECK_OK(simple_fft2d_check(s, p, in, out, &probe, &parseval));
    CHECK(probe < TOL && parseval < TOL);
  }
  simple_fft2d_destroy(p);
  free(raw_in);
  free(raw_out);
}

TEST_MAIN(test_main)
