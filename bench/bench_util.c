/* Pieces every simple-bench driver shares: options, where the binaries
 * are, how many cores and how much memory there are, running a worker job
 * line by line, results by row and round. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <simple.h>

#include "bench.h"

void bench_self_dir(char *dir, size_t len) {
  ssize_t n = readlink("/proc/self/exe", dir, len - 1);
  if (n <= 0) {
    snprintf(dir, len, ".");
    return;
  }
  dir[n] = '\0';
  char *slash = strrchr(dir, '/');
  if (slash) *slash = '\0';
}

int bench_usable_cores(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

int bench_run_worker(const char *cmd, bench_line_fn *fn, void *ctx) {
  FILE *p = popen(cmd, "r");
  if (!p) {
    fprintf(stderr, "simple-bench: cannot run %s: %s\n", cmd, strerror(errno));
    return -1;
  }
  char line[1024];
  while (fgets(line, sizeof line, p))
    if (!fn(line, ctx)) fputs(line, stderr);
  int st = pclose(p);
  if (st != 0) {
    fprintf(stderr, "simple-bench: worker failed (status %d): %s\n", st, cmd);
    return -1;
  }
  return 0;
}

int bench_plot_check(const char *png) {
  for (const unsigned char *c = (const unsigned char *)png; *c; c++)
    if (*c < 0x20 || *c == 0x7f) {
      fprintf(stderr,
              "simple-bench: --plot: the file name has a control character; choose"
              " another name\n");
      return 1;
    }
  if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
    fprintf(stderr,
            "simple-bench: --plot needs gnuplot, which is not installed (or not in PATH);"
            " install it (e.g. apt-get install gnuplot-nox) or leave out --plot\n");
    return 1;
  }
  FILE *f = fopen(png, "w");
  if (!f) {
    fprintf(stderr, "simple-bench: --plot: cannot write %s: %s\n", png, strerror(errno));
    return 1;
  }
  fclose(f);
  return 0;
}

FILE *bench_plot_open(const char *png, int width, int height) {
  FILE *g = popen("gnuplot", "w");
  if (!g) {
    fprintf(stderr, "simple-bench: --plot: cannot run gnuplot: %s\n", strerror(errno));
    return NULL;
  }
  fprintf(g,
          "set datafile missing '?'\n"
          "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
          "  set terminal pngcairo size %d,%d font ',9'\n"
          "} else {\n"
          "  set terminal png size %d,%d\n"
          "}\n"
          "set output '",
          width, height, width, height);
  for (const char *c = png; *c; c++) {
    if (*c == '\'') fputc('\'', g);
    fputc(*c, g);
  }
  fputs("'\n", g);
  return g;
}

int bench_plot_close(FILE *g, const char *data) {
  fprintf(g, "unset multiplot\n");
  int st = pclose(g);
  if (data) unlink(data);
  if (st != 0) {
    fprintf(stderr, "simple-bench: --plot: gnuplot failed (status %d)\n", st);
    return 1;
  }
  return 0;
}

bench_row_t *bench_row(bench_table_t *t, const char *op, size_t bytes) {
  for (int i = 0; i < t->nrows; i++)
    if (t->rows[i].bytes == bytes && strcmp(t->rows[i].op, op) == 0) return &t->rows[i];
  if (t->nrows == t->cap) return NULL;
  bench_row_t *r = &t->rows[t->nrows++];
  memset(r, 0, sizeof *r);
  snprintf(r->op, sizeof r->op, "%s", op);
  r->bytes = bytes;
  return r;
}

void bench_row_add(bench_row_t *r, int side, double v) {
  if (r && side >= 0 && side < BENCH_SIDES && r->n[side] < BENCH_ROUNDS)
    r->side[side][r->n[side]++] = v;
}

double bench_row_median(bench_row_t *r, int side) {
  return r->n[side] ? bench_median(r->side[side], (size_t)r->n[side]) : NAN;
}

static int parse_num(const char *v, long lo, long hi, long *out) {
  if (!v || !v[0]) return -1;
  char *end;
  errno = 0;
  long x = strtol(v, &end, 10);
  if (errno || *end || x < lo || x > hi) return -1;
  *out = x;
  return 0;
}

int bench_parse_bytes(const char *s, size_t *out) {
  char *end;
  errno = 0;
  if (!s[0] || s[0] == '-' || s[0] == '+') return -1;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s) return -1;
  /* Optional binary suffix: 4K, 4KiB, 4M, 4MiB. */
  unsigned long long mult = 1;
  if (*end == 'K' || *end == 'k')
    mult = 1ull << 10, end++;
  else if (*end == 'M' || *end == 'm')
    mult = 1ull << 20, end++;
  else if (*end == 'G' || *end == 'g')
    mult = 1ull << 30, end++;
  if (mult > 1 && strcmp(end, "iB") == 0)
    end += 2;
  else if (mult > 1 && (strcmp(end, "B") == 0 || strcmp(end, "b") == 0))
    end += 1;
  if (*end) return -1;
  if (v > (unsigned long long)SIZE_MAX / mult) return -1;
  *out = (size_t)(v * mult);
  return 0;
}

/* Tells a bad or missing value v of option o (see bench_opt_t); 2. */
static int bad_value(const bench_opt_t *o, const char *v) {
  fprintf(stderr, "simple-bench: %s needs ", o->name);
  if (o->what ? !v : o->kind == BENCH_WORD)
    fprintf(stderr, "a value");
  else if (o->what)
    fprintf(stderr, o->what, v);
  else if (o->kind == BENCH_NUM)
    fprintf(stderr, "a whole number from %ld to %ld, not '%s'", o->lo, o->hi, v ? v : "");
  else
    fprintf(stderr, "a size from %ld to %ld bytes (suffixes K, KiB, M, MiB, G), not '%s'", o->lo,
            o->hi, v ? v : "");
  fputc('\n', stderr);
  return 2;
}

int bench_parse(int argc, char **argv, const bench_opt_t *opts, void (*usage)(FILE *)) {
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return 1;
    }
    const bench_opt_t *o = opts;
    while (o->name && strcmp(o->name, a) != 0) o++;
    if (o->name && !o->dst && o->what) {
      fprintf(stderr, "simple-bench: %s %s\n", a, o->what);
      return 2;
    }
    if (!o->name || !o->dst) {
      fprintf(stderr, "simple-bench: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    }
    if (o->kind == BENCH_FLAG) {
      *(int *)o->dst = 1;
      continue;
    }
    size_t bytes;
    if (!v || (o->kind == BENCH_NUM && parse_num(v, o->lo, o->hi, (long *)o->dst) != 0) ||
        (o->kind == BENCH_BYTES &&
         (bench_parse_bytes(v, &bytes) != 0 || bytes < (size_t)o->lo || bytes > (size_t)o->hi)) ||
        (o->kind == BENCH_WORD && (!v[0] || v[0] == '-')))
      return bad_value(o, v);
    if (o->kind == BENCH_BYTES) *(size_t *)o->dst = bytes;
    if (o->kind == BENCH_WORD) *(const char **)o->dst = v;
    i++;
  }
  return 0;
}

int bench_suite_parse(bench_suite_t *s, int argc, char **argv, long max_rounds,
                      const bench_opt_t *extra, void (*usage)(FILE *)) {
  long rounds = s->rounds, nodes = s->N;
  s->N = s->rounds = -1, s->quick = 0, s->vcluster = 0, s->csv = NULL, s->out = NULL;
  bench_opt_t opts[BENCH_SUITE_MAX_EXTRA + 7] = {{0}};
  int k = 0;
  for (; extra && extra->name && k < BENCH_SUITE_MAX_EXTRA; extra++) opts[k++] = *extra;
  const bench_opt_t common[] = {{"--quick", BENCH_FLAG, &s->quick, 0, 0, NULL},
                                {"--vcluster", BENCH_FLAG, &s->vcluster, 0, 0, NULL},
                                {"-N", BENCH_NUM, &s->N, 1, 256, NULL},
                                {"-t", BENCH_NUM, &s->T, 1, 1024, NULL},
                                {"--rounds", BENCH_NUM, &s->rounds, 1, max_rounds, NULL},
                                {"--csv", BENCH_WORD, &s->csv, 0, 0, NULL}};
  memcpy(opts + k, common, sizeof common);
  int rc = bench_parse(argc, argv, opts, usage);
  if (rc) return rc == 1 ? -1 : rc;
  if (s->N < 0) s->N = nodes > 0 ? nodes : s->vcluster ? 2 : 1;
  if (s->rounds < 0) s->rounds = s->quick ? 1 : rounds;
  return 0;
}

int bench_suite_start(bench_suite_t *s, long procs) {
  if (bench_open_csv(s->csv, &s->out)) return 1;
  bench_place(&s->pl, s->vcluster, procs);
  return 0;
}

long bench_fit_memory(long max_n, long floor, unsigned long long bytes_per, int power) {
  unsigned long long avail = simple_mem_available();
  for (; avail && max_n > floor; max_n /= 2) {
    unsigned long long n = (unsigned long long)max_n;
    if (bytes_per * n * (power == 2 ? n : 1) <= avail / 2) break;
  }
  return max_n;
}

void bench_suite_close(bench_suite_t *s) {
  if (s->out) fclose(s->out);
  s->out = NULL;
}

int bench_suite_finish(bench_suite_t *s) {
  FILE *out = s->out;
  s->out = NULL;
  if (!out || fclose(out) == 0) return 0;
  fprintf(stderr, "simple-bench: writing %s failed\n", s->csv);
  return 1;
}

void bench_place(bench_place_t *pl, int vcluster, long procs) {
  bench_self_dir(pl->dir, sizeof pl->dir);
  pl->cores = bench_usable_cores();
  pl->multi = vcluster || getenv("SLURM_JOB_ID") != NULL;
  pl->pin = !pl->multi && procs <= pl->cores;
}

int bench_worker_cmd(char *buf, size_t len, const bench_place_t *pl, int vcluster,
                     bench_side_t side, long nodes, long threads, const char *env,
                     const char *worker, const char *args) {
  const char *vc = vcluster ? " --vcluster" : "";
  int n;
  if (side == BENCH_HYBRID)
    n = snprintf(buf, len, "%s%s'%s/simplerun'%s -N %ld -t %ld '%s/simple-bench' --worker %s %s",
                 env, pl->pin ? "SIMPLE_PIN=1 " : "", pl->dir, vc, nodes, threads, pl->dir, worker,
                 args);
  else if (pl->multi)
    n = snprintf(buf, len,
                 "%s'%s/simplerun'%s -N %ld --procs-per-node %ld -t 1 '%s/simple-bench' --worker "
                 "%s %s",
                 env, pl->dir, vc, nodes, threads, pl->dir, worker, args);
  else
    n = snprintf(buf, len,
                 "%s'%s/simplerun' --bind %s -N %ld -t 1 '%s/simple-bench' --worker %s %s", env,
                 pl->dir, pl->pin ? "core" : "none", nodes * threads, pl->dir, worker, args);
  return n < 0 || (size_t)n >= len ? -1 : 0;
}

int bench_open_csv(const char *path, FILE **out) {
  *out = NULL;
  if (!path) return 0;
  if (!(*out = fopen(path, "w"))) {
    fprintf(stderr, "simple-bench: cannot write %s: %s\n", path, strerror(errno));
    return 1;
  }
  return 0;
}

int bench_side_of(const char *name, const char *const *names, int n) {
  for (int k = 0; k < n; k++)
    if (strcmp(name, names[k]) == 0) return k;
  return -1;
}

int bench_info(const char *line, const char *key, char *dst, size_t len) {
  size_t k = strlen(key);
  if (line[0] != 'I' || line[1] != ' ' || strncmp(line + 2, key, k) != 0 || line[2 + k] != ' ')
    return 0;
  const char *v = line + 3 + k;
  snprintf(dst, len, "%.*s", (int)strcspn(v, "\n"), v);
  return 1;
}

void bench_mpi_library(char *dst, size_t len) {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int n = 0;
  MPI_Get_library_version(lib, &n);
  lib[n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1] = '\0';
  char *nl = strpbrk(lib, "\r\n,");
  if (nl) *nl = '\0';
  char *w = lib;
  for (char *c = lib; *c; c++) {
    char ch = *c == '\t' ? ' ' : *c;
    if (ch == ' ' && (w == lib || w[-1] == ' ')) continue;
    *w++ = ch;
  }
  *w = '\0';
  snprintf(dst, len, "%s", lib);
}

int bench_alternate(long rounds, int nsides, bench_side_fn *run, void *ctx) {
  for (long r = 0; r < rounds; r++) {
    fprintf(stderr, "  round %ld/%ld\n", r + 1, rounds);
    for (int k = 0; k < nsides; k++)
      if (run(r % 2 ? nsides - 1 - k : k, r, ctx) != 0) return 1;
  }
  return 0;
}

const char *bench_where(int vcluster, int multi) {
  return vcluster ? "virtual cluster" : multi ? "Slurm" : "one host";
}
