/* Pieces every simple-bench driver shares: where the binaries are, how
 * many cores there are, and running a worker job line by line. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
