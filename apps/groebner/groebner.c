/* Buchberger over GF(32003) with the basis in shared objects: see
 * simple_groebner.h. */
#include "simple_groebner.h"

#include <stdlib.h>
#include <string.h>

#define P    SIMPLE_GROEBNER_PRIME
#define MAXV SIMPLE_GROEBNER_MAXV

typedef simple_groebner_term_t term_t;
typedef simple_groebner_poly_t poly_t;

/* ---------------------------------------------------------------------
 * Arithmetic. */

static uint32_t inv(uint32_t a) {
  uint32_t r = 1, b = a, e = P - 2;
  while (e) {
    if (e & 1) r = (uint32_t)((uint64_t)r * b % P);
    b = (uint32_t)((uint64_t)b * b % P);
    e >>= 1;
  }
  return r;
}

static int deg(const uint8_t *e) {
  int d = 0;
  for (int i = 0; i < MAXV; i++) d += e[i];
  return d;
}

/* grevlex: > 0 when a is the larger monomial. */
static int cmp(const uint8_t *a, const uint8_t *b) {
  int da = deg(a), db = deg(b);
  if (da != db) return da > db ? 1 : -1;
  for (int i = MAXV - 1; i >= 0; i--)
    if (a[i] != b[i]) return a[i] < b[i] ? 1 : -1;
  return 0;
}

static int divides(const uint8_t *a, const uint8_t *b) {
  for (int i = 0; i < MAXV; i++)
    if (a[i] > b[i]) return 0;
  return 1;
}

static poly_t *pnew(int n, int nv) {
  poly_t *p = malloc(sizeof *p + sizeof(term_t) * (size_t)(n ? n : 1));
  if (p) p->nterms = 0, p->nvars = nv;
  return p;
}

static size_t pbytes(const poly_t *p) { return sizeof *p + sizeof(term_t) * (size_t)p->nterms; }

static poly_t *pcopy(const poly_t *p) {
  poly_t *q = pnew(p->nterms, p->nvars);
  if (q) memcpy(q, p, pbytes(p));
  return q;
}

/* f - c * m * g, as a new polynomial (f freed). */
static poly_t *submul(poly_t *f, uint32_t c, const uint8_t *m, const poly_t *g) {
  poly_t *r = pnew(f->nterms + g->nterms, f->nvars);
  if (!r) return NULL;
  int i = 0, j = 0, k = 0;
  uint32_t nc = P - c;
  while (i < f->nterms || j < g->nterms) {
    term_t gt;
    if (j < g->nterms) {
      gt.coef = (uint32_t)((uint64_t)nc * g->t[j].coef % P);
      for (int v = 0; v < MAXV; v++) gt.e[v] = (uint8_t)(g->t[j].e[v] + m[v]);
    }
    int s = i >= f->nterms ? -1 : j >= g->nterms ? 1 : cmp(f->t[i].e, gt.e);
    if (s > 0) {
      r->t[k++] = f->t[i++];
    } else if (s < 0) {
      r->t[k++] = gt;
      j++;
    } else {
      uint32_t cc = (f->t[i].coef + gt.coef) % P;
      if (cc) {
        r->t[k] = f->t[i];
        r->t[k++].coef = cc;
      }
      i++, j++;
    }
  }
  r->nterms = k;
  free(f);
  return r;
}

static void monic(poly_t *f) {
  if (!f->nterms) return;
  uint32_t c = inv(f->t[0].coef);
  for (int i = 0; i < f->nterms; i++) f->t[i].coef = (uint32_t)((uint64_t)f->t[i].coef * c % P);
}

/* The full reduction of f (consumed) by G[0..k) (and G2[0..k2)). */
static poly_t *reduce(poly_t *f, const poly_t *const *G, int k, const poly_t *const *G2, int k2) {
  poly_t *r = pnew(f->nterms, f->nvars);
  if (!r) return NULL;
  int cap = f->nterms > 0 ? f->nterms : 1;
  while (f && f->nterms) {
    const poly_t *g = NULL;
    for (int i = 0; i < k + k2 && !g; i++) {
      const poly_t *h = i < k ? G[i] : G2[i - k];
      if (h->nterms && divides(h->t[0].e, f->t[0].e)) g = h;
    }
    if (g) {
      uint8_t m[MAXV];
      for (int v = 0; v < MAXV; v++) m[v] = (uint8_t)(f->t[0].e[v] - g->t[0].e[v]);
      uint32_t c = (uint32_t)((uint64_t)f->t[0].coef * inv(g->t[0].coef) % P);
      f = submul(f, c, m, g);
    } else {
      if (r->nterms == cap) {
        cap *= 2;
        poly_t *x = realloc(r, sizeof *r + sizeof(term_t) * (size_t)cap);
        if (!x) break;
        r = x;
      }
      r->t[r->nterms++] = f->t[0];
      memmove(f->t, f->t + 1, sizeof(term_t) * (size_t)(--f->nterms));
    }
  }
  if (!f) {
    free(r);
    return NULL;
  }
  free(f);
  return r;
}

static poly_t *spoly(const poly_t *f, const poly_t *g) {
  uint8_t l[MAXV], mf[MAXV], mg[MAXV];
  for (int v = 0; v < MAXV; v++) {
    l[v] = f->t[0].e[v] > g->t[0].e[v] ? f->t[0].e[v] : g->t[0].e[v];
    mf[v] = (uint8_t)(l[v] - f->t[0].e[v]);
    mg[v] = (uint8_t)(l[v] - g->t[0].e[v]);
  }
  poly_t *a = pnew(0, f->nvars);
  if (!a) return NULL;
  uint32_t cf = inv(f->t[0].coef), cg = inv(g->t[0].coef);
  a = submul(a, P - cf, mf, f); /* + f / lc(f) * mf */
  if (a) a = submul(a, cg, mg, g);
  return a;
}

/* ---------------------------------------------------------------------
 * The systems. */

static poly_t *from_terms(term_t *t, int n, int nv) {
  /* sort decreasing, combine equal monomials */
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && cmp(t[j].e, t[j - 1].e) > 0; j--) {
      term_t x = t[j];
      t[j] = t[j - 1], t[j - 1] = x;
    }
  poly_t *p = pnew(n, nv);
  if (!p) return NULL;
  for (int i = 0; i < n; i++) {
    if (p->nterms && !cmp(p->t[p->nterms - 1].e, t[i].e)) {
      p->t[p->nterms - 1].coef = (p->t[p->nterms - 1].coef + t[i].coef) % P;
      if (!p->t[p->nterms - 1].coef) p->nterms--;
    } else if (t[i].coef % P) {
      p->t[p->nterms] = t[i];
      p->t[p->nterms++].coef %= P;
    }
  }
  return p;
}

/* The Arnborg-Lazard system (Giovini, Mora, Niesi, Robbiano, Traverso, "One
 * sugar cube, please", ISSAC 1991, section 3.3; the PoSSo test suite, and
 * SymbolicData's ZeroDim.example_40), in x > y > z (exponents 0, 1, 2):
 *   x^2yz + xy^2z + xyz^2 + xyz + xy + xz + yz,
 *   x^2y^2z + xy^2z^2 + x^2yz + xyz + yz + x + z,
 *   x^2y^2z^2 + x^2y^2z + xy^2z + xyz + xz + z + 1.
 * Each row: 7 terms of {exponents of x, y, z}, all coefficients 1. */
static const uint8_t lazard_terms[3][7][3] = {
    {{2, 1, 1}, {1, 2, 1}, {1, 1, 2}, {1, 1, 1}, {1, 1, 0}, {1, 0, 1}, {0, 1, 1}},
    {{2, 2, 1}, {1, 2, 2}, {2, 1, 1}, {1, 1, 1}, {0, 1, 1}, {1, 0, 0}, {0, 0, 1}},
    {{2, 2, 2}, {2, 2, 1}, {1, 2, 1}, {1, 1, 1}, {1, 0, 1}, {0, 0, 1}, {0, 0, 0}}};

static int lazard(poly_t ***out, int *npolys) {
  poly_t **ps = calloc(3, sizeof *ps);
  if (!ps) return SIMPLE_ERR_NOMEM;
  for (int i = 0; i < 3; i++) {
    term_t t[7];
    memset(t, 0, sizeof t);
    for (int k = 0; k < 7; k++) {
      t[k].coef = 1;
      memcpy(t[k].e, lazard_terms[i][k], 3);
    }
    ps[i] = from_terms(t, 7, 3);
    if (!ps[i]) {
      for (int j = 0; j < i; j++) free(ps[j]);
      free(ps);
      return SIMPLE_ERR_NOMEM;
    }
  }
  *out = ps;
  *npolys = 3;
  return 0;
}

int simple_groebner_system(simple_groebner_system_t sys, int n, poly_t ***out, int *npolys) {
  if (sys == SIMPLE_GROEBNER_LAZARD) return n == 3 ? lazard(out, npolys) : SIMPLE_ERR_ARG;
  int nv = sys == SIMPLE_GROEBNER_CYCLIC ? n : n + 1;
  if ((sys != SIMPLE_GROEBNER_CYCLIC && sys != SIMPLE_GROEBNER_KATSURA) || n < 1 ||
      (sys == SIMPLE_GROEBNER_CYCLIC && n < 2) || nv > MAXV)
    return SIMPLE_ERR_ARG;
  poly_t **ps = calloc((size_t)nv, sizeof *ps);
  term_t *t = calloc((size_t)(2 * nv + 2) * (2 * nv + 2), sizeof *t);
  if (!ps || !t) return free(ps), free(t), SIMPLE_ERR_NOMEM;
  int np = 0;
  if (sys == SIMPLE_GROEBNER_CYCLIC) {
    for (int k = 1; k < n; k++) { /* sum_i prod_{j<k} x_{(i+j) mod n} */
      for (int i = 0; i < n; i++) {
        memset(&t[i], 0, sizeof t[i]);
        t[i].coef = 1;
        for (int j = 0; j < k; j++) t[i].e[(i + j) % n]++;
      }
      ps[np++] = from_terms(t, n, nv);
    }
    memset(t, 0, 2 * sizeof *t);
    t[0].coef = 1;
    for (int i = 0; i < n; i++) t[0].e[i] = 1;
    t[1].coef = P - 1;
    ps[np++] = from_terms(t, 2, nv);
  } else {
    /* x0 + 2 sum_{l>=1} x_l - 1 */
    memset(t, 0, (size_t)(nv + 1) * sizeof *t);
    for (int l = 0; l <= n && l < MAXV; l++) t[l].coef = l ? 2 : 1, t[l].e[l] = 1;
    t[n + 1].coef = P - 1;
    ps[np++] = from_terms(t, n + 2, nv);
    for (int m = 0; m < n; m++) { /* sum_{l=-n}^{n} x_|l| x_|m-l| - x_m */
      int k = 0;
      for (int l = -n; l <= n; l++) {
        int a = l < 0 ? -l : l, b = m - l < 0 ? l - m : m - l;
        if (b > n) continue;
        memset(&t[k], 0, sizeof t[k]);
        t[k].coef = 1;
        t[k].e[a]++, t[k].e[b]++;
        k++;
      }
      memset(&t[k], 0, sizeof t[k]);
      t[k].coef = P - 1;
      t[k].e[m] = 1;
      ps[np++] = from_terms(t, k + 1, nv);
    }
  }
  free(t);
  for (int i = 0; i < np; i++)
    if (!ps[i]) {
      for (int j = 0; j < np; j++) free(ps[j]);
      free(ps);
      return SIMPLE_ERR_NOMEM;
    }
  *out = ps;
  *npolys = np;
  return 0;
}

/* ---------------------------------------------------------------------
 * Pairs. */

typedef struct {
  int i, j, deg;
} pair_t;

typedef struct {
  pair_t *v;
  long n, cap;
} pairs_t;

static int lcm_deg(const poly_t *f, const poly_t *g) {
  int d = 0;
  for (int v = 0; v < MAXV; v++) d += f->t[0].e[v] > g->t[0].e[v] ? f->t[0].e[v] : g->t[0].e[v];
  return d;
}

static int coprime(const poly_t *f, const poly_t *g) {
  for (int v = 0; v < MAXV; v++)
    if (f->t[0].e[v] && g->t[0].e[v]) return 0;
  return 1;
}

static int add_pairs(pairs_t *ps, const poly_t *const *G, int k) {
  for (int i = 0; i < k; i++) {
    if (coprime(G[i], G[k])) continue;
    if (ps->n == ps->cap) {
      long nc = ps->cap ? 2 * ps->cap : 256;
      pair_t *x = realloc(ps->v, sizeof *x * (size_t)nc);
      if (!x) return SIMPLE_ERR_NOMEM;
      ps->v = x, ps->cap = nc;
    }
    ps->v[ps->n++] = (pair_t){i, k, lcm_deg(G[i], G[k])};
  }
  return 0;
}

/* The pairs of the lowest degree move to batch (in their order). */
static long take_batch(pairs_t *ps, pair_t *batch) {
  int d = 1 << 30;
  for (long a = 0; a < ps->n; a++)
    if (ps->v[a].deg < d) d = ps->v[a].deg;
  long nb = 0, keep = 0;
  for (long a = 0; a < ps->n; a++) {
    if (ps->v[a].deg == d)
      batch[nb++] = ps->v[a];
    else
      ps->v[keep++] = ps->v[a];
  }
  ps->n = keep;
  return nb;
}

/* ---------------------------------------------------------------------
 * The final reduced basis (from the polynomials G[0..k)), sorted. */

static int cmp_lead(const void *a, const void *b) {
  return -cmp((*(poly_t *const *)a)->t[0].e, (*(poly_t *const *)b)->t[0].e);
}

static int finish(const poly_t *const *G, int k, simple_groebner_result_t *res) {
  poly_t **keep = malloc(sizeof *keep * (size_t)(k ? k : 1));
  if (!keep) return SIMPLE_ERR_NOMEM;
  int nk = 0;
  for (int i = 0; i < k; i++) {
    int drop = 0;
    for (int j = 0; j < k && !drop; j++) {
      if (j == i || !divides(G[j]->t[0].e, G[i]->t[0].e)) continue;
      /* equal leading monomials: keep the first only */
      drop = cmp(G[j]->t[0].e, G[i]->t[0].e) != 0 || j < i;
    }
    if (!drop) keep[nk++] = (poly_t *)G[i];
  }
  poly_t **out = malloc(sizeof *out * (size_t)(nk ? nk : 1));
  if (!out) return free(keep), SIMPLE_ERR_NOMEM;
  for (int i = 0; i < nk; i++) {
    /* tail-reduce by the others: the leading term stays */
    poly_t *head = pnew(1, keep[i]->nvars), *tail = pcopy(keep[i]);
    head->t[0] = keep[i]->t[0];
    head->nterms = 1;
    memmove(tail->t, tail->t + 1, sizeof(term_t) * (size_t)(--tail->nterms));
    const poly_t **others = malloc(sizeof *others * (size_t)(nk ? nk : 1));
    int no = 0;
    for (int j = 0; j < nk; j++)
      if (j != i) others[no++] = keep[j];
    tail = reduce(tail, others, no, NULL, 0);
    free(others);
    poly_t *r = pnew(tail->nterms + 1, keep[i]->nvars);
    r->t[0] = head->t[0];
    memcpy(r->t + 1, tail->t, sizeof(term_t) * (size_t)tail->nterms);
    r->nterms = tail->nterms + 1;
    free(head), free(tail);
    monic(r);
    out[i] = r;
  }
  free(keep);
  qsort(out, (size_t)nk, sizeof *out, cmp_lead);
  res->polys = out;
  res->npolys = nk;
  return 0;
}

/* ---------------------------------------------------------------------
 * Sequential. */

int simple_groebner_seq(simple_groebner_system_t sys, int n, simple_groebner_result_t *res) {
  if (!res) return SIMPLE_ERR_NULL;
  memset(res, 0, sizeof *res);
  poly_t **in;
  int k;
  int rc = simple_groebner_system(sys, n, &in, &k);
  if (rc) return rc;
  int cap = 64, ng = 0;
  poly_t **G = malloc(sizeof *G * (size_t)cap);
  pairs_t ps = {0};
  for (int i = 0; i < k; i++) {
    poly_t *f = reduce(in[i], (const poly_t *const *)G, ng, NULL, 0);
    if (f && f->nterms) {
      monic(f);
      if (ng == cap) G = realloc(G, sizeof *G * (size_t)(cap *= 2));
      G[ng] = f;
      add_pairs(&ps, (const poly_t *const *)G, ng++);
    } else {
      free(f);
    }
  }
  free(in);
  double t0 = simple_time();
  pair_t *batch = NULL;
  long bcap = 0;
  while (ps.n) {
    if (bcap < ps.n) batch = realloc(batch, sizeof *batch * (size_t)(bcap = ps.n));
    long nb = take_batch(&ps, batch);
    for (long a = 0; a < nb; a++) {
      poly_t *h = spoly(G[batch[a].i], G[batch[a].j]);
      h = reduce(h, (const poly_t *const *)G, ng, NULL, 0);
      res->pairs++;
      if (!h->nterms) {
        res->reductions_to_zero++;
        free(h);
        continue;
      }
      monic(h);
      if (ng == cap) G = realloc(G, sizeof *G * (size_t)(cap *= 2));
      G[ng] = h;
      add_pairs(&ps, (const poly_t *const *)G, ng++);
    }
  }
  res->time_s = simple_time() - t0;
  rc = finish((const poly_t *const *)G, ng, res);
  for (int i = 0; i < ng; i++) free(G[i]);
  free(G), free(ps.v), free(batch);
  return rc;
}

/* ---------------------------------------------------------------------
 * Parallel: the basis in shared objects. */

typedef struct {
  simple_t *s;
  simple_shobj_space_t *sp;
  simple_obj_t *names;
  const poly_t **G; /* in place, through the cache (held until the end) */
  int ng, cap;
} basis_t;

static int basis_add(basis_t *b, simple_obj_t name) {
  if (b->ng == b->cap) {
    int nc = b->cap ? 2 * b->cap : 64;
    simple_obj_t *nn = realloc(b->names, sizeof *nn * (size_t)nc);
    if (!nn) return SIMPLE_ERR_NOMEM;
    b->names = nn;
    const poly_t **g = realloc(b->G, sizeof *g * (size_t)nc);
    if (!g) return SIMPLE_ERR_NOMEM;
    b->G = g;
    b->cap = nc;
  }
  const void *p;
  int rc = simple_shobj_read(b->s, b->sp, name, &p, NULL);
  if (rc) return rc;
  b->names[b->ng] = name;
  b->G[b->ng++] = p;
  return 0;
}

int simple_groebner(simple_t *s, simple_groebner_system_t sys, int n,
                    simple_groebner_result_t *res) {
  int rc = res ? 0 : SIMPLE_ERR_NULL;
  poly_t **in = NULL;
  int k = 0;
  if (!rc) {
    memset(res, 0, sizeof *res);
    rc = simple_groebner_system(sys, n, &in, &k);
  }
  int bad = rc, r2 = simple_allreduce(s, &rc, &bad, 1, SIMPLE_INT32, SIMPLE_MAX);
  if (r2 || bad) {
    if (in) {
      for (int i = 0; i < k; i++) free(in[i]);
      free(in);
    }
    return r2 ? r2 : rc ? rc : SIMPLE_ERR_PEER;
  }
  basis_t b = {s, NULL, NULL, NULL, 0, 0};
  simple_shobj_opts_t so = {.heap_bytes =
                                ((size_t)64 << 20) / (size_t)simple_nodes(s) + ((size_t)8 << 20)};
  rc = simple_shobj_open(s, &so, &b.sp);
  if (rc) return rc;
  int me = simple_pid(s), p = simple_nprocs(s);
  pairs_t ps = {0};
  pair_t *batch = NULL;
  long bcap = 0;
  simple_obj_t *mine = NULL, *all = NULL;
  long mcap = 0;
  int *cnt = malloc(sizeof(int) * (size_t)p);
  size_t *counts = malloc(sizeof(size_t) * 2 * (size_t)p);
  if (!cnt || !counts) rc = SIMPLE_ERR_NOMEM;
  /* The input, inter-reduced as it is added, on thread 0 of node 0; its
   * names to everyone. */
  int nnew = 0;
  simple_obj_t *fresh = malloc(sizeof *fresh * (size_t)k);
  if (!fresh) rc = SIMPLE_ERR_NOMEM;
  if (!rc && me == 0) {
    poly_t **G0 = malloc(sizeof *G0 * (size_t)k);
    int n0 = 0;
    for (int i = 0; i < k && !rc; i++) {
      poly_t *f = reduce(pcopy(in[i]), (const poly_t *const *)G0, n0, NULL, 0);
      if (f->nterms) {
        monic(f);
        G0[n0++] = f;
        rc = simple_shobj_value(s, b.sp, f, pbytes(f), &fresh[nnew++]);
      } else {
        free(f);
      }
    }
    for (int i = 0; i < n0; i++) free(G0[i]);
    free(G0);
  }
  for (int i = 0; i < k; i++) free(in[i]);
  free(in);
  r2 = simple_bcast(s, &nnew, 1, SIMPLE_INT32, 0);
  if (!r2) r2 = simple_bcast(s, fresh, sizeof *fresh * (size_t)k, SIMPLE_BYTE, 0);
  if (r2) rc = r2;
  for (int i = 0; i < nnew && !rc; i++) {
    rc = basis_add(&b, fresh[i]);
    if (!rc) rc = add_pairs(&ps, b.G, b.ng - 1);
  }
  free(fresh);
  double t0 = simple_time();
  for (;;) {
    bad = rc;
    r2 = simple_allreduce(s, &rc, &bad, 1, SIMPLE_INT32, SIMPLE_MAX);
    if (r2 || bad) {
      rc = r2 ? r2 : rc ? rc : SIMPLE_ERR_PEER;
      break;
    }
    if (!ps.n) break;
    if (bcap < ps.n) {
      pair_t *x = realloc(batch, sizeof *x * (size_t)ps.n);
      if (!x) {
        rc = SIMPLE_ERR_NOMEM;
        continue;
      }
      batch = x, bcap = ps.n;
    }
    long nb = take_batch(&ps, batch);
    /* My pairs of the batch: remainders as values (pair index, name). */
    long nm = 0;
    if (mcap < nb + 1) {
      simple_obj_t *x = realloc(mine, sizeof *x * 2 * (size_t)(nb + 1));
      if (!x) {
        rc = SIMPLE_ERR_NOMEM;
        continue;
      }
      mine = x, mcap = nb + 1;
    }
    for (long a = me; a < nb && !rc; a += p) {
      poly_t *h = spoly(b.G[batch[a].i], b.G[batch[a].j]);
      h = h ? reduce(h, b.G, b.ng, NULL, 0) : NULL;
      if (!h) {
        rc = SIMPLE_ERR_NOMEM;
        break;
      }
      if (h->nterms) {
        monic(h);
        mine[2 * nm].where = (uint64_t)a, mine[2 * nm].what = 0;
        rc = simple_shobj_value(s, b.sp, h, pbytes(h), &mine[2 * nm + 1]);
        nm++;
      }
      free(h);
    }
    res->pairs += nb;
    int c = (int)nm;
    r2 = simple_allgather(s, &c, cnt, 1, SIMPLE_INT32);
    long tot = 0;
    for (int t = 0; t < p && !r2; t++) {
      counts[t] = 2 * sizeof(simple_obj_t) * (size_t)cnt[t];
      counts[p + t] = 2 * sizeof(simple_obj_t) * (size_t)tot;
      tot += cnt[t];
    }
    res->reductions_to_zero += nb - tot;
    simple_obj_t *x = r2 ? NULL : realloc(all, sizeof *x * 2 * (size_t)(tot + 1));
    if (!r2 && !x) r2 = SIMPLE_ERR_NOMEM;
    if (!r2) all = x;
    if (!r2)
      r2 = simple_allgatherv(s, mine, 2 * sizeof(simple_obj_t) * (size_t)nm, all, counts,
                             counts + p, SIMPLE_BYTE);
    if (r2) {
      rc = r2;
      continue;
    }
    /* Thread 0 of node 0 adds them in pair order, each reduced again. */
    int added = 0;
    simple_obj_t *newn = malloc(sizeof *newn * (size_t)(tot + 1));
    if (!newn) rc = SIMPLE_ERR_NOMEM;
    if (!rc && me == 0) {
      /* pair order: sort (index, name) by index */
      for (long a = 1; a < tot; a++)
        for (long z = a; z > 0 && all[2 * z].where < all[2 * z - 2].where; z--) {
          simple_obj_t t0n = all[2 * z], t1n = all[2 * z + 1];
          all[2 * z] = all[2 * z - 2], all[2 * z + 1] = all[2 * z - 1];
          all[2 * z - 2] = t0n, all[2 * z - 1] = t1n;
        }
      /* One group fetch of the remainders homed on other nodes: one
       * latency per round instead of one per remainder (paper 003's
       * prefetch). Only a prefetch: its error (a full cache) is left to
       * the reads below, which report their own. newn is free until the
       * loop writes it, entry a at or before step a. */
      for (long a = 0; a < tot; a++) newn[a] = all[2 * a + 1];
      (void)simple_shobj_fetch(s, b.sp, newn, (size_t)tot);
      poly_t **add = malloc(sizeof *add * (size_t)(tot + 1));
      for (long a = 0; a < tot && !rc; a++) {
        const void *hp;
        rc = simple_shobj_read(s, b.sp, all[2 * a + 1], &hp, NULL);
        if (rc) break;
        poly_t *h = reduce(pcopy(hp), b.G, b.ng, (const poly_t *const *)add, added);
        simple_shobj_done(s, b.sp, all[2 * a + 1]);
        if (h->nterms) {
          monic(h);
          add[added] = h;
          rc = simple_shobj_value(s, b.sp, h, pbytes(h), &newn[added]);
          added++;
        } else {
          free(h);
          res->reductions_to_zero++;
        }
      }
      for (int a = 0; a < added; a++) free(add[a]);
      free(add);
    }
    r2 = simple_bcast(s, &added, 1, SIMPLE_INT32, 0);
    if (!r2 && added) r2 = simple_bcast(s, newn, sizeof *newn * (size_t)added, SIMPLE_BYTE, 0);
    if (me != 0 && !r2) res->reductions_to_zero += tot - added;
    if (r2) rc = r2;
    for (int a = 0; a < added && !rc; a++) {
      rc = basis_add(&b, newn[a]);
      if (!rc) rc = add_pairs(&ps, b.G, b.ng - 1);
    }
    free(newn);
  }
  res->time_s = simple_time() - t0;
  if (!rc) rc = simple_allreduce(s, SIMPLE_IN_PLACE, &res->time_s, 1, SIMPLE_DOUBLE, SIMPLE_MAX);
  if (!rc) rc = finish(b.G, b.ng, res);
  simple_barrier(s);
  simple_shobj_stats(s, b.sp, &res->cache);
  for (int i = 0; i < b.ng; i++) simple_shobj_done(s, b.sp, b.names[i]);
  int r4 = simple_shobj_close(s, b.sp);
  free(b.names), free(b.G), free(ps.v), free(batch), free(mine), free(all), free(cnt), free(counts);
  return rc ? rc : r4;
}

/* ---------------------------------------------------------------------
 * Checks. */

int simple_groebner_is_reduced_basis(poly_t *const *G, int k) {
  for (int i = 0; i < k; i++) {
    if (!G[i]->nterms || G[i]->t[0].coef != 1) return 0;
    for (int j = 0; j < k; j++) {
      if (j == i) continue;
      for (int q = 0; q < G[i]->nterms; q++)
        if (divides(G[j]->t[0].e, G[i]->t[q].e)) return 0;
    }
  }
  for (int i = 0; i < k; i++)
    for (int j = i + 1; j < k; j++) {
      poly_t *h = spoly(G[i], G[j]);
      h = reduce(h, (const poly_t *const *)G, k, NULL, 0);
      int zero = h && h->nterms == 0;
      free(h);
      if (!zero) return 0;
    }
  return 1;
}

int simple_groebner_equal(const simple_groebner_result_t *a, const simple_groebner_result_t *b) {
  if (a->npolys != b->npolys) return 0;
  for (int i = 0; i < a->npolys; i++)
    if (a->polys[i]->nterms != b->polys[i]->nterms ||
        memcmp(a->polys[i]->t, b->polys[i]->t, sizeof(term_t) * (size_t)a->polys[i]->nterms))
      return 0;
  return 1;
}

void simple_groebner_free(simple_groebner_result_t *res) {
  if (!res || !res->polys) return;
  for (int i = 0; i < res->npolys; i++) free(res->polys[i]);
  free(res->polys);
  res->polys = NULL;
  res->npolys = 0;
}
