/* Barnes-Hut over the node-shared object cache: see simple_barnes.h. */
#include "simple_barnes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define MAXLEV 21 /* key bits per dimension */
#define GROUP  16 /* bodies walked together */

enum { EMPTY = 0, BODY = 1, CELL = 2, TOP = 3 };

/* A child's summary: what a walk needs to decide whether to open it. */
typedef struct {
  double com[3], mass, center[3], half;
  simple_obj_t name; /* CELL: its shared value */
  int32_t kind;
  int32_t idx; /* BODY: its number; TOP: the top cell's index */
} item_t;

/* One shared value per cell: its eight children. */
typedef struct {
  item_t child[8];
} cellobj_t;

typedef struct {
  uint64_t key; /* the branch cell's first key */
  int32_t level, pad;
  item_t it;
} branch_t;

typedef struct {
  simple_t *s;
  simple_shobj_space_t *sp;
  int n, p, me, lo, hi;
  double *pos, *vel, *acc, *mass, *pack, *recv;
  double *cost; /* [n]: each body's interactions in the last step (costzones) */
  int *split;   /* [p + 1]: thread t's bodies are order[split[t] .. split[t+1]) */
  uint64_t *key;
  int *order;
  int ordered; /* order holds the last step's sort: re-sort from it */
  size_t *counts, *displs;
  double blo[3], bsize;
  branch_t *mybr, *allbr;
  int nmy, nall, cap_all;
  cellobj_t *top;
  int ntop, cap_top;
  item_t *list, *stack;
  size_t cap_list;
  item_t root;
  double theta, eps;
} ctx_t;

/* ---------------------------------------------------------------------
 * The Plummer model (Aarseth, Henon and Wielen 1974), in standard units. */

static double rnd(uint64_t *st) {
  uint64_t z = (*st += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  z ^= z >> 31;
  return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static void unit(uint64_t *st, double r, double *v) {
  double z = 2 * rnd(st) - 1, ph = 2 * M_PI * rnd(st), q = sqrt(1 - z * z);
  v[0] = r * q * cos(ph), v[1] = r * q * sin(ph), v[2] = r * z;
}

static void plummer(int n, unsigned seed, double *pos, double *vel, double *mass) {
  uint64_t st = (uint64_t)seed * UINT64_C(0x2545F4914F6CDD1D) + 7;
  double cp[3] = {0}, cv[3] = {0};
  double rs = 3 * M_PI / 16, vs = sqrt(16 / (3 * M_PI));
  for (int i = 0; i < n; i++) {
    double r;
    do r = 1 / sqrt(pow(rnd(&st), -2.0 / 3) - 1);
    while (r > 9);
    double x, y;
    do x = rnd(&st), y = 0.1 * rnd(&st);
    while (y > x * x * pow(1 - x * x, 3.5));
    double v = x * sqrt(2.0) * pow(1 + r * r, -0.25);
    unit(&st, r * rs, pos + 3 * (size_t)i);
    unit(&st, v * vs, vel + 3 * (size_t)i);
    mass[i] = 1.0 / n;
    for (int k = 0; k < 3; k++) cp[k] += pos[3 * i + k] / n, cv[k] += vel[3 * i + k] / n;
  }
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) pos[3 * i + k] -= cp[k], vel[3 * i + k] -= cv[k];
}

/* ---------------------------------------------------------------------
 * Keys and cells. */

static uint64_t spread(uint64_t x) {
  x &= 0x1fffff;
  x = (x | x << 32) & 0x1f00000000ffffULL;
  x = (x | x << 16) & 0x1f0000ff0000ffULL;
  x = (x | x << 8) & 0x100f00f00f00f00fULL;
  x = (x | x << 4) & 0x10c30c30c30c30c3ULL;
  x = (x | x << 2) & 0x1249249249249249ULL;
  return x;
}

static uint64_t key_of(const ctx_t *c, const double *x) {
  uint64_t k = 0;
  for (int d = 0; d < 3; d++) {
    double u = (x[d] - c->blo[d]) / c->bsize * (double)(1 << MAXLEV);
    uint64_t i = u < 0 ? 0 : u >= (1 << MAXLEV) ? (1 << MAXLEV) - 1 : (uint64_t)u;
    k |= spread(i) << (2 - d);
  }
  return k;
}

/* The box of the cell of `level` that holds key. */
static void cell_box(const ctx_t *c, int level, uint64_t key, double *center, double *half) {
  double h = c->bsize / 2;
  double ce[3] = {c->blo[0] + h, c->blo[1] + h, c->blo[2] + h};
  for (int l = 1; l <= level; l++) {
    int dg = (int)(key >> (3 * (MAXLEV - l))) & 7;
    h /= 2;
    ce[0] += (dg & 4) ? h : -h;
    ce[1] += (dg & 2) ? h : -h;
    ce[2] += (dg & 1) ? h : -h;
  }
  memcpy(center, ce, sizeof ce);
  *half = h;
}

static void summarize(item_t *out, const item_t *ch) {
  out->mass = 0;
  double m[3] = {0, 0, 0};
  for (int k = 0; k < 8; k++) {
    out->mass += ch[k].mass;
    for (int d = 0; d < 3; d++) m[d] += ch[k].mass * ch[k].com[d];
  }
  for (int d = 0; d < 3; d++) out->com[d] = out->mass > 0 ? m[d] / out->mass : out->center[d];
}

static int cmp_key(const void *a, const void *b, void *keys) {
  uint64_t x = ((const uint64_t *)keys)[*(const int *)a],
           y = ((const uint64_t *)keys)[*(const int *)b];
  return x < y ? -1 : x > y;
}

/* The subtree of the cell (level, key) over sorted bodies [b0, b1),
 * published bottom-up as shared values. */
static int build(ctx_t *c, int level, uint64_t key, int b0, int b1, item_t *out) {
  memset(out, 0, sizeof *out);
  cell_box(c, level, key, out->center, &out->half);
  if (b1 - b0 == 1) {
    int id = c->order[b0];
    out->kind = BODY;
    out->idx = id;
    out->mass = c->mass[id];
    memcpy(out->com, c->pos + 3 * (size_t)id, 3 * sizeof(double));
    return 0;
  }
  cellobj_t obj;
  memset(&obj, 0, sizeof obj);
  if (level == MAXLEV) { /* bodies with one key: children of a last cell */
    if (b1 - b0 > 8) return SIMPLE_ERR_COUNT;
    for (int i = b0; i < b1; i++) {
      item_t *ch = &obj.child[i - b0];
      int id = c->order[i];
      ch->kind = BODY;
      ch->idx = id;
      ch->mass = c->mass[id];
      memcpy(ch->com, c->pos + 3 * (size_t)id, 3 * sizeof(double));
    }
  } else {
    int shift = 3 * (MAXLEV - level - 1), i = b0;
    for (int dg = 0; dg < 8; dg++) {
      uint64_t ck = (key & ~((UINT64_C(8) << shift) - 1)) | ((uint64_t)dg << shift);
      int j = i;
      while (j < b1 && (int)((c->key[c->order[j]] >> shift) & 7) == dg) j++;
      if (j > i) {
        int rc = build(c, level + 1, ck, i, j, &obj.child[dg]);
        if (rc) return rc;
      } else {
        obj.child[dg].kind = EMPTY;
        cell_box(c, level + 1, ck, obj.child[dg].center, &obj.child[dg].half);
      }
      i = j;
    }
  }
  summarize(out, obj.child);
  out->kind = CELL;
  return simple_shobj_value(c->s, c->sp, &obj, sizeof obj, &out->name);
}

/* The top of the tree over gathered branch records [r0, r1), all inside
 * the cell (level, key). */
static int build_top(ctx_t *c, int level, uint64_t key, int r0, int r1, item_t *out) {
  memset(out, 0, sizeof *out);
  cell_box(c, level, key, out->center, &out->half);
  if (r1 == r0) return 0;
  if (r1 - r0 == 1 && c->allbr[r0].level == level) {
    *out = c->allbr[r0].it;
    return 0;
  }
  if (level >= MAXLEV) return SIMPLE_ERR_ARG;
  if (c->ntop == c->cap_top) {
    int nc = c->cap_top ? 2 * c->cap_top : 64;
    cellobj_t *t = realloc(c->top, sizeof *t * (size_t)nc);
    if (!t) return SIMPLE_ERR_NOMEM;
    c->top = t;
    c->cap_top = nc;
  }
  int me = c->ntop++;
  int shift = 3 * (MAXLEV - level - 1), i = r0;
  for (int dg = 0; dg < 8; dg++) {
    uint64_t ck = (key & ~((UINT64_C(8) << shift) - 1)) | ((uint64_t)dg << shift);
    int j = i;
    while (j < r1 && (int)((c->allbr[j].key >> shift) & 7) == dg) j++;
    item_t ch;
    int rc = build_top(c, level + 1, ck, i, j, &ch);
    if (rc) return rc;
    c->top[me].child[dg] = ch;
    i = j;
  }
  summarize(out, c->top[me].child);
  out->kind = TOP;
  out->idx = me;
  return 0;
}

/* ---------------------------------------------------------------------
 * One tree and the forces on this thread's bodies. */

static int grow_list(ctx_t *c, size_t need) {
  if (need <= c->cap_list) return 0;
  size_t nc = c->cap_list ? 2 * c->cap_list : 4096;
  while (nc < need) nc *= 2;
  item_t *l = realloc(c->list, sizeof *l * nc);
  if (!l) return SIMPLE_ERR_NOMEM;
  c->list = l;
  c->cap_list = nc;
  return 0;
}

static int walk_group(ctx_t *c, int g0, int g1) {
  double gmin[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, gmax[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (int i = g0; i < g1; i++)
    for (int d = 0; d < 3; d++) {
      double x = c->pos[3 * (size_t)c->order[i] + d];
      gmin[d] = fmin(gmin[d], x), gmax[d] = fmax(gmax[d], x);
    }
  size_t nl = 0, ns = 0;
  item_t stack[8 * (MAXLEV + 4)];
  stack[ns++] = c->root;
  double th2 = c->theta * c->theta;
  while (ns) {
    item_t it = stack[--ns];
    if (it.kind == EMPTY || it.mass == 0) continue;
    int open = 0;
    if (it.kind != BODY) {
      double d2 = 0, o = 1;
      for (int d = 0; d < 3; d++) {
        double e = fmax(0, fmax(gmin[d] - it.com[d], it.com[d] - gmax[d]));
        d2 += e * e;
        /* the cell's box and the group's overlap: always open */
        if (it.center[d] + it.half < gmin[d] || it.center[d] - it.half > gmax[d]) o = 0;
      }
      open = o || 4 * it.half * it.half >= th2 * d2;
    }
    if (!open) {
      int rc = grow_list(c, nl + 1);
      if (rc) return rc;
      c->list[nl++] = it;
      continue;
    }
    if (it.kind == TOP) {
      for (int k = 0; k < 8; k++) stack[ns++] = c->top[it.idx].child[k];
    } else {
      const cellobj_t *obj;
      int rc = simple_shobj_read(c->s, c->sp, it.name, (const void **)&obj, NULL);
      if (rc) return rc;
      memcpy(stack + ns, obj->child, sizeof obj->child);
      ns += 8;
      rc = simple_shobj_done(c->s, c->sp, it.name);
      if (rc) return rc;
    }
  }
  double e2 = c->eps * c->eps;
  for (int i = g0; i < g1; i++) {
    int id = c->order[i];
    const double *x = c->pos + 3 * (size_t)id;
    double a[3] = {0, 0, 0};
    for (size_t k = 0; k < nl; k++) {
      const item_t *it = &c->list[k];
      if (it->kind == BODY && it->idx == id) continue;
      double d[3] = {it->com[0] - x[0], it->com[1] - x[1], it->com[2] - x[2]};
      double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + e2;
      double f = it->mass / (r2 * sqrt(r2));
      a[0] += f * d[0], a[1] += f * d[1], a[2] += f * d[2];
    }
    memcpy(c->acc + 3 * (size_t)id, a, sizeof a);
    c->cost[id] = (double)nl + 1;
  }
  return 0;
}

/* Doubles per body in the gather: position, velocity, acceleration, cost. */
#define PACKED 10

/* Sorts order by key again, from the last step's order: bodies move little
 * in a step, so an insertion sort moves few of them (every thread sorts
 * the whole set, the same way, so this is the replicated part of a step:
 * O(n + moves) instead of qsort's O(n log n); on 25,000 bodies the
 * speedup on 2 threads went from 1.25 to 1.51, docs/barnes.md). 0 when
 * the bodies moved too much (more than 16 moves per body): the caller
 * sorts from scratch. Stable, so the same on every thread. */
static int resort(int *order, int n, const uint64_t *key) {
  long moves = 0, cap = 16L * n;
  for (int i = 1; i < n; i++) {
    int id = order[i], j = i;
    while (j > 0 && key[order[j - 1]] > key[id]) {
      order[j] = order[j - 1];
      j--;
      if (++moves > cap) {
        order[j] = id; /* a permutation still, for the caller's restart */
        return 0;
      }
    }
    order[j] = id;
  }
  return 1;
}

/* The threads' shares of the sorted bodies (costzones, as SPLASH-2's
 * Barnes): contiguous runs of equal total cost, each body's cost its
 * interactions in the last step (1 before the first), so a thread whose
 * bodies sit in the dense core gets fewer of them. A boundary moves forward
 * past bodies that share the key before it, so no key belongs to two
 * threads. Every thread computes the same splits: the costs come from the
 * same gather and are summed in the same order. O(n). */
static void split_by_cost(ctx_t *c) {
  int n = c->n, p = c->p, t = 1;
  double total = 0, run = 0;
  for (int i = 0; i < n; i++) total += c->cost[c->order[i]];
  c->split[0] = 0;
  for (int i = 0; i < n && t < p; i++) {
    while (t < p && run >= total * t / p) c->split[t++] = i;
    run += c->cost[c->order[i]];
  }
  while (t < p) c->split[t++] = n;
  c->split[p] = n;
  for (t = 1; t < p; t++) {
    int b = c->split[t] < c->split[t - 1] ? c->split[t - 1] : c->split[t];
    while (b > 0 && b < n && c->key[c->order[b]] == c->key[c->order[b - 1]]) b++;
    c->split[t] = b;
  }
}

static int tree_and_forces(ctx_t *c) {
  simple_t *s = c->s;
  int n = c->n, rc;
  /* The bounding cube and the order, the same on every thread. */
  double mn[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, mx[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (int i = 0; i < n; i++)
    for (int d = 0; d < 3; d++)
      mn[d] = fmin(mn[d], c->pos[3 * i + d]), mx[d] = fmax(mx[d], c->pos[3 * i + d]);
  c->bsize = fmax(mx[0] - mn[0], fmax(mx[1] - mn[1], mx[2] - mn[2])) * 1.0001 + 1e-12;
  for (int d = 0; d < 3; d++) c->blo[d] = mn[d] - 0.00005 * c->bsize;
  for (int i = 0; i < n; i++) c->key[i] = key_of(c, c->pos + 3 * (size_t)i);
  if (!c->ordered || !resort(c->order, n, c->key)) {
    for (int i = 0; i < n; i++) c->order[i] = i;
    qsort_r(c->order, (size_t)n, sizeof(int), cmp_key, c->key);
    c->ordered = 1;
  }
  split_by_cost(c);
  c->lo = c->split[c->me];
  c->hi = c->split[c->me + 1];
  for (int t = 0; t < c->p; t++) {
    c->counts[t] = PACKED * (size_t)(c->split[t + 1] - c->split[t]);
    c->displs[t] = PACKED * (size_t)c->split[t];
  }
  /* This thread's key range and its branch cells. */
  uint64_t ka = c->lo == 0 ? 0 : c->key[c->order[c->lo]];
  uint64_t kb = c->hi == n ? (UINT64_C(1) << (3 * MAXLEV)) : c->key[c->order[c->hi]];
  if (c->lo == c->hi) ka = kb; /* no bodies: no range */
  c->nmy = 0;
  int at = c->lo;
  rc = 0;
  for (uint64_t a = ka; a < kb && !rc;) {
    int j = MAXLEV;
    while (j > 0 && ((a & ((UINT64_C(1) << (3 * j)) - 1)) || a + (UINT64_C(1) << (3 * j)) > kb))
      j--;
    uint64_t end = a + (UINT64_C(1) << (3 * j));
    int b = at;
    while (b < c->hi && c->key[c->order[b]] < end) b++;
    if (b > at) {
      branch_t *br = &c->mybr[c->nmy++];
      br->key = a;
      br->level = MAXLEV - j;
      rc = build(c, MAXLEV - j, a, at, b, &br->it);
    }
    at = b;
    a = end;
  }
  int bad = rc, r2 = simple_allreduce(s, &rc, &bad, 1, SIMPLE_INT32, SIMPLE_MAX);
  if (r2) return r2;
  if (bad) return rc ? rc : SIMPLE_ERR_PEER;
  /* Everyone's branches, in key order (thread order). */
  int *nb = malloc(sizeof(int) * (size_t)c->p);
  size_t *bc = malloc(sizeof(size_t) * 2 * (size_t)c->p);
  if (!nb || !bc) return free(nb), free(bc), SIMPLE_ERR_NOMEM;
  rc = simple_allgather(s, &c->nmy, nb, 1, SIMPLE_INT32);
  int tot = 0;
  for (int t = 0; t < c->p; t++)
    bc[t] = sizeof(branch_t) * (size_t)nb[t], bc[c->p + t] = sizeof(branch_t) * (size_t)tot,
    tot += nb[t];
  if (!rc && tot > c->cap_all) {
    branch_t *x = realloc(c->allbr, sizeof *x * (size_t)tot);
    if (!x)
      rc = SIMPLE_ERR_NOMEM;
    else
      c->allbr = x, c->cap_all = tot;
  }
  if (!rc)
    rc = simple_allgatherv(s, c->mybr, sizeof(branch_t) * (size_t)c->nmy, c->allbr, bc, bc + c->p,
                           SIMPLE_BYTE);
  free(nb);
  free(bc);
  if (rc) return rc;
  c->nall = tot;
  c->ntop = 0;
  rc = build_top(c, 0, 0, 0, tot, &c->root);
  for (int g = c->lo; g < c->hi && !rc; g += GROUP)
    rc = walk_group(c, g, g + GROUP < c->hi ? g + GROUP : c->hi);
  bad = rc;
  r2 = simple_allreduce(s, &rc, &bad, 1, SIMPLE_INT32, SIMPLE_MAX);
  if (r2) return r2;
  return bad ? (rc ? rc : SIMPLE_ERR_PEER) : 0;
}

/* Everyone's bodies from their owners: position, velocity, acceleration
 * and the cost of the step's force (PACKED doubles per body). */
static int gather(ctx_t *c) {
  for (int i = c->lo; i < c->hi; i++) {
    int id = c->order[i];
    double *q = c->pack + PACKED * (size_t)(i - c->lo);
    memcpy(q, c->pos + 3 * (size_t)id, 3 * sizeof(double));
    memcpy(q + 3, c->vel + 3 * (size_t)id, 3 * sizeof(double));
    memcpy(q + 6, c->acc + 3 * (size_t)id, 3 * sizeof(double));
    q[9] = c->cost[id];
  }
  int rc = simple_allgatherv(c->s, c->pack, PACKED * (size_t)(c->hi - c->lo), c->recv, c->counts,
                             c->displs, SIMPLE_DOUBLE);
  if (rc) return rc;
  for (int i = 0; i < c->n; i++) {
    int id = c->order[i];
    const double *q = c->recv + PACKED * (size_t)i;
    memcpy(c->pos + 3 * (size_t)id, q, 3 * sizeof(double));
    memcpy(c->vel + 3 * (size_t)id, q + 3, 3 * sizeof(double));
    memcpy(c->acc + 3 * (size_t)id, q + 6, 3 * sizeof(double));
    c->cost[id] = q[9];
  }
  return 0;
}

static void kick(ctx_t *c, double h, int drift) {
  for (int i = c->lo; i < c->hi; i++) {
    size_t id = (size_t)c->order[i];
    for (int d = 0; d < 3; d++) {
      c->vel[3 * id + d] += h * c->acc[3 * id + d];
      if (drift) c->pos[3 * id + d] += 2 * h * c->vel[3 * id + d];
    }
  }
}

static void momentum(const ctx_t *c, double *p, double *scale) {
  p[0] = p[1] = p[2] = 0;
  double sc = 0;
  for (int i = 0; i < c->n; i++) {
    const double *v = c->vel + 3 * (size_t)i;
    for (int d = 0; d < 3; d++) p[d] += c->mass[i] * v[d];
    sc += c->mass[i] * sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  }
  if (scale) *scale = sc;
}

static int opts_of(const simple_barnes_opts_t *in, simple_barnes_opts_t *o) {
  simple_barnes_opts_t d = {25000, 2, 0.025, 0.5, 0.025, 1, 0};
  if (in) {
    d = *in;
    if (!d.bodies) d.bodies = 25000;
    if (!d.dt) d.dt = 0.025;
    if (!d.theta) d.theta = 0.5;
    if (!d.eps) d.eps = 0.025;
  }
  *o = d;
  if (o->bodies < 2 || o->bodies > SIMPLE_BARNES_MAX_BODIES || o->steps < 0 || !(o->dt > 0) ||
      o->dt > 1 || !(o->theta > 0) || o->theta > 1.2 || !(o->eps > 0) || o->eps > 1 ||
      o->per_thread_cache < 0 || o->per_thread_cache > 1)
    return SIMPLE_ERR_ARG;
  return 0;
}

int simple_barnes_bodies(const simple_barnes_opts_t *opts, double *pos, double *vel, double *mass) {
  simple_barnes_opts_t o;
  int rc = opts_of(opts, &o);
  if (rc) return rc;
  if (!pos || !vel || !mass) return SIMPLE_ERR_NULL;
  plummer(o.bodies, o.seed, pos, vel, mass);
  return 0;
}

void simple_barnes_direct(int n, const double *pos, const double *mass, double eps, int i,
                          double a[3]) {
  a[0] = a[1] = a[2] = 0;
  const double *x = pos + 3 * (size_t)i;
  for (int j = 0; j < n; j++) {
    if (j == i) continue;
    double d[3] = {pos[3 * j] - x[0], pos[3 * j + 1] - x[1], pos[3 * j + 2] - x[2]};
    double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps * eps;
    double f = mass[j] / (r2 * sqrt(r2));
    for (int k = 0; k < 3; k++) a[k] += f * d[k];
  }
}

static void ctx_free(ctx_t *c) {
  free(c->pos), free(c->vel), free(c->acc), free(c->mass), free(c->pack), free(c->recv);
  free(c->cost), free(c->split);
  free(c->key), free(c->order), free(c->counts), free(c->mybr), free(c->allbr), free(c->top);
  free(c->list);
}

int simple_barnes(simple_t *s, const simple_barnes_opts_t *opts, simple_barnes_result_t *res,
                  double *pos, double *acc) {
  simple_barnes_opts_t o;
  int rc = res ? opts_of(opts, &o) : SIMPLE_ERR_NULL;
  ctx_t c;
  memset(&c, 0, sizeof c);
  if (!rc) {
    size_t n = (size_t)o.bodies;
    c.s = s, c.n = o.bodies, c.p = simple_nprocs(s), c.me = simple_pid(s);
    c.theta = o.theta, c.eps = o.eps;
    c.pos = malloc(24 * n), c.vel = malloc(24 * n), c.acc = calloc(n, 24), c.mass = malloc(8 * n);
    c.pack = malloc(8 * PACKED * n), c.recv = malloc(8 * PACKED * n), c.key = malloc(8 * n),
    c.order = malloc(sizeof(int) * n);
    c.cost = malloc(8 * n), c.split = malloc(sizeof(int) * ((size_t)c.p + 1));
    for (size_t i = 0; c.cost && i < n; i++) c.cost[i] = 1;
    c.counts = malloc(sizeof(size_t) * 2 * (size_t)c.p);
    c.mybr = malloc(sizeof(branch_t) * 8 * (MAXLEV + 1) * 2);
    if (!c.pos || !c.vel || !c.acc || !c.mass || !c.pack || !c.recv || !c.key || !c.order ||
        !c.counts || !c.mybr || !c.cost || !c.split)
      rc = SIMPLE_ERR_NOMEM;
    else
      c.displs = c.counts + c.p, plummer(c.n, o.seed, c.pos, c.vel, c.mass);
  }
  int bad = rc, r2 = simple_allreduce(s, &rc, &bad, 1, SIMPLE_INT32, SIMPLE_MAX);
  if (r2 || bad) {
    ctx_free(&c);
    return r2 ? r2 : rc ? rc : SIMPLE_ERR_PEER;
  }
  /* Room for every cell of the node's bodies: at most about one cell per
   * body, 768 bytes each, with the blocks' imbalance allowed for twice. */
  int nodes = simple_nodes(s);
  simple_shobj_opts_t so = {.heap_bytes = ((size_t)2 * c.n / nodes + 4096) * 800,
                            .per_thread = o.per_thread_cache};
  rc = simple_shobj_open(s, &so, &c.sp);
  if (rc) {
    ctx_free(&c);
    return rc;
  }
  momentum(&c, res->p_start, NULL);
  double t0 = simple_time(), h = o.dt / 2;
  rc = tree_and_forces(&c);
  for (int step = 0; step < o.steps && !rc; step++) {
    kick(&c, h, 1);
    rc = gather(&c);
    if (!rc) rc = simple_shobj_clear(s, c.sp);
    if (!rc) rc = tree_and_forces(&c);
    if (!rc) kick(&c, h, 0);
  }
  if (!rc) rc = gather(&c);
  res->time_s = simple_time() - t0;
  if (!rc) rc = simple_allreduce(s, SIMPLE_IN_PLACE, &res->time_s, 1, SIMPLE_DOUBLE, SIMPLE_MAX);
  if (!rc) {
    momentum(&c, res->p_end, &res->p_scale);
    simple_barrier(s);
    rc = simple_shobj_stats(s, c.sp, &res->cache);
    if (pos) memcpy(pos, c.pos, 24 * (size_t)c.n);
    if (acc) memcpy(acc, c.acc, 24 * (size_t)c.n);
  }
  int r3 = simple_shobj_close(s, c.sp);
  ctx_free(&c);
  return rc ? rc : r3;
}
