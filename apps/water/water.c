/* Water n-squared: see simple_water.h. Units: angstrom, picosecond, amu,
 * kcal/mol, elementary charge. */

#include "simple_water.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COULOMB 332.0637     /* kcal A / (mol e^2) */
#define ACCEL   418.4        /* (kcal/mol/A) / amu in A/ps^2 */
#define KB      0.0019872041 /* kcal/mol/K */
#define Q_O     (-0.82)
#define Q_H     0.41
#define LJ_SIG  3.166
#define LJ_EPS  0.1554
#define R_OH    1.012
#define K_OH    1059.162 /* U = K/2 (r - R)^2 */
#define R_HH    1.6901   /* 2 R_OH sin(113.24 deg / 2) */
#define K_HH    228.0
#define M_O     15.9994
#define M_H     1.008
#define TEMP    300.0
#define SWITCH  1.0 /* angstroms over which the pair energy is switched off */

static const double mass[3] = {M_O, M_H, M_H};
static const double charge[3] = {Q_O, Q_H, Q_H};

/* A deterministic generator (splitmix64), the same on every node. */
static double rnd(uint64_t *st) {
  uint64_t z = (*st += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  z ^= z >> 31;
  return (double)(z >> 11) / 9007199254740992.0;
}

typedef struct {
  int n;
  double L, rc, rs;
  double *x[5]; /* Gear's scaled derivatives: x, v dt, a dt^2/2, ... ; 9 n each */
  double *f;    /* forces, 9 n */
  double pe;
} sys_t;

static void initial(sys_t *S, const simple_water_opts_t *o) {
  int n = S->n;
  int side = (int)ceil(cbrt((double)n));
  double a = S->L / side;
  uint64_t st = o->seed * UINT64_C(2654435761) + 12345;
  double p[3] = {0, 0, 0}, mt = 0;
  for (int i = 0; i < n; i++) {
    double c[3] = {(i % side + 0.5) * a, (i / side % side + 0.5) * a, (i / side / side + 0.5) * a};
    /* A random orientation: two orthonormal vectors u, w. */
    double u[3], w[3], t[3];
    double z = 2 * rnd(&st) - 1, ph = 2 * M_PI * rnd(&st), r = sqrt(1 - z * z);
    u[0] = r * cos(ph), u[1] = r * sin(ph), u[2] = z;
    t[0] = rnd(&st) - .5, t[1] = rnd(&st) - .5, t[2] = rnd(&st) - .5;
    double d = t[0] * u[0] + t[1] * u[1] + t[2] * u[2];
    for (int k = 0; k < 3; k++) w[k] = t[k] - d * u[k];
    double nw = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    for (int k = 0; k < 3; k++) w[k] /= nw;
    double half = 113.24 / 2 * M_PI / 180;
    double *X = S->x[0] + 9 * (size_t)i;
    for (int k = 0; k < 3; k++) {
      X[k] = c[k];
      X[3 + k] = c[k] + R_OH * (cos(half) * u[k] + sin(half) * w[k]);
      X[6 + k] = c[k] + R_OH * (cos(half) * u[k] - sin(half) * w[k]);
    }
    for (int s = 0; s < 3; s++) {
      double sd = sqrt(KB * TEMP / mass[s] * ACCEL);
      for (int k = 0; k < 3; k++) {
        /* Box-Muller: a normal deviate. */
        double g = sqrt(-2 * log(1 - rnd(&st))) * cos(2 * M_PI * rnd(&st));
        S->x[1][9 * (size_t)i + 3 * s + k] = g * sd * o->dt;
        p[k] += mass[s] * g * sd;
      }
      mt += mass[s];
    }
  }
  /* No net momentum. */
  for (int i = 0; i < n; i++)
    for (int s = 0; s < 3; s++)
      for (int k = 0; k < 3; k++) S->x[1][9 * (size_t)i + 3 * s + k] -= p[k] / mt * o->dt;
}

/* Intra-molecular forces and energy of molecules [lo, hi). */
static double intra(const sys_t *S, const double *X, double *F, int lo, int hi) {
  static const int pa[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  double e = 0;
  for (int i = lo; i < hi; i++) {
    const double *m = X + 9 * (size_t)i;
    double *f = F + 9 * (size_t)i;
    for (int b = 0; b < 3; b++) {
      int a1 = pa[b][0], a2 = pa[b][1];
      double r0 = b < 2 ? R_OH : R_HH, k = b < 2 ? K_OH : K_HH;
      double d[3], r2 = 0;
      for (int c = 0; c < 3; c++) d[c] = m[3 * a2 + c] - m[3 * a1 + c], r2 += d[c] * d[c];
      double r = sqrt(r2), dr = r - r0;
      e += 0.5 * k * dr * dr;
      double g = -k * dr / r; /* force on a2 along d */
      for (int c = 0; c < 3; c++) f[3 * a2 + c] += g * d[c], f[3 * a1 + c] -= g * d[c];
    }
  }
  (void)S;
  return e;
}

/* The inter-molecular pair (i, j), minimum image by the oxygens, switched
 * off smoothly between rs and rc. */
static double pair(const sys_t *S, const double *X, double *F, int i, int j) {
  const double *a = X + 9 * (size_t)i, *b = X + 9 * (size_t)j;
  double sh[3], d[3], r2 = 0;
  for (int c = 0; c < 3; c++) {
    double dd = b[c] - a[c];
    sh[c] = -S->L * nearbyint(dd / S->L);
    d[c] = dd + sh[c];
    r2 += d[c] * d[c];
  }
  if (r2 >= S->rc * S->rc) return 0;
  double fa[9] = {0}, fb[9] = {0}, u = 0;
  for (int p = 0; p < 3; p++)
    for (int q = 0; q < 3; q++) {
      double v[3], s2 = 0;
      for (int c = 0; c < 3; c++) v[c] = b[3 * q + c] + sh[c] - a[3 * p + c], s2 += v[c] * v[c];
      double inv = 1 / sqrt(s2), qq = COULOMB * charge[p] * charge[q];
      double e = qq * inv, g = qq * inv * inv * inv; /* force on b: g v */
      if (p == 0 && q == 0) {
        double sr2 = LJ_SIG * LJ_SIG / s2, sr6 = sr2 * sr2 * sr2;
        e += 4 * LJ_EPS * (sr6 * sr6 - sr6);
        g += 24 * LJ_EPS * (2 * sr6 * sr6 - sr6) / s2;
      }
      u += e;
      for (int c = 0; c < 3; c++) fb[3 * q + c] += g * v[c], fa[3 * p + c] -= g * v[c];
    }
  double r = sqrt(r2), sw = 1, dsw = 0;
  if (r > S->rs) {
    double x = (r - S->rs) / (S->rc - S->rs);
    sw = 1 - x * x * x * (10 - 15 * x + 6 * x * x);
    dsw = -30 * x * x * (1 - x) * (1 - x) / (S->rc - S->rs);
  }
  double *Fa = F + 9 * (size_t)i, *Fb = F + 9 * (size_t)j;
  for (int k = 0; k < 9; k++) Fa[k] += sw * fa[k], Fb[k] += sw * fb[k];
  /* -u dS/dr along the oxygens' separation. */
  for (int c = 0; c < 3; c++) {
    double g = -u * dsw * d[c] / r;
    Fb[c] += g;
    Fa[c] -= g;
  }
  return u * sw;
}

/* Forces (into F, zeroed here) and potential energy of the pairs whose
 * first molecule is in [lo, hi): (i, i + 1 .. i + n/2), cyclically, the
 * last half-pair counted once. */
static double forces(const sys_t *S, const double *X, double *F, int lo, int hi) {
  int n = S->n;
  memset(F, 0, sizeof *F * 9 * (size_t)n);
  double e = intra(S, X, F, lo, hi);
  for (int i = lo; i < hi; i++) {
    int half = n / 2;
    for (int k = 1; k <= half; k++) {
      if (n % 2 == 0 && k == half && i >= half) break; /* each opposite pair once */
      e += pair(S, X, F, i, (i + k) % n);
    }
  }
  return e;
}

static void predict(sys_t *S, int lo, int hi) {
  for (size_t k = 9 * (size_t)lo; k < 9 * (size_t)hi; k++) {
    double *x0 = S->x[0], *x1 = S->x[1], *x2 = S->x[2], *x3 = S->x[3], *x4 = S->x[4];
    x0[k] += x1[k] + x2[k] + x3[k] + x4[k];
    x1[k] += 2 * x2[k] + 3 * x3[k] + 4 * x4[k];
    x2[k] += 3 * x3[k] + 6 * x4[k];
    x3[k] += 4 * x4[k];
  }
}

static void correct(sys_t *S, const double *F, double dt, int lo, int hi) {
  static const double c[5] = {19.0 / 120, 3.0 / 4, 1, 1.0 / 2, 1.0 / 12};
  for (size_t k = 9 * (size_t)lo; k < 9 * (size_t)hi; k++) {
    double m = mass[(k % 9) / 3];
    double want = F[k] / m * ACCEL * dt * dt / 2;
    double delta = want - S->x[2][k];
    for (int d = 0; d < 5; d++) S->x[d][k] += c[d] * delta;
  }
}

static double kinetic(const sys_t *S, double dt, int lo, int hi) {
  double e = 0;
  for (size_t k = 9 * (size_t)lo; k < 9 * (size_t)hi; k++) {
    double v = S->x[1][k] / dt;
    e += 0.5 * mass[(k % 9) / 3] * v * v / ACCEL;
  }
  return e;
}

static int opts_of(const simple_water_opts_t *in, simple_water_opts_t *o) {
  simple_water_opts_t d = {1728, 5, 0.0001, 1};
  if (in) {
    d = *in;
    if (!d.molecules) d.molecules = 1728;
    if (!d.dt) d.dt = 0.0001;
  }
  *o = d;
  if (o->molecules < SIMPLE_WATER_MIN_MOLECULES || o->molecules > SIMPLE_WATER_MAX_MOLECULES ||
      o->steps < 0 || !(o->dt > 0) || o->dt > 0.01)
    return SIMPLE_ERR_ARG;
  return 0;
}

static void sys_free(sys_t *S) {
  for (int d = 0; d < 5; d++) free(S->x[d]);
  free(S->f);
}

static int sys_new(sys_t *S, const simple_water_opts_t *o) {
  memset(S, 0, sizeof *S);
  S->n = o->molecules;
  S->L = cbrt(S->n / 0.033456); /* molecules per A^3 at 1 g/cm^3 */
  S->rc = S->L / 2;
  S->rs = S->rc - SWITCH;
  size_t b = sizeof(double) * 9 * (size_t)S->n;
  for (int d = 0; d < 5; d++) S->x[d] = calloc(1, b);
  S->f = malloc(b);
  for (int d = 0; d < 5; d++)
    if (!S->x[d]) S->f = (free(S->f), NULL);
  if (!S->f) {
    sys_free(S);
    return SIMPLE_ERR_NOMEM;
  }
  initial(S, o);
  return 0;
}

/* The whole run; s NULL: one processor, no communication. */
static int run(simple_t *s, const simple_water_opts_t *o, simple_water_result_t *res, double *pos,
               sys_t *S) {
  int n = S->n, p = s ? simple_nprocs(s) : 1, me = s ? simple_pid(s) : 0;
  int lo = (int)((long)n * me / p), hi = (int)((long)n * (me + 1) / p);
  size_t *counts = NULL, *displs = NULL;
  int rc = 0;
  if (s) {
    counts = malloc(sizeof *counts * 2 * (size_t)p);
    if (!counts) return SIMPLE_ERR_NOMEM;
    displs = counts + p;
    for (int t = 0; t < p; t++) {
      size_t a = (size_t)((long)n * t / p), b = (size_t)((long)n * (t + 1) / p);
      counts[t] = 9 * (b - a);
      displs[t] = 9 * a;
    }
  }
  /* forces + sum over threads: F and the potential energy everywhere */
#define ALLFORCES(E)                                                                             \
  do {                                                                                           \
    double pe_ = forces(S, S->x[0], S->f, lo, hi);                                               \
    if (s) {                                                                                     \
      rc = simple_allreduce(s, SIMPLE_IN_PLACE, S->f, 9 * (size_t)n, SIMPLE_DOUBLE, SIMPLE_SUM); \
      if (!rc) rc = simple_allreduce(s, SIMPLE_IN_PLACE, &pe_, 1, SIMPLE_DOUBLE, SIMPLE_SUM);    \
      if (rc) goto out;                                                                          \
    }                                                                                            \
    (E) = pe_;                                                                                   \
  } while (0)
  double pe, ke;
  ALLFORCES(pe);
  /* x2 from the initial forces. */
  for (size_t k = 9 * (size_t)lo; k < 9 * (size_t)hi; k++)
    S->x[2][k] = S->f[k] / mass[(k % 9) / 3] * ACCEL * o->dt * o->dt / 2;
  ke = kinetic(S, o->dt, lo, hi);
  if (s && (rc = simple_allreduce(s, SIMPLE_IN_PLACE, &ke, 1, SIMPLE_DOUBLE, SIMPLE_SUM))) goto out;
  res->e_start = ke + pe;
  double t0 = simple_time();
  for (int step = 0; step < o->steps; step++) {
    predict(S, lo, hi);
    if (s && (rc = simple_allgatherv(s, S->x[0] + 9 * (size_t)lo, 9 * (size_t)(hi - lo), S->x[0],
                                     counts, displs, SIMPLE_DOUBLE)))
      goto out;
    ALLFORCES(pe);
    correct(S, S->f, o->dt, lo, hi);
  }
  if (s && (rc = simple_allgatherv(s, S->x[0] + 9 * (size_t)lo, 9 * (size_t)(hi - lo), S->x[0],
                                   counts, displs, SIMPLE_DOUBLE)))
    goto out;
  res->time_s = simple_time() - t0;
  /* The energy at the corrected positions. */
  ALLFORCES(pe);
  ke = kinetic(S, o->dt, lo, hi);
  if (s && (rc = simple_allreduce(s, SIMPLE_IN_PLACE, &ke, 1, SIMPLE_DOUBLE, SIMPLE_SUM))) goto out;
  if (s && (rc = simple_allreduce(s, SIMPLE_IN_PLACE, &res->time_s, 1, SIMPLE_DOUBLE, SIMPLE_MAX)))
    goto out;
  res->ke_end = ke;
  res->pe_end = pe;
  res->e_end = ke + pe;
  res->drift = fabs(res->e_end - res->e_start) / ke;
  if (pos) memcpy(pos, S->x[0], sizeof(double) * 9 * (size_t)n);
out:
#undef ALLFORCES
  free(counts);
  return rc;
}

int simple_water(simple_t *s, const simple_water_opts_t *opts, simple_water_result_t *res,
                 double *pos) {
  simple_water_opts_t o;
  int rc = res ? opts_of(opts, &o) : SIMPLE_ERR_NULL;
  sys_t S;
  if (!rc) rc = sys_new(&S, &o);
  int bad = rc;
  int r2 = simple_allreduce(s, &rc, &bad, 1, SIMPLE_INT32, SIMPLE_MAX);
  if (r2) return r2;
  if (bad) {
    if (!rc) sys_free(&S);
    return rc ? rc : SIMPLE_ERR_PEER;
  }
  rc = run(s, &o, res, pos, &S);
  sys_free(&S);
  return rc;
}

int simple_water_seq(const simple_water_opts_t *opts, simple_water_result_t *res, double *pos) {
  simple_water_opts_t o;
  if (!res) return SIMPLE_ERR_NULL;
  int rc = opts_of(opts, &o);
  if (rc) return rc;
  sys_t S;
  rc = sys_new(&S, &o);
  if (rc) return rc;
  rc = run(NULL, &o, res, pos, &S);
  sys_free(&S);
  return rc;
}
