/* Soak: a long run of mixed collectives, one-sided puts and messages with
 * random sizes, every result checked; peak resident memory reported after
 * a warm-up and at the end, which must stay flat (a leak grows it).
 *
 *   simplerun -N 2 -t 2 soak [OPS]      OPS: operations per thread (default
 *                                       1000000 / threads of the job)
 *
 * Every thread draws the same sequence of operation kinds and sizes (one
 * seed for the job), so they all make the same collective calls; the data
 * depend on the rank, so every result has a closed form. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "harness.h"

#define MAX_ELEMS 4096 /* largest vector, in int64 elements */

static long ops_arg; /* OPS from the command line, 0: a million over the job */

static uint64_t next(uint64_t *x) { /* xorshift64*: the same on every thread */
  *x ^= *x >> 12;
  *x ^= *x << 25;
  *x ^= *x >> 27;
  return *x * 2685821657736338717ULL;
}

static long peak_kib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  int p = simple_nprocs(s), me = simple_pid(s);
  int right = (me + 1) % p, left = (me + p - 1) % p;
  long ops_per_thread = ops_arg > 0 ? ops_arg : 1000000 / p;
  int64_t *a = malloc(sizeof(int64_t) * MAX_ELEMS), *b = malloc(sizeof(int64_t) * MAX_ELEMS);
  int64_t *window = calloc(MAX_ELEMS, sizeof(int64_t));
  int64_t *all = malloc(sizeof(int64_t) * (size_t)p * 64),
          *back = malloc(sizeof(int64_t) * (size_t)p * 64);
  CHECK(a && b && window && all && back);
  CHECK_OK(simple_rma_push_reg(s, window, sizeof(int64_t) * MAX_ELEMS));
  CHECK_OK(simple_rma_sync(s));
  uint64_t x = 0x9e3779b97f4a7c15ULL;
  long warm = ops_per_thread / 10, start_kib = 0;
  for (long i = 0; i < ops_per_thread; i++) {
    if (i == warm) {
      CHECK_OK(simple_barrier(s));
      start_kib = peak_kib();
    }
    uint64_t r = next(&x);
    size_t n = 1 + (size_t)(r >> 20) % (r & 1 ? MAX_ELEMS : 16); /* mostly small */
    int64_t salt = (int64_t)i;
    switch ((r >> 8) % 5) {
      case 0: { /* allreduce: sum of (pid + salt + k) over the job */
        for (size_t k = 0; k < n; k++) a[k] = me + salt + (int64_t)k;
        CHECK_OK(simple_allreduce(s, a, b, n, SIMPLE_INT64, SIMPLE_SUM));
        for (size_t k = 0; k < n; k++)
          CHECK_EQ(b[k], (int64_t)p * (p - 1) / 2 + (int64_t)p * (salt + (int64_t)k));
        break;
      }
      case 1: { /* bcast from a rotating root */
        int root = (int)(i % p);
        for (size_t k = 0; k < n; k++) a[k] = me == root ? salt * 3 + (int64_t)k : -1;
        CHECK_OK(simple_bcast(s, a, n, SIMPLE_INT64, root));
        for (size_t k = 0; k < n; k++) CHECK_EQ(a[k], salt * 3 + (int64_t)k);
        break;
      }
      case 2: { /* alltoall of up to 64 elements per pair */
        size_t m = 1 + n % 64;
        for (int j = 0; j < p; j++)
          for (size_t k = 0; k < m; k++) all[(size_t)j * m + k] = ((int64_t)me << 32) + j + salt;
        CHECK_OK(simple_alltoall(s, all, back, m, SIMPLE_INT64));
        for (int j = 0; j < p; j++)
          for (size_t k = 0; k < m; k++)
            CHECK_EQ(back[(size_t)j * m + k], ((int64_t)j << 32) + me + salt);
        break;
      }
      case 3: { /* put to the right neighbour's window, one superstep */
        for (size_t k = 0; k < n; k++) a[k] = me * 7 + salt + (int64_t)k;
        CHECK_OK(simple_rma_put(s, right, a, window, 0, n * sizeof(int64_t)));
        CHECK_OK(simple_rma_sync(s));
        for (size_t k = 0; k < n; k++) CHECK_EQ(window[k], left * 7 + salt + (int64_t)k);
        break;
      }
      default: { /* a message around the ring */
        simple_request_t req;
        for (size_t k = 0; k < n; k++) a[k] = me * 11 + salt + (int64_t)k;
        CHECK_OK(simple_irecv(s, b, n, SIMPLE_INT64, left, (int)(i % 1000), &req));
        CHECK_OK(simple_send(s, a, n, SIMPLE_INT64, right, (int)(i % 1000)));
        simple_status_t st;
        CHECK_OK(simple_wait(s, &req, &st));
        CHECK_EQ(st.bytes, n * sizeof(int64_t));
        for (size_t k = 0; k < n; k++) CHECK_EQ(b[k], left * 11 + salt + (int64_t)k);
        break;
      }
    }
  }
  CHECK_OK(simple_barrier(s));
  long end_kib = peak_kib();
  if (simple_thread(s) == 0)
    printf(
        "soak: node %d: %ld operations per thread; peak resident memory %ld KiB after the "
        "warm-up, %ld KiB at the end\n",
        simple_node(s), ops_per_thread, start_kib, end_kib);
  /* Flat: the buffers the library reuses were all grown during the
   * warm-up; a leak per operation would add far more than 32 MiB. */
  CHECK(end_kib - start_kib < 32 * 1024);
  CHECK_OK(simple_rma_pop_reg(s, window));
  CHECK_OK(simple_rma_sync(s));
  free(a);
  free(b);
  free(window);
  free(all);
  free(back);
}

int main(int argc, char **argv) {
  ops_arg = argc > 1 ? atol(argv[1]) : 0;
  return simple_run(&argc, &argv, test, NULL);
}
