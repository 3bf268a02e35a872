/* simple-bench: each primitive of simple against its anchor, side by side in
 * one invocation.
 *
 * The driver launches worker jobs through simplerun, alternating the hybrid
 * side and the anchor side round by round so that both see the same machine
 * load, and reports per size the median over rounds of each side's median
 * time and the ratio anchor/hybrid (above 1: simple is faster). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define MAX_ROWS 64
#define MAX_ROUNDS 32

typedef struct {
  char op[32];
  size_t bytes;
  double side[2][MAX_ROUNDS]; /* [0] hybrid, [1] anchor */
  int n[2];
} row_t;

static row_t rows[MAX_ROWS];
static int nrows;

static void usage(FILE *f) {
  fprintf(f,
          "usage: simple-bench SUITE [options]\n"
          "\n"
          "suites:\n"
          "  node    node barrier and allreduce among T threads of one process,\n"
          "          against MPI_Barrier and MPI_Allreduce among T processes\n"
          "\n"
          "options:\n"
          "  -t THREADS      threads (and MPI ranks) compared; default 2\n"
          "  --rounds R      alternating rounds of both sides; default 5 (1 with --quick)\n"
          "  --quick         fewer samples and sizes up to 64 KiB: a smoke run\n"
          "  --max-bytes N   largest message size in bytes; default 4 MiB\n"
          "  --csv FILE      also write the table as CSV\n");
}

static row_t *row_for(const char *op, size_t bytes) {
  for (int i = 0; i < nrows; i++)
    if (rows[i].bytes == bytes && strcmp(rows[i].op, op) == 0) return &rows[i];
  if (nrows == MAX_ROWS) return NULL;
  row_t *r = &rows[nrows++];
  memset(r, 0, sizeof *r);
  snprintf(r->op, sizeof r->op, "%s", op);
  r->bytes = bytes;
  return r;
}

/* Runs one worker job and files its "R op bytes us" lines under `side`. */
static int run_side(const char *cmd, int side, int round) {
  FILE *p = popen(cmd, "r");
  if (!p) {
    fprintf(stderr, "simple-bench: cannot run %s: %s\n", cmd, strerror(errno));
    return -1;
  }
  char line[512], op[32];
  size_t bytes;
  double us;
  while (fgets(line, sizeof line, p)) {
    if (sscanf(line, "R %31s %zu %lf", op, &bytes, &us) == 3) {
      row_t *r = row_for(op, bytes);
      if (r && round < MAX_ROUNDS) r->side[side][r->n[side]++] = us;
    } else {
      fputs(line, stderr);
    }
  }
  int status = pclose(p);
  if (status != 0) {
    fprintf(stderr, "simple-bench: worker failed (status %d): %s\n", status, cmd);
    return -1;
  }
  return 0;
}

static int parse_size(const char *s, size_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || *end || s[0] == '-') return -1;
  *out = (size_t)v;
  return 0;
}

static int worker(int argc, char **argv) {
  bench_opts_t o = {.quick = 0, .max_bytes = 4u << 20};
  const char *name = argv[2];
  for (int i = 3; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) o.quick = 1;
    if (strcmp(argv[i], "--max-bytes") == 0 && i + 1 < argc) parse_size(argv[++i], &o.max_bytes);
  }
  if (strcmp(name, "node-hybrid") == 0) return bench_node_hybrid(argc, argv, &o);
  if (strcmp(name, "node-mpi") == 0) return bench_node_mpi(argc, argv, &o);
  fprintf(stderr, "simple-bench: unknown worker '%s'\n", name);
  return 2;
}

static void self_dir(char *dir, size_t len) {
  ssize_t n = readlink("/proc/self/exe", dir, len - 1);
  if (n <= 0) {
    snprintf(dir, len, ".");
    return;
  }
  dir[n] = '\0';
  char *slash = strrchr(dir, '/');
  if (slash) *slash = '\0';
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "--worker") == 0) return worker(argc, argv);
  if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *suite = argv[1];
  if (strcmp(suite, "node") != 0) {
    fprintf(stderr, "simple-bench: unknown suite '%s'\n", suite);
    usage(stderr);
    return 2;
  }
  long threads = 2, rounds = -1;
  int quick = 0;
  size_t max_bytes = 4u << 20;
  const char *csv = NULL;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    char *end;
    if (strcmp(a, "--quick") == 0) {
      quick = 1;
    } else if (strcmp(a, "-t") == 0 && v) {
      threads = strtol(v, &end, 10);
      if (*end || threads < 1 || threads > 1024) {
        fprintf(stderr, "simple-bench: -t needs a count from 1 to 1024, not '%s'\n", v);
        return 2;
      }
      i++;
    } else if (strcmp(a, "--rounds") == 0 && v) {
      rounds = strtol(v, &end, 10);
      if (*end || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "simple-bench: --rounds needs 1..%d, not '%s'\n", MAX_ROUNDS, v);
        return 2;
      }
      i++;
    } else if (strcmp(a, "--max-bytes") == 0 && v) {
      if (parse_size(v, &max_bytes) != 0) {
        fprintf(stderr, "simple-bench: --max-bytes needs a byte count, not '%s'\n", v);
        return 2;
      }
      i++;
    } else if (strcmp(a, "--csv") == 0 && v) {
      csv = v;
      i++;
    } else {
      fprintf(stderr, "simple-bench: unknown or incomplete option '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  if (rounds < 0) rounds = quick ? 1 : 5;
  if (quick && max_bytes > 65536) max_bytes = 65536;

  char dir[PATH_MAX];
  self_dir(dir, sizeof dir);
  char hybrid[2 * PATH_MAX + 256], anchor[2 * PATH_MAX + 256];
  const char *q = quick ? " --quick" : "";
  /* Both sides pinned, one core per processor: the anchor at its best
   * settings (Open MPI binds ranks to cores by default for small jobs). */
  snprintf(hybrid, sizeof hybrid,
           "SIMPLE_PIN=1 '%s/simplerun' -N 1 -t %ld '%s/simple-bench' --worker node-hybrid"
           " --max-bytes %zu%s",
           dir, threads, dir, max_bytes, q);
  snprintf(anchor, sizeof anchor,
           "'%s/simplerun' --bind core -N %ld -t 1 '%s/simple-bench' --worker node-mpi"
           " --max-bytes %zu%s",
           dir, threads, dir, max_bytes, q);

  printf("simple-bench node: 1 process x %ld threads (simple) against %ld MPI ranks x 1 thread"
         " (MPI), %ld round(s)\n",
         threads, threads, rounds);
  fflush(stdout);
  for (int r = 0; r < rounds; r++) {
    fprintf(stderr, "  round %d/%ld\n", r + 1, rounds);
    if (run_side(hybrid, 0, r) != 0 || run_side(anchor, 1, r) != 0) return 1;
  }

  FILE *out = csv ? fopen(csv, "w") : NULL;
  if (csv && !out) {
    fprintf(stderr, "simple-bench: cannot write %s: %s\n", csv, strerror(errno));
    return 1;
  }
  if (out) fprintf(out, "suite,op,bytes,simple_us,mpi_us,ratio\n");
  printf("%-10s %10s %12s %12s %10s\n", "op", "bytes", "simple_us", "mpi_us", "mpi/simple");
  for (int i = 0; i < nrows; i++) {
    row_t *r = &rows[i];
    double h = bench_median(r->side[0], (size_t)r->n[0]);
    double m = bench_median(r->side[1], (size_t)r->n[1]);
    double ratio = h > 0 ? m / h : 0;
    printf("%-10s %10zu %12.3f %12.3f %10.2f\n", r->op, r->bytes, h, m, ratio);
    if (out) fprintf(out, "node,%s,%zu,%.4f,%.4f,%.4f\n", r->op, r->bytes, h, m, ratio);
  }
  if (out) fclose(out);
  return 0;
}
