/* Block fan-out Cholesky over shared objects: see simple_cholesky.h.
 * Blocks are column-major nb x nb (the last row and column of blocks may
 * be smaller), for OpenBLAS's Fortran LAPACK and BLAS. */
#include "simple_cholesky.h"

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
void dtrsm_(const char *side, const char *uplo, const char *ta, const char *diag, const int *m,
            const int *n, const double *alpha, const double *a, const int *lda, double *b,
            const int *ldb);
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc);
void dsyrk_(const char *uplo, const char *t, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *beta, double *c, const int *ldc);
void openblas_set_num_threads(int n);

double simple_cholesky_entry(int n, double shift, int i, int j) {
  double a = 1.0 / (1.0 + fabs((double)(i - j))) + 0.5 * cos((double)(i + j)) / n;
  if (i == j) a += n / 2.0 + shift;
  return a;
}

typedef struct {
  simple_t *s;
  simple_shobj_space_t *sp;
  int n, nb, N, p, pr, pc, me;
  double shift;
  simple_obj_t *dir;   /* [N*N]: every block's directory accumulator (the lower ones) */
  simple_obj_t *known; /* [N*N]: block names this thread has found */
  simple_obj_t fail;   /* accumulator: the failing pivot + 1, 0 while none */
  double *work;        /* nb x nb */
} ctx_t;

static int bsize(const ctx_t *c, int i) { return i < c->N - 1 ? c->nb : c->n - c->nb * (c->N - 1); }
static int owner(const ctx_t *c, int i, int j) { return (i % c->pr) * c->pc + (j % c->pc); }

/* The name of finished block (i, j), waiting for it; SIMPLE_ERR_ARG when
 * the factorization failed meanwhile (a pivot is in c->fail). */
static int await(ctx_t *c, int i, int j, simple_obj_t *name) {
  simple_obj_t *k = &c->known[(size_t)i * c->N + j];
  unsigned polls = 0;
  while (!simple_shobj_kind(*k)) {
    int rc = simple_shobj_get(c->s, c->sp, c->dir[(size_t)i * c->N + j], k, sizeof *k, NULL);
    if (rc) return rc;
    if (simple_shobj_kind(*k)) break;
    if (++polls % 16 == 0) {
      int64_t f;
      rc = simple_shobj_get(c->s, c->sp, c->fail, &f, sizeof f, NULL);
      if (rc) return rc;
      if (f) return SIMPLE_ERR_ARG;
    }
    /* The block's owner is still computing: give it the core. */
    sched_yield();
  }
  *name = *k;
  return 0;
}

static int factor(ctx_t *c) {
  int nb = c->nb;
  double one = 1, minus = -1;
  for (int j = 0; j < c->N; j++)
    for (int i = j; i < c->N; i++) {
      if (owner(c, i, j) != c->me) continue;
      int mi = bsize(c, i), mj = bsize(c, j);
      double *a = c->work;
      for (int y = 0; y < mj; y++)
        for (int x = 0; x < mi; x++)
          a[(size_t)y * mi + x] = simple_cholesky_entry(c->n, c->shift, i * nb + x, j * nb + y);
      for (int k = 0; k < j; k++) {
        int mk = bsize(c, k);
        simple_obj_t ni, nj;
        const double *lik, *ljk;
        int rc = await(c, i, k, &ni);
        if (!rc) rc = await(c, j, k, &nj);
        if (rc) return rc;
        if ((rc = simple_shobj_read(c->s, c->sp, ni, (const void **)&lik, NULL))) return rc;
        if ((rc = simple_shobj_read(c->s, c->sp, nj, (const void **)&ljk, NULL))) {
          simple_shobj_done(c->s, c->sp, ni);
          return rc;
        }
        if (i == j)
          dsyrk_("L", "N", &mi, &mk, &minus, lik, &mi, &one, a, &mi);
        else
          dgemm_("N", "T", &mi, &mj, &mk, &minus, lik, &mi, ljk, &mj, &one, a, &mi);
        simple_shobj_done(c->s, c->sp, ni);
        simple_shobj_done(c->s, c->sp, nj);
      }
      if (i == j) {
        int info = 0;
        dpotrf_("L", &mi, a, &mi, &info);
        if (info) {
          int64_t piv = (int64_t)j * nb + info; /* + 1: 0 means none */
          simple_shobj_write(c->s, c->sp, c->fail, &piv, sizeof piv);
          return SIMPLE_ERR_ARG;
        }
        for (int y = 0; y < mi; y++) /* the upper part is not L's */
          for (int x = 0; x < y; x++) a[(size_t)y * mi + x] = 0;
      } else {
        simple_obj_t nd;
        const double *ljj;
        int rc = await(c, j, j, &nd);
        if (!rc) rc = simple_shobj_read(c->s, c->sp, nd, (const void **)&ljj, NULL);
        if (rc) return rc;
        dtrsm_("R", "L", "T", "N", &mi, &mj, &one, ljj, &mj, a, &mi);
        simple_shobj_done(c->s, c->sp, nd);
      }
      simple_obj_t name;
      int rc = simple_shobj_value(c->s, c->sp, a, sizeof(double) * (size_t)mi * mj, &name);
      if (!rc)
        rc = simple_shobj_write(c->s, c->sp, c->dir[(size_t)i * c->N + j], &name, sizeof name);
      if (rc) return rc;
      c->known[(size_t)i * c->N + j] = name;
    }
  return 0;
}

/* Thread 0 of node 0: the factor back from the shared objects, a solve of
 * A x = b for b = A (1..1), and the residual against the generated A. */
static int check(ctx_t *c, double *residual) {
  int n = c->n, nb = c->nb;
  double *L = calloc((size_t)n * n, sizeof(double)), *b = malloc(sizeof(double) * n),
         *x = malloc(sizeof(double) * n);
  int rc = (!L || !b || !x) ? SIMPLE_ERR_NOMEM : 0;
  for (int j = 0; j < c->N && !rc; j++)
    for (int i = j; i < c->N && !rc; i++) {
      simple_obj_t nm;
      const double *blk;
      rc = await(c, i, j, &nm);
      if (!rc) rc = simple_shobj_read(c->s, c->sp, nm, (const void **)&blk, NULL);
      if (rc) break;
      int mi = bsize(c, i), mj = bsize(c, j);
      for (int y = 0; y < mj; y++)
        for (int q = 0; q < mi; q++)
          L[(size_t)(j * nb + y) * n + i * nb + q] = blk[(size_t)y * mi + q];
      simple_shobj_done(c->s, c->sp, nm);
    }
  if (!rc) {
    double anorm = 0;
    for (int i = 0; i < n; i++) {
      double rs = 0, ra = 0;
      for (int j = 0; j < n; j++) {
        double a = simple_cholesky_entry(n, c->shift, i, j);
        rs += a, ra += fabs(a);
      }
      b[i] = rs;
      anorm = fmax(anorm, ra);
    }
    /* L y = b, then L^T x = y (L column-major: L[col * n + row]). */
    memcpy(x, b, sizeof(double) * n);
    for (int j = 0; j < n; j++) {
      x[j] /= L[(size_t)j * n + j];
      for (int i = j + 1; i < n; i++) x[i] -= L[(size_t)j * n + i] * x[j];
    }
    for (int j = n - 1; j >= 0; j--) {
      double t = x[j];
      for (int i = j + 1; i < n; i++) t -= L[(size_t)j * n + i] * x[i];
      x[j] = t / L[(size_t)j * n + j];
    }
    double rmax = 0, xmax = 0;
    for (int i = 0; i < n; i++) {
      double r = -b[i];
      for (int j = 0; j < n; j++) r += simple_cholesky_entry(n, c->shift, i, j) * x[j];
      rmax = fmax(rmax, fabs(r));
      xmax = fmax(xmax, fabs(x[i]));
    }
    *residual = rmax / (anorm * xmax);
  }
  free(L), free(b), free(x);
  return rc;
}

int simple_cholesky(simple_t *s, const simple_cholesky_opts_t *opts,
                    simple_cholesky_result_t *res) {
  simple_cholesky_opts_t o = {1000, 64, 0};
  if (opts) {
    o = *opts;
    if (!o.n) o.n = 1000;
    if (!o.nb) o.nb = 64;
  }
  int rc = !res ? SIMPLE_ERR_NULL
           : (o.n < 1 || o.n > SIMPLE_CHOLESKY_MAX_N || o.nb < 1 || !isfinite(o.shift))
               ? SIMPLE_ERR_ARG
               : 0;
  if (res) res->pivot = -1, res->residual = NAN;
  ctx_t c;
  memset(&c, 0, sizeof c);
  if (!rc) {
    if (o.nb > o.n) o.nb = o.n;
    c.s = s, c.n = o.n, c.nb = o.nb, c.N = (o.n + o.nb - 1) / o.nb, c.shift = o.shift;
    c.p = simple_nprocs(s), c.me = simple_pid(s);
    c.pr = 1;
    for (int d = 1; d * d <= c.p; d++)
      if (c.p % d == 0) c.pr = d;
    c.pc = c.p / c.pr;
    size_t nn = (size_t)c.N * c.N;
    c.dir = calloc(nn, sizeof *c.dir);
    c.known = calloc(nn, sizeof *c.known);
    c.work = malloc(sizeof(double) * (size_t)c.nb * c.nb);
    if (!c.dir || !c.known || !c.work) rc = SIMPLE_ERR_NOMEM;
  }
  int bad = rc, r2 = simple_allreduce(s, &rc, &bad, 1, SIMPLE_INT32, SIMPLE_MAX);
  if (r2 || bad) {
    free(c.dir), free(c.known), free(c.work);
    return r2 ? r2 : rc ? rc : SIMPLE_ERR_PEER;
  }
  openblas_set_num_threads(1);
  /* Room for the node's blocks (the whole factor at most) and their
   * directory entries. */
  size_t lower = (size_t)c.n * c.n / 2 + (size_t)c.n * c.nb;
  simple_shobj_opts_t so = {.heap_bytes = 8 * lower * 2 / (size_t)simple_nodes(s) + 8 * lower / 4 +
                                          (size_t)c.N * c.N * 64 + (1 << 20),
                            .cache_bytes = 8 * lower + (1 << 20)};
  rc = simple_shobj_open(s, &so, &c.sp);
  if (rc) {
    free(c.dir), free(c.known), free(c.work);
    return rc;
  }
  /* Each thread makes the directory entries of its blocks; everyone gets
   * every entry (the names OR-ed together: each slot has one maker). */
  for (int j = 0; j < c.N && !rc; j++)
    for (int i = j; i < c.N && !rc; i++)
      if (owner(&c, i, j) == c.me)
        rc = simple_shobj_acc(s, c.sp, NULL, sizeof(simple_obj_t), &c.dir[(size_t)i * c.N + j]);
  if (!rc && c.me == 0) rc = simple_shobj_acc(s, c.sp, NULL, sizeof(int64_t), &c.fail);
  bad = rc;
  r2 = simple_allreduce(s, &rc, &bad, 1, SIMPLE_INT32, SIMPLE_MAX);
  if (!r2 && !bad)
    r2 = simple_allreduce(s, SIMPLE_IN_PLACE, c.dir, 2 * (size_t)c.N * c.N, SIMPLE_UINT64,
                          SIMPLE_BOR);
  if (!r2 && !bad) r2 = simple_bcast(s, &c.fail, sizeof c.fail, SIMPLE_BYTE, 0);
  if (r2 || bad) rc = r2 ? r2 : rc ? rc : SIMPLE_ERR_PEER;
  double t0 = simple_time();
  if (!rc) {
    rc = factor(&c);
    res->time_s = simple_time() - t0;
    /* Everyone stops (done, or saw the failure) before the verdict. */
    int worst = rc, r3 = simple_allreduce(s, &rc, &worst, 1, SIMPLE_INT32, SIMPLE_MAX);
    if (r3) worst = r3;
    int64_t f = 0;
    if (!r3) r3 = simple_shobj_get(s, c.sp, c.fail, &f, sizeof f, NULL);
    if (!r3 && f) {
      res->pivot = (long)(f - 1);
      rc = SIMPLE_ERR_ARG;
    } else {
      rc = worst ? worst : r3;
    }
    if (!rc) rc = simple_allreduce(s, SIMPLE_IN_PLACE, &res->time_s, 1, SIMPLE_DOUBLE, SIMPLE_MAX);
    if (!rc && c.me == 0) rc = check(&c, &res->residual);
    r3 = simple_bcast(s, &res->residual, 1, SIMPLE_DOUBLE, 0);
    if (!rc) rc = r3;
    bad = rc;
    r3 = simple_allreduce(s, &rc, &bad, 1, SIMPLE_INT32, SIMPLE_MAX);
    if (!rc && (r3 || bad)) rc = r3 ? r3 : SIMPLE_ERR_PEER;
    simple_barrier(s);
    simple_shobj_stats(s, c.sp, &res->cache);
  }
  int r4 = simple_shobj_close(s, c.sp);
  free(c.dir), free(c.known), free(c.work);
  return rc ? rc : r4;
}
