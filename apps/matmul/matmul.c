/* Cannon's matrix multiply with one-sided BSP communication (paper 004,
 * Fig. 7 and 8); see simple_matmul.h for the layout, algorithm and costs. */
#define _POSIX_C_SOURCE 200809L

#include "simple_matmul.h"

#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* OpenBLAS: one BLAS thread per processor, since every thread of the job
 * is a processor already (several BLAS threads each would oversubscribe
 * the cores). Set once per process, before the first dgemm. */
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
static void blas_single(void) { openblas_set_num_threads(1); }

const char *simple_matmul_variant_name(simple_matmul_variant_t variant) {
  switch (variant) {
    case SIMPLE_MATMUL_PUT: return "put";
    case SIMPLE_MATMUL_GET: return "get";
  }
  return "unknown";
}

int simple_matmul_grid(const simple_t *s, int *q) {
  if (!q) return SIMPLE_ERR_NULL;
  *q = 0;
  int p = simple_nprocs(s);
  int r = 0;
  while ((r + 1) * (r + 1) <= p) r++;
  if (r * r != p) return SIMPLE_ERR_ARG;
  *q = r;
  return 0;
}

static int mod(int a, int q) { return ((a % q) + q) % q; }

int simple_matmul_cannon(simple_t *s, long n, const double *a, const double *b, double *c,
                         simple_matmul_variant_t variant) {
  int q = 0, rc = simple_matmul_grid(s, &q);
  size_t nb = 0, nb2 = 0;
  double *buf = NULL;
  if (rc == 0) {
    if (n <= 0 || n % q != 0 || (variant != SIMPLE_MATMUL_PUT && variant != SIMPLE_MATMUL_GET))
      rc = SIMPLE_ERR_ARG;
    else if (!a || !b || !c)
      rc = SIMPLE_ERR_NULL;
  }
  if (rc == 0) {
    nb = (size_t)(n / q);
    if (nb > SIZE_MAX / 6 / sizeof(double) / nb)
      rc = SIMPLE_ERR_COUNT;
    else {
      nb2 = nb * nb;
      /* A0 A1 B0 B1 (two slots per matrix), and for get A B (the blocks
       * the others read): one registered area. */
      size_t slots = variant == SIMPLE_MATMUL_GET ? 6 : 4;
      if (posix_memalign((void **)&buf, 64, slots * nb2 * sizeof(double)) != 0) {
        buf = NULL;
        rc = SIMPLE_ERR_NOMEM;
      }
    }
  }
  /* Combine the checks: the same error everywhere, and the same n and
   * variant on every processor. */
  int64_t in[5] = {rc, n, -n, (int64_t)variant, -(int64_t)variant}, out[5];
  int crc = simple_allreduce(s, in, out, 5, SIMPLE_INT64, SIMPLE_MAX);
  if (crc) {
    free(buf);
    return crc;
  }
  rc = (int)out[0];
  if (rc == 0 && (out[1] != -out[2] || out[3] != -out[4])) rc = SIMPLE_ERR_ARG;
  if (rc) {
    free(buf);
    return rc;
  }
  pthread_once(&blas_once, blas_single);

  const int pid = simple_pid(s), i = pid / q, j = pid % q;
  const size_t bytes = nb2 * sizeof(double);
  const int nbi = (int)nb;
  int err = 0; /* the first error of a put or get; syncs go on regardless */
#define KEEP(call)            \
  do {                        \
    int e_ = (call);          \
    if (e_ && !err) err = e_; \
  } while (0)

  /* Superstep 0: register the area (the get variant also exposes copies of
   * the caller's blocks, which the others read). */
  if (variant == SIMPLE_MATMUL_GET) {
    memcpy(buf + 4 * nb2, a, bytes);
    memcpy(buf + 5 * nb2, b, bytes);
  }
  rc = simple_rma_push_reg(s, buf, (variant == SIMPLE_MATMUL_GET ? 6 : 4) * bytes);
  if (rc == 0) rc = simple_rma_sync(s);
  if (rc) {
    free(buf);
    return rc;
  }

  /* Round l (paper 004, Fig. 7 and 8): processor (i, j) multiplies
   * A(i, k) B(k, j) with k = (i + j + l) mod q. So for round l, processor
   * (i, j) sends its A to (i, (j - i - l) mod q) and its B to
   * ((i - j - l) mod q, j) (put), or reads A from (i, k) and B from (k, j)
   * (get). Every round moves the caller's own blocks, so rounds do not
   * depend on each other: round l + 1 moves into slot (l + 1) % 2 while
   * round l multiplies slot l % 2, and inside a node its copies are done
   * at the call, before this processor's dgemm starts. */
#define ROUND(l, slot)                                                                            \
  do {                                                                                            \
    if (variant == SIMPLE_MATMUL_PUT) {                                                           \
      KEEP(simple_rma_hpput(s, i *q + mod(j - i - (l), q), a, buf, (size_t)(slot)*bytes, bytes)); \
      KEEP(simple_rma_hpput(s, mod(i - j - (l), q) * q + j, b, buf, (size_t)(2 + (slot)) * bytes, \
                            bytes));                                                              \
    } else {                                                                                      \
      int k_ = mod(i + j + (l), q);                                                               \
      KEEP(simple_rma_hpget(s, i *q + k_, buf, 4 * bytes, buf + (size_t)(slot)*nb2, bytes));      \
      KEEP(simple_rma_hpget(s, k_ *q + j, buf, 5 * bytes, buf + (size_t)(2 + (slot)) * nb2,       \
                            bytes));                                                              \
    }                                                                                             \
  } while (0)

  /* Superstep 1: round 0's blocks into slot 0. */
  ROUND(0, 0);
  rc = simple_rma_sync(s);
  /* Supersteps 2 .. q + 1: round l + 1 moves, round l multiplies. */
  for (int l = 0; l < q && rc == 0; l++) {
    const int cur = l % 2;
    if (l < q - 1) ROUND(l + 1, 1 - cur);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, nbi, nbi, nbi, 1.0,
                buf + (size_t)cur * nb2, nbi, buf + (size_t)(2 + cur) * nb2, nbi,
                l == 0 ? 0.0 : 1.0, c, nbi);
    if (l == q - 1) KEEP(simple_rma_pop_reg(s, buf));
    rc = simple_rma_sync(s);
  }
#undef ROUND
#undef KEEP
  /* A failed sync may leave the area registered: keep it then (leaked)
   * rather than free memory the layer may still name. */
  if (rc == 0) free(buf);
  return rc ? rc : err;
}

/* splitmix64: a fast, well-mixed hash of the element's coordinates. */
static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

double simple_matmul_elem(uint64_t seed, long n_used, long i, long j) {
  if (i < 0 || j < 0 || i >= n_used || j >= n_used) return 0.0;
  uint64_t h = mix(mix(seed) ^ mix(((uint64_t)i << 32) ^ (uint64_t)j));
  return (double)(h >> 11) * 0x1.0p-52 - 1.0; /* 53 random bits in [-1, 1) */
}

/* Checks shared by fill and checksum: q, nb. */
static int block_shape(const simple_t *s, long n, int *q, long *nb) {
  int rc = simple_matmul_grid(s, q);
  if (rc) return rc;
  if (n <= 0 || n % *q != 0) return SIMPLE_ERR_ARG;
  *nb = n / *q;
  if ((size_t)*nb > SIZE_MAX / sizeof(double) / (size_t)*nb) return SIMPLE_ERR_COUNT;
  return 0;
}

int simple_matmul_fill(const simple_t *s, long n, long n_used, uint64_t seed, double *block) {
  int q;
  long nb;
  int rc = block_shape(s, n, &q, &nb);
  if (rc) return rc;
  if (!block) return SIMPLE_ERR_NULL;
  int pid = simple_pid(s);
  long r0 = (pid / q) * nb, c0 = (pid % q) * nb;
  for (long r = 0; r < nb; r++)
    for (long c = 0; c < nb; c++)
      block[r * nb + c] = simple_matmul_elem(seed, n_used, r0 + r, c0 + c);
  return 0;
}

/* y = sum over processors of (block times x restricted to its columns),
 * as a full vector of n on every processor. */
static int block_matvec(simple_t *s, long n, int q, long nb, const double *m, const double *x,
                        double *y) {
  int pid = simple_pid(s);
  long r0 = (pid / q) * nb, c0 = (pid % q) * nb;
  memset(y, 0, sizeof(double) * (size_t)n);
  for (long r = 0; r < nb; r++) {
    double acc = 0;
    for (long c = 0; c < nb; c++) acc += m[r * nb + c] * x[c0 + c];
    y[r0 + r] = acc;
  }
  return simple_allreduce(s, SIMPLE_IN_PLACE, y, (size_t)n, SIMPLE_DOUBLE, SIMPLE_SUM);
}

int simple_matmul_checksum(simple_t *s, long n, const double *a, const double *b, const double *c,
                           uint64_t seed, double *relerr) {
  int q;
  long nb = 0;
  int rc = block_shape(s, n, &q, &nb);
  if (rc == 0 && (!a || !b || !c || !relerr)) rc = SIMPLE_ERR_NULL;
  double *x = NULL;
  if (rc == 0 && !(x = malloc(sizeof(double) * 3 * (size_t)n))) rc = SIMPLE_ERR_NOMEM;
  int64_t in[3] = {rc, n, -n}, out[3];
  int crc = simple_allreduce(s, in, out, 3, SIMPLE_INT64, SIMPLE_MAX);
  if (crc == 0) crc = (int)out[0];
  if (crc == 0 && out[1] != -out[2]) crc = SIMPLE_ERR_ARG;
  if (crc) {
    free(x);
    return crc;
  }
  double *y = x + n, *z = y + n;
  for (long k = 0; k < n; k++) x[k] = simple_matmul_elem(seed ^ 0x5eedull, n, k, 0);
  /* z = b x, then y = a z; x = c x last (x is no longer needed). */
  if ((rc = block_matvec(s, n, q, nb, b, x, z))) goto done;
  if ((rc = block_matvec(s, n, q, nb, a, z, y))) goto done;
  double xn = 0;
  for (long k = 0; k < n; k++) xn += x[k] * x[k];
  if ((rc = block_matvec(s, n, q, nb, c, x, z))) goto done;
  double d = 0;
  for (long k = 0; k < n; k++) d += (z[k] - y[k]) * (z[k] - y[k]);
  double fr[2] = {0, 0};
  for (long k = 0; k < nb * nb; k++) {
    fr[0] += a[k] * a[k];
    fr[1] += b[k] * b[k];
  }
  if ((rc = simple_allreduce(s, SIMPLE_IN_PLACE, fr, 2, SIMPLE_DOUBLE, SIMPLE_SUM))) goto done;
  double den = sqrt(fr[0]) * sqrt(fr[1]) * sqrt(xn);
  *relerr = den > 0 ? sqrt(d) / den : sqrt(d);
done:
  free(x);
  return rc;
}
