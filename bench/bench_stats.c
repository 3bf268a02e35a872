#include <stdlib.h>

#include "bench.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(double *v, size_t n) {
  if (n == 0) return 0.0;
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int bench_batch(double per_op, double target) {
  if (per_op <= 0) return 10000;
  double b = target / per_op;
  if (b < 1) return 1;
  if (b > 10000) return 10000;
  return (int)b;
}
