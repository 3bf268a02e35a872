/* simple-bench model: the cost model of bench/model/model.tsv, calibrated
 * on this machine and checked against what ran here.
 *
 * Parameters are measured (the CSV files of other suites): the cost of one
 * message against its size, as a curve read by interpolation, from the
 * ping-pong's intra-node MPI row (mi), its inter-node MPI row (mn; TCP
 * between virtual nodes with --vcluster) and simple's intra-node row (cp,
 * one copy per message); bb from the hybrid barrier on one node. Then
 * every (collective, size, layout) measured by `simple-bench coll` is
 * predicted for both sides (hybrid; flat MPI with Open MPI's default
 * collectives), with the relative error, and hybrid-against-flat ratios are
 * projected for clusters of 16, 128, 1024 nodes x 32, 64, 128 cores on a
 * network of 1.5 us and 12.5 GB/s. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#ifndef SIMPLE_MODEL_DIR
#define SIMPLE_MODEL_DIR "bench/model"
#endif

/* ------------------------------------------------------------------------
 * A tiny expression evaluator for the model's formulas. */
enum { V_P, V_R, V_PP, V_N, V_L, V_AI, V_BI, V_AN, V_BN, V_BB, V_BM, NVARS };
static const char *const var_names[NVARS] = {"P",  "r",  "p",  "n",  "L", "ai",
                                             "bi", "an", "bn", "bb", "bm"};
typedef struct {
  const char *s;
  const double *v;
  int err;
} ex_t;

/* A measured cost curve: time against bytes, read between the measured
 * sizes by linear interpolation and beyond the largest by the last
 * segment's slope. A curve with lin set is alpha + beta m instead (the
 * projected network). */
#define MAX_PTS 32
typedef struct {
  double xs[MAX_PTS], ys[MAX_PTS];
  int np, lin;
  double alpha, beta;
} curve_t;

static double curve_at(const curve_t *c, double m) {
  if (c->lin) return c->alpha + c->beta * m;
  if (c->np == 0) return NAN;
  if (m <= c->xs[0] || c->np == 1) return c->ys[0];
  int k = 1;
  while (k < c->np - 1 && c->xs[k] < m) k++;
  double sl = (c->ys[k] - c->ys[k - 1]) / (c->xs[k] - c->xs[k - 1]);
  return c->ys[k - 1] + sl * (m - c->xs[k - 1]);
}

/* The curves the formulas' functions read: one intra-node MPI message
 * (mi), one inter-node MPI message (mn), simple's copy of m bytes in
 * shared memory (cp: its intra-node ping-pong less its empty message). */
static const curve_t *cur_mi, *cur_mn, *cur_cp;

/* Cores a node's threads run on: k threads each copying m bytes at once
 * take ceil(k / w) copy times (threads that share a core copy in turn).
 * The node's memory bandwidth is taken as w times one copy's: true here,
 * optimistic for large copies on a node of many cores. */
static double copy_width = 1;

static double copies(double m, double k) {
  if (k < 1) k = 1;
  double one = fmax(0, curve_at(cur_cp, m) - curve_at(cur_cp, 0));
  return one * ceil(k / fmax(1, copy_width) - 1e-9);
}

static double ex_sum(ex_t *e);
static void ex_ws(ex_t *e) {
  while (isspace((unsigned char)*e->s)) e->s++;
}
static double ex_atom(ex_t *e) {
  ex_ws(e);
  if (*e->s == '(') {
    e->s++;
    double x = ex_sum(e);
    ex_ws(e);
    if (*e->s == ')')
      e->s++;
    else
      e->err = 1;
    return x;
  }
  if (*e->s == '-') {
    e->s++;
    return -ex_atom(e);
  }
  if (isdigit((unsigned char)*e->s) || *e->s == '.') {
    char *end;
    double x = strtod(e->s, &end);
    e->s = end;
    return x;
  }
  char name[16];
  int k = 0;
  while ((isalnum((unsigned char)*e->s) || *e->s == '_') && k < 15) name[k++] = *e->s++;
  name[k] = '\0';
  ex_ws(e);
  if (*e->s == '(') { /* a function of one or two arguments */
    e->s++;
    double a = ex_sum(e), b = 0;
    ex_ws(e);
    if (*e->s == ',') e->s++, b = ex_sum(e), ex_ws(e);
    if (*e->s == ')')
      e->s++;
    else
      e->err = 1;
    if (!strcmp(name, "lg")) return a <= 1 ? 0 : ceil(log2(a) - 1e-9);
    if (!strcmp(name, "max")) return a > b ? a : b;
    if (!strcmp(name, "min")) return a < b ? a : b;
    if (!strcmp(name, "lt")) return a < b;
    if (!strcmp(name, "ge")) return a >= b;
    if (!strcmp(name, "np2"))
      return a >= 1 && (((unsigned long long)a) & ((unsigned long long)a - 1));
    if (!strcmp(name, "mi")) return curve_at(cur_mi, a);
    if (!strcmp(name, "mn")) return curve_at(cur_mn, a);
    if (!strcmp(name, "cp")) return copies(a, 1);
    if (!strcmp(name, "cpn")) return copies(a, b);
    e->err = 1;
    return 0;
  }
  for (int i = 0; i < NVARS; i++)
    if (!strcmp(name, var_names[i])) return e->v[i];
  e->err = 1;
  return 0;
}
static double ex_prod(ex_t *e) {
  double x = ex_atom(e);
  for (;;) {
    ex_ws(e);
    if (*e->s == '*')
      e->s++, x *= ex_atom(e);
    else if (*e->s == '/')
      e->s++, x /= ex_atom(e);
    else
      return x;
  }
}
static double ex_sum(ex_t *e) {
  double x = ex_prod(e);
  for (;;) {
    ex_ws(e);
    if (*e->s == '+')
      e->s++, x += ex_prod(e);
    else if (*e->s == '-')
      e->s++, x -= ex_prod(e);
    else
      return x;
  }
}

#define MAX_F 64
typedef struct {
  char op[24], side[8], formula[512];
} formula_t;
static formula_t forms[MAX_F];
static int nforms;

static int load_model(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "simple-bench model: cannot read %s: %s\n", path, strerror(errno));
    return 1;
  }
  char line[1024];
  while (fgets(line, sizeof line, f) && nforms < MAX_F) {
    if (line[0] == '#' || !strncmp(line, "op\t", 3) || line[0] == '\n') continue;
    formula_t *m = &forms[nforms];
    if (sscanf(line, "%23[^\t]\t%7[^\t]\t%511[^\n]", m->op, m->side, m->formula) == 3) nforms++;
  }
  fclose(f);
  if (!nforms) {
    fprintf(stderr, "simple-bench model: no formulas in %s\n", path);
    return 1;
  }
  /* Read every formula once now, so that one it cannot read is refused
   * before anything runs (the curves are empty: only the syntax counts). */
  static const curve_t empty;
  cur_mi = cur_mn = cur_cp = &empty;
  const double ones[NVARS] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  int bad = 0;
  for (int i = 0; i < nforms; i++) {
    ex_t e = {forms[i].formula, ones, 0};
    ex_sum(&e);
    ex_ws(&e);
    if (e.err || *e.s) {
      fprintf(stderr, "simple-bench model: %s: bad formula for %s %s: %s\n", path, forms[i].op,
              forms[i].side, forms[i].formula);
      bad = 1;
    }
  }
  return bad;
}

static double predict(const char *op, const char *side, const double *v, int *found) {
  for (int i = 0; i < nforms; i++)
    if (!strcmp(forms[i].op, op) && !strcmp(forms[i].side, side)) {
      ex_t e = {forms[i].formula, v, 0};
      double x = ex_sum(&e);
      *found = !e.err;
      if (e.err) fprintf(stderr, "simple-bench model: bad formula for %s %s\n", op, side);
      return x;
    }
  *found = 0;
  return NAN;
}

/* ------------------------------------------------------------------------
 * Measurements: CSV files of pingpong and coll. */
static int csv_col(char *hdr, const char *name) {
  int k = 0;
  for (char *t = strtok(hdr, ",\n"); t; t = strtok(NULL, ",\n"), k++)
    if (!strcmp(t, name)) return k;
  return -1;
}
static void csv_field(const char *line, int k, char *dst, size_t len) {
  const char *p = line;
  for (int i = 0; i < k && p; i++) {
    p = strchr(p, ',');
    if (p) p++;
  }
  if (!p) {
    dst[0] = '\0';
    return;
  }
  snprintf(dst, len, "%.*s", (int)strcspn(p, ",\n"), p);
}

typedef struct {
  double lat, slope; /* us at the smallest size > 0, us per byte to the largest */
  int ok;
  curve_t curve; /* every measured size, 0 included, in order */
} link_t;

/* From a pingpong CSV: row `row`, column `col` (simple_us or mpi_us). */
static link_t fit_link(const char *path, const char *row, const char *col) {
  link_t l;
  memset(&l, 0, sizeof l);
  FILE *f = fopen(path, "r");
  if (!f) return l;
  char hdr[1024], line[1024], b[64], r[64], t[64];
  if (!fgets(hdr, sizeof hdr, f)) {
    fclose(f);
    return l;
  }
  char h2[1024];
  snprintf(h2, sizeof h2, "%s", hdr);
  int kr = csv_col(h2, "row");
  snprintf(h2, sizeof h2, "%s", hdr);
  int kb = csv_col(h2, "bytes");
  snprintf(h2, sizeof h2, "%s", hdr);
  int kt = csv_col(h2, col);
  curve_t *c = &l.curve;
  while (fgets(line, sizeof line, f) && c->np < MAX_PTS) {
    csv_field(line, kr, r, sizeof r);
    csv_field(line, kb, b, sizeof b);
    csv_field(line, kt, t, sizeof t);
    double x = atof(b), y = atof(t);
    if (strcmp(r, row) || x < 0 || !(y > 0)) continue;
    int k = c->np++; /* insertion in order of size */
    while (k > 0 && c->xs[k - 1] > x) c->xs[k] = c->xs[k - 1], c->ys[k] = c->ys[k - 1], k--;
    c->xs[k] = x, c->ys[k] = y;
  }
  fclose(f);
  /* The summary figures printed with the fit: the latency at the smallest
   * size above 0; the per-byte cost the least slope from there to any size
   * of 4 KiB or more (noise on a shared machine only ever adds time). The
   * formulas read the whole curve (mi, mn, cp). */
  int k0 = -1, found = 0;
  for (int i = 0; i < c->np; i++)
    if (c->xs[i] > 0 && (k0 < 0 || c->xs[i] < c->xs[k0])) k0 = i;
  for (int i = 0; i < c->np && k0 >= 0; i++) {
    if (c->xs[i] < 4096) continue;
    double sl = (c->ys[i] - c->ys[k0]) / (c->xs[i] - c->xs[k0]);
    if (sl > 0 && (!found || sl < l.slope)) l.slope = sl, found = 1;
  }
  if (k0 >= 0) l.lat = c->ys[k0];
  l.ok = c->np >= 2; /* a curve needs two sizes */
  return l;
}

typedef struct {
  char op[24];
  double bytes;
  int N, T, vc;
  double hyb, flat;
} meas_t;
#define MAX_MEAS 512
static meas_t meas[MAX_MEAS];
static int nmeas;

static void load_coll(const char *path, int vc) {
  FILE *f = fopen(path, "r");
  if (!f) return;
  char hdr[1024], line[1024], fld[64];
  if (!fgets(hdr, sizeof hdr, f)) {
    fclose(f);
    return;
  }
  static const char *const names[] = {"op",      "bytes",     "nodes",
                                      "threads", "simple_us", "mpi_default_us"};
  int k[6];
  for (int i = 0; i < 6; i++) {
    char h2[1024];
    snprintf(h2, sizeof h2, "%s", hdr);
    k[i] = csv_col(h2, names[i]);
  }
  while (fgets(line, sizeof line, f) && nmeas < MAX_MEAS) {
    meas_t *m = &meas[nmeas];
    csv_field(line, k[0], m->op, sizeof m->op);
    csv_field(line, k[1], fld, sizeof fld), m->bytes = atof(fld);
    csv_field(line, k[2], fld, sizeof fld), m->N = atoi(fld);
    csv_field(line, k[3], fld, sizeof fld), m->T = atoi(fld);
    csv_field(line, k[4], fld, sizeof fld), m->hyb = fld[0] ? atof(fld) : NAN;
    csv_field(line, k[5], fld, sizeof fld), m->flat = fld[0] ? atof(fld) : NAN;
    m->vc = vc;
    nmeas++;
  }
  fclose(f);
}

static double bb_fit = NAN;

static void model_usage(FILE *f) {
  fprintf(f,
          "usage: simple-bench model [--measure | --fill] [--vcluster] [--dir DIR] [--csv FILE]\n"
          "                          [--model FILE.tsv]\n"
          "  the cost model (bench/model/model.tsv): parameters fitted from the CSV files in\n"
          "  DIR (pingpong.csv, coll-1x2.csv, coll-2x1.csv, and with --vcluster\n"
          "  pingpong-vc.csv, coll-2x1-vc.csv, coll-2x2-vc.csv); --measure runs those suites\n"
          "  (--quick) first, --fill only those whose file is missing.\n"
          "  Prints measured against predicted per collective, size and layout, and the\n"
          "  projected flat/hybrid time ratios for 16..1024 nodes x 32..128 cores on a\n"
          "  network of 1.5 us and 12.5 GB/s.\n");
}

static int fill_only; /* --fill: run only the inputs missing from DIR */

static int run_quick(const char *dir, const char *bin, const char *args, const char *out) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "%s/%s", dir, out);
  if (fill_only && access(cmd, R_OK) == 0) return 0;
  snprintf(cmd, sizeof cmd, "'%s/simple-bench' %s --quick --csv '%s/%s' >/dev/null", bin, args, dir,
           out);
  fprintf(stderr, "  simple-bench %s --quick\n", args);
  int rc = system(cmd);
  if (rc != 0) fprintf(stderr, "simple-bench model: '%s' failed\n", cmd);
  return rc;
}

int bench_model_suite(int argc, char **argv) {
  int measure = 0, vcluster = 0;
  fill_only = 0;
  const char *dir = "model-data", *csv = NULL, *model = SIMPLE_MODEL_DIR "/model.tsv";
  const bench_opt_t opts[] = {{"--measure", BENCH_FLAG, &measure, 0, 0, NULL},
                              {"--fill", BENCH_FLAG, &fill_only, 0, 0, NULL},
                              {"--vcluster", BENCH_FLAG, &vcluster, 0, 0, NULL},
                              {"--dir", BENCH_WORD, &dir, 0, 0, NULL},
                              {"--csv", BENCH_WORD, &csv, 0, 0, NULL},
                              {"--model", BENCH_WORD, &model, 0, 0, NULL},
                              {0}};
  int prc = bench_parse(argc, argv, opts, model_usage);
  if (prc) return prc == 1 ? 0 : prc;
  if (load_model(model)) return 1;
  char bin[4096];
  bench_self_dir(bin, sizeof bin);
  if (measure || fill_only) {
    char mk[4300];
    snprintf(mk, sizeof mk, "mkdir -p '%s'", dir);
    if (system(mk) != 0) return 1;
    if (run_quick(dir, bin, "pingpong", "pingpong.csv") ||
        run_quick(dir, bin, "coll -N 1 -t 2", "coll-1x2.csv") ||
        run_quick(dir, bin, "coll -N 2 -t 1", "coll-2x1.csv"))
      return 1;
    if (vcluster && (run_quick(dir, bin, "pingpong --vcluster", "pingpong-vc.csv") ||
                     run_quick(dir, bin, "coll -N 2 -t 1 --vcluster", "coll-2x1-vc.csv") ||
                     run_quick(dir, bin, "coll -N 2 -t 2 --vcluster", "coll-2x2-vc.csv")))
      return 1;
  }
  char path[4300];
  snprintf(path, sizeof path, "%s/pingpong.csv", dir);
  link_t intra = fit_link(path, "intra", "mpi_us"), copy = fit_link(path, "intra", "simple_us");
  link_t inter_local = fit_link(path, "inter", "mpi_us");
  snprintf(path, sizeof path, "%s/pingpong-vc.csv", dir);
  link_t inter_vc = fit_link(path, "inter", "mpi_us");
  if (!intra.ok || !copy.ok || !inter_local.ok) {
    fprintf(stderr, "simple-bench model: no usable %s/pingpong.csv (run with --measure)\n", dir);
    return 1;
  }
  snprintf(path, sizeof path, "%s/coll-1x2.csv", dir);
  load_coll(path, 0);
  snprintf(path, sizeof path, "%s/coll-2x1.csv", dir);
  load_coll(path, 0);
  snprintf(path, sizeof path, "%s/coll-2x1-vc.csv", dir);
  load_coll(path, 1);
  snprintf(path, sizeof path, "%s/coll-2x2-vc.csv", dir);
  load_coll(path, 1);
  for (int i = 0; i < nmeas; i++)
    if (!strcmp(meas[i].op, "barrier") && meas[i].N == 1) bb_fit = meas[i].hyb;
  if (isnan(bb_fit)) bb_fit = 0.2;
  int cores = bench_usable_cores();
  printf("simple-bench model: %s, parameters fitted here (%d cores):\n", model, cores);
  printf("  ai %.3f us, bi %.6f us/B (%.2f GB/s)  [intra-node MPI ping-pong]\n", intra.lat,
         intra.slope, 1e-3 / intra.slope);
  printf("  bm %.6f us/B (%.2f GB/s)  [simple's intra-node copy]\n", copy.slope, 1e-3 / copy.slope);
  printf("  an %.3f us, bn %.6f us/B (%.2f GB/s)  [inter-node MPI ping-pong, local processes]\n",
         inter_local.lat, inter_local.slope, 1e-3 / inter_local.slope);
  if (inter_vc.ok)
    printf("  an %.3f us, bn %.6f us/B (%.2f GB/s)  [inter-node MPI ping-pong, virtual cluster]\n",
           inter_vc.lat, inter_vc.slope, 1e-3 / inter_vc.slope);
  printf("  bb %.3f us  [hybrid barrier on one node]\n\n", bb_fit);
  FILE *out = NULL;
  if (bench_open_csv(csv, &out)) return 1;
  if (out)
    fprintf(out,
            "suite,kind,op,layout,bytes,hybrid_us,hybrid_pred_us,hybrid_err,flat_us,"
            "flat_pred_us,flat_err,ratio_pred\n");
  printf("%-10s %-9s %8s | %10s %10s %7s | %10s %10s %7s\n", "op", "layout", "bytes", "hyb_us",
         "hyb_pred", "err", "flat_us", "flat_pred", "err");
  int miss = 0, total = 0;
  for (int i = 0; i < nmeas; i++) {
    meas_t *m = &meas[i];
    link_t net = m->vc && inter_vc.ok ? inter_vc : inter_local;
    /* Cores per node: the virtual cluster gives each node its share of
     * this host's cores (a cpuset), local processes share them alike. */
    double node_cores = fmax(1, (double)cores / m->N);
    cur_mi = &intra.curve, cur_cp = &copy.curve, cur_mn = &net.curve;
    copy_width = fmin(m->T, node_cores);
    double v[NVARS] = {
        m->N,      m->T,        m->N * m->T, m->bytes,  m->N * m->T > cores ? 1 : m->T,
        intra.lat, intra.slope, net.lat,     net.slope, bb_fit,
        copy.slope};
    int f1, f2;
    double ph = predict(m->op, "hybrid", v, &f1), pf = predict(m->op, "flat", v, &f2);
    if (!f1 && !f2) continue;
    double eh = (ph - m->hyb) / m->hyb, ef = (pf - m->flat) / m->flat;
    char lay[16];
    snprintf(lay, sizeof lay, "%dx%d%s", m->N, m->T, m->vc ? "vc" : "");
    printf("%-10s %-9s %8.0f | %10.2f %10.2f %6.0f%% | %10.2f %10.2f %6.0f%%%s\n", m->op, lay,
           m->bytes, m->hyb, ph, 100 * eh, m->flat, pf, 100 * ef,
           fabs(eh) > 0.3 || fabs(ef) > 0.3 ? "  miss" : "");
    total += 2;
    miss += (fabs(eh) > 0.3) + (fabs(ef) > 0.3);
    if (out)
      fprintf(out, "model,measured,%s,%s,%.0f,%.4f,%.4f,%.3f,%.4f,%.4f,%.3f,\n", m->op, lay,
              m->bytes, m->hyb, ph, eh, m->flat, pf, ef);
  }
  printf("%d of %d predictions within 30%%\n\n", total - miss, total);
  /* Projections: a network of 1.5 us and 12.5 GB/s, the intra-node
   * parameters of this machine, every thread a core (L = r). */
  const double an = 1.5, bn = 1.0 / 12500.0;
  curve_t network = {.lin = 1, .alpha = an, .beta = bn};
  static const int Ps[] = {16, 128, 1024}, Rs[] = {32, 64, 128};
  static const double Ns[] = {8, 4096, 65536};
  static const char *const ops[] = {"barrier",   "bcast",    "allreduce",
                                    "allgather", "alltoall", "gather"};
  printf("projected flat/hybrid time (above 1: hybrid faster), network 1.5 us, 12.5 GB/s:\n");
  printf("%-10s %8s", "op", "bytes");
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) printf(" %8s", "");
  printf("\n%-10s %8s", "", "");
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      char h[16];
      snprintf(h, sizeof h, "%dx%d", Ps[a], Rs[b]);
      printf(" %8s", h);
    }
  printf("\n");
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
    for (int k = 0; k < 3; k++) {
      if (!strcmp(ops[o], "barrier") && k) continue;
      printf("%-10s %8.0f", ops[o], Ns[k]);
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
          cur_mi = &intra.curve, cur_cp = &copy.curve, cur_mn = &network;
          copy_width = Rs[b];
          double v[NVARS] = {Ps[a],       Rs[b],     (double)Ps[a] * Rs[b],
                             Ns[k],       Rs[b],     intra.lat,
                             intra.slope, an,        bn,
                             bb_fit,      copy.slope};
          int f1, f2;
          double ph = predict(ops[o], "hybrid", v, &f1), pf = predict(ops[o], "flat", v, &f2);
          printf(" %8.2f", pf / ph);
          if (out)
            fprintf(out, "model,projected,%s,%dx%d,%.0f,,%.4f,,,%.4f,,%.4f\n", ops[o], Ps[a], Rs[b],
                    Ns[k], ph, pf, pf / ph);
        }
      printf("\n");
    }
  if (out && fclose(out) != 0) return 1;
  return 0;
}
