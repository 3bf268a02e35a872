/* simple-sort: sorts n keys spread evenly over every thread of the job with
 * simple_sort_u32/u64 and checks the result (simple_sort_verify_*).
 *
 *   simplerun -N 2 -t 2 build/bin/simple-sort --n 1000000 [--bits 32|64]
 *     [--dist uniform|equal|sorted|reverse|few|highbits]
 *     [--algo simple|rdx|rdxopt] [--seed S] [--digit-bits D] [--json]
 *
 * Exit status: 0 when the result is verified, 1 when it is not or the sort
 * failed, 2 for bad arguments or a size that does not fit in memory. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/app_cli.h"
#include "simple_sort.h"

typedef struct {
  size_t n;
  int bits, json, digit_bits;
  uint64_t seed;
  simple_sort_dist_t dist;
  simple_sort_algo_t algo;
  int status; /* this process's exit status, set by its thread 0 */
} cmd_t;

static void usage(FILE *f) {
  fprintf(f,
          "usage: simple-sort --n N [--bits 32|64] [--dist uniform|equal|sorted|reverse|few|"
          "highbits]\n"
          "                   [--algo simple|rdx|rdxopt] [--seed S] [--digit-bits D] [--json]\n"
          "  N keys in all, spread evenly over every thread of the job; run it under simplerun,\n"
          "  e.g. simplerun -N 2 -t 2 simple-sort --n 1000000\n");
}

/* An argument error: reported by the first process; 2 (main turns it
 * into the process's exit status, app_arg_status). */
static int bad(const char *fmt, const char *a, const char *b) {
  if (app_first_process()) {
    fprintf(stderr, "simple-sort: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n");
    usage(stderr);
  }
  return 2;
}

/* A decimal count 1 .. hi (no sign, no suffix). */
static int parse_u64(const char *v, uint64_t lo, uint64_t hi, uint64_t *out) {
  if (!v || !v[0] || v[0] == '-' || v[0] == '+') return -1;
  for (const char *p = v; *p; p++)
    if (*p < '0' || *p > '9') return -1;
  errno = 0;
  char *end;
  unsigned long long x = strtoull(v, &end, 10);
  if (errno || *end || x < lo || x > hi) return -1;
  *out = x;
  return 0;
}

static int parse_args(int argc, char **argv, cmd_t *c) {
  int have_n = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    uint64_t x;
    if (strcmp(a, "--json") == 0) {
      c->json = 1;
      continue;
    }
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      if (app_first_process()) usage(stdout);
      return 1;
    }
    if (strcmp(a, "--n") && strcmp(a, "--bits") && strcmp(a, "--dist") && strcmp(a, "--algo") &&
        strcmp(a, "--seed") && strcmp(a, "--digit-bits"))
      return bad("unknown option '%s'%s", a, "");
    if (!v) return bad("%s needs a value%s", a, "");
    i++;
    if (strcmp(a, "--n") == 0) {
      if (v[0] == '-' || (parse_u64(v, 0, UINT64_MAX, &x) == 0 && x == 0))
        return bad("--n must be a positive number of keys, not '%s'%s", v, "");
      if (parse_u64(v, 1, SIZE_MAX, &x) != 0)
        return bad("--n must be a positive number of keys (digits only), not '%s'%s", v, "");
      c->n = (size_t)x;
      have_n = 1;
    } else if (strcmp(a, "--bits") == 0) {
      if (strcmp(v, "32") && strcmp(v, "64"))
        return bad("--bits must be 32 or 64, not '%s'%s", v, "");
      c->bits = atoi(v);
    } else if (strcmp(a, "--dist") == 0) {
      if (simple_sort_dist_parse(v, &c->dist) != 0)
        return bad("unknown --dist '%s' (uniform, equal, sorted, reverse, few, highbits)%s", v, "");
    } else if (strcmp(a, "--algo") == 0) {
      if (simple_sort_algo_parse(v, &c->algo) != 0)
        return bad("unknown --algo '%s' (simple, rdx, rdxopt)%s", v, "");
    } else if (strcmp(a, "--seed") == 0) {
      if (parse_u64(v, 0, UINT64_MAX, &x) != 0)
        return bad("--seed must be a non-negative integer, not '%s'%s", v, "");
      c->seed = x;
    } else {
      if (parse_u64(v, 1, 16, &x) != 0)
        return bad("--digit-bits must be 1 to 16, not '%s'%s", v, "");
      c->digit_bits = (int)x;
    }
  }
  if (!have_n) return bad("--n N is required%s%s", "", "");
  return 0;
}

static void job(simple_t *s, void *arg) {
  cmd_t *c = arg;
  int me = simple_pid(s), P = simple_nprocs(s);
  size_t ksz = (size_t)c->bits / 8, lo, cnt;
  simple_sort_slice(c->n, P, me, &lo, &cnt);
  /* Memory: the input, two buffers and the send and receive (or local
   * sort) buffers: about 5 copies of the node's keys. Checked per node
   * against what the host has left, agreed by every thread. */
  int nomem = 0;
  if (simple_thread(s) == 0) {
    size_t node_keys = 0;
    for (int t = 0; t < simple_threads(s); t++) {
      size_t l, k;
      simple_sort_slice(c->n, P, me - simple_thread(s) + t, &l, &k);
      node_keys += k;
    }
    unsigned long long avail = simple_mem_available();
    long double need = (long double)node_keys * (long double)ksz * 5.0L;
    if (need > (long double)(SIZE_MAX / 2) || (avail && need > (long double)avail)) {
      nomem = 1;
      fprintf(stderr,
              "simple-sort: node %d: %zu keys of %zu bytes need about %.1Lf GiB, more than the"
              " %.1f GiB of memory available\n",
              simple_node(s), node_keys, ksz, need / 1073741824.0L, (double)avail / 1073741824.0);
    }
  }
  int any = 0;
  simple_allreduce(s, &nomem, &any, 1, SIMPLE_INT32, SIMPLE_MAX);
  if (any) {
    if (simple_thread(s) == 0) c->status = 2;
    return;
  }
  void *keys = malloc(cnt ? cnt * ksz : 1), *out = NULL;
  int bad_alloc = keys == NULL;
  simple_allreduce(s, &bad_alloc, &any, 1, SIMPLE_INT32, SIMPLE_MAX);
  if (any) {
    if (me == 0) fprintf(stderr, "simple-sort: out of memory for the keys\n");
    if (simple_thread(s) == 0) c->status = 2;
    free(keys);
    return;
  }
  if (ksz == 4)
    simple_sort_gen_u32(c->dist, c->seed, c->n, lo, cnt, keys);
  else
    simple_sort_gen_u64(c->dist, c->seed, c->n, lo, cnt, keys);
  simple_sort_info_t info;
  memset(&info, 0, sizeof info);
  simple_sort_opts_t o = {c->algo, c->digit_bits, &info};
  size_t n_out = 0;
  simple_barrier(s);
  double t0 = simple_time();
  int rc = ksz == 4 ? simple_sort_u32(s, keys, cnt, (uint32_t **)&out, &n_out, &o)
                    : simple_sort_u64(s, keys, cnt, (uint64_t **)&out, &n_out, &o);
  double t = simple_time() - t0, tmax = t;
  simple_allreduce(s, &t, &tmax, 1, SIMPLE_DOUBLE, SIMPLE_MAX);
  if (rc) {
    if (me == 0)
      fprintf(stderr, "simple-sort: the sort failed: %s (%s)\n", simple_errname(rc),
              simple_strerror(rc));
    if (simple_thread(s) == 0) c->status = 1;
    free(keys);
    return;
  }
  int ok = 0;
  rc = ksz == 4 ? simple_sort_verify_u32(s, keys, cnt, out, n_out, &ok)
                : simple_sort_verify_u64(s, keys, cnt, out, n_out, &ok);
  if (rc) ok = 0;
  if (me == 0) {
    double kps = tmax > 0 ? (double)c->n / tmax : 0;
    /* Threads per node: "2", or "1,2,3" when nodes differ. */
    char tpn[256] = "";
    int same = 1;
    for (int k = 0; k < simple_nodes(s); k++) same &= simple_threads_on(s, k) == simple_threads(s);
    for (int k = 0; k < (same ? 1 : simple_nodes(s)); k++) {
      size_t at = strlen(tpn);
      if (at + 16 >= sizeof tpn) break;
      snprintf(tpn + at, sizeof tpn - at, "%s%d", k ? "," : "", simple_threads_on(s, k));
    }
    if (c->json)
      printf(
          "{\"app\": \"sort\", \"n\": %zu, \"bits\": %d, \"dist\": \"%s\", \"algo\": \"%s\", "
          "\"seed\": %" PRIu64
          ", \"nodes\": %d, \"threads\": %d, \"threads_per_node\": \"%s\", \"nprocs\": %d, "
          "\"digit_bits\": %d, \"passes\": %d, \"time_s\": %.6f, \"keys_per_s\": %.6g, "
          "\"verified\": %s}\n",
          c->n, c->bits, simple_sort_dist_name(c->dist), simple_sort_algo_name(c->algo), c->seed,
          simple_nodes(s), simple_threads(s), tpn, P, info.digit_bits, info.passes, tmax, kps,
          ok ? "true" : "false");
    else
      printf(
          "simple-sort: %zu %d-bit keys (%s), %s on %d node(s) x %s thread(s): %d pass(es)"
          " of <= %d bits, %.6f s, %.3g keys/s, %s\n",
          c->n, c->bits, simple_sort_dist_name(c->dist), simple_sort_algo_name(c->algo),
          simple_nodes(s), tpn, info.passes, info.digit_bits, tmax, kps,
          ok ? "verified" : "NOT VERIFIED");
    fflush(stdout);
  }
  if (simple_thread(s) == 0) c->status = ok ? 0 : 1;
  free(keys);
  free(out);
}

int main(int argc, char **argv) {
  app_version(argc, argv, "simple-sort");
  cmd_t c;
  memset(&c, 0, sizeof c);
  c.bits = 32;
  c.seed = 1;
  c.dist = SIMPLE_SORT_UNIFORM;
  c.algo = SIMPLE_SORT_SIMPLE;
  int pr = parse_args(argc, argv, &c);
  if (pr) return pr == 1 ? 0 : app_arg_status();
  int rc = simple_run(&argc, &argv, job, &c);
  if (rc) return 1;
  return c.status;
}
