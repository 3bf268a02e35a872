/* simple_sort_u32/u64 with every algorithm, both widths, every input
 * distribution and many n (0, 1, fewer keys than threads, not divisible by
 * the thread count, several digits), with balanced and unbalanced input
 * layouts. The expected result is a serial qsort of all input keys
 * gathered at processor 0 (simple_gatherv, not the code under test), and
 * every slice's size is checked against the balance rule written out here.
 * simple_sort_verify must agree, and must catch a corrupted result. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "harness.h"
#include "simple_sort.h"

static int cmp32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}
static int cmp64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Input layout: balanced, or thread i holding a share proportional to
 * 1 + (3 i mod 4) (thread 0 may hold nothing when n is small). */
static void input_slice(size_t n, int P, int i, int uneven, size_t *first, size_t *cnt) {
  if (!uneven) {
    *cnt = n / (size_t)P + ((size_t)i < n % (size_t)P);
    *first = (size_t)i * (n / (size_t)P) + ((size_t)i < n % (size_t)P ? (size_t)i : n % (size_t)P);
    return;
  }
  size_t W = 0, before = 0;
  for (int j = 0; j < P; j++) {
    size_t w = 1 + (size_t)(3 * j % 4);
    if (j < i) before += w;
    W += w;
  }
  size_t a = n * before / W, b = n * (before + 1 + (size_t)(3 * i % 4)) / W;
  if (i == P - 1) b = n;
  *first = a;
  *cnt = b - a;
}

static void gather_all(simple_t *s, const void *buf, size_t cnt, size_t ksz, void *all,
                       size_t *counts, size_t *displs) {
  int P = simple_nprocs(s);
  uint64_t c = cnt, *cs = malloc(sizeof(uint64_t) * (size_t)P);
  CHECK(cs != NULL);
  CHECK_OK(simple_allgather(s, &c, cs, 1, SIMPLE_UINT64));
  size_t at = 0;
  for (int i = 0; i < P; i++) {
    counts[i] = (size_t)cs[i];
    displs[i] = at;
    at += counts[i];
  }
  free(cs);
  CHECK_OK(simple_gatherv(s, buf, cnt, all, counts, displs,
                          ksz == 4 ? SIMPLE_UINT32 : SIMPLE_UINT64, 0));
}

static void one(simple_t *s, size_t n, int bits, simple_sort_dist_t dist, simple_sort_algo_t algo,
                int uneven, int digit_bits) {
  int P = simple_nprocs(s), me = simple_pid(s);
  size_t ksz = (size_t)bits / 8, first, cnt;
  input_slice(n, P, me, uneven, &first, &cnt);
  void *in = malloc(cnt * ksz + 8), *out = NULL;
  CHECK(in != NULL);
  if (bits == 32)
    CHECK_OK(simple_sort_gen_u32(dist, 7, n, first, cnt, in));
  else
    CHECK_OK(simple_sort_gen_u64(dist, 7, n, first, cnt, in));
  simple_sort_info_t info;
  simple_sort_opts_t o = {algo, digit_bits, &info};
  size_t n_out = 12345;
  if (n % 2 == 0) {
    if (bits == 32)
      CHECK_OK(simple_sort_u32(s, in, cnt, (uint32_t **)&out, &n_out, &o));
    else
      CHECK_OK(simple_sort_u64(s, in, cnt, (uint64_t **)&out, &n_out, &o));
  } else {
    /* Into the caller's buffer, with room to spare. */
    size_t cap = n / (size_t)P + 3;
    out = malloc(cap * ksz);
    CHECK(out != NULL);
    if (bits == 32)
      CHECK_OK(simple_sort_into_u32(s, in, cnt, out, cap, &n_out, &o));
    else
      CHECK_OK(simple_sort_into_u64(s, in, cnt, out, cap, &n_out, &o));
  }
  CHECK(out != NULL);
  CHECK_EQ(info.n, n);
  /* The balance rule, written out. */
  size_t want = n / (size_t)P + ((size_t)me < n % (size_t)P ? 1 : 0);
  if (n_out != want)
    simple_abort(s, "n=%zu bits=%d dist=%s algo=%s: slice of %zu keys, expected %zu", n, bits,
                 simple_sort_dist_name(dist), simple_sort_algo_name(algo), n_out, want);
  /* Reference: serial qsort of every input key, at processor 0. */
  size_t *cn = malloc(sizeof(size_t) * 2 * (size_t)P);
  CHECK(cn != NULL);
  void *allin = me == 0 ? malloc(n * ksz + 8) : NULL,
       *allout = me == 0 ? malloc(n * ksz + 8) : NULL;
  if (me == 0) CHECK(allin && allout);
  gather_all(s, in, cnt, ksz, allin, cn, cn + P);
  gather_all(s, out, n_out, ksz, allout, cn, cn + P);
  if (me == 0) {
    qsort(allin, n, ksz, bits == 32 ? cmp32 : cmp64);
    if (n && memcmp(allin, allout, n * ksz) != 0) {
      size_t k = 0;
      while (memcmp((char *)allin + k * ksz, (char *)allout + k * ksz, ksz) == 0) k++;
      simple_abort(s, "n=%zu bits=%d dist=%s algo=%s uneven=%d digits=%d: key %zu differs", n, bits,
                   simple_sort_dist_name(dist), simple_sort_algo_name(algo), uneven, digit_bits, k);
    }
  }
  free(allin);
  free(allout);
  free(cn);
  int ok = -1;
  if (bits == 32)
    CHECK_OK(simple_sort_verify_u32(s, in, cnt, out, n_out, &ok));
  else
    CHECK_OK(simple_sort_verify_u64(s, in, cnt, out, n_out, &ok));
  CHECK_EQ(ok, 1);
  /* A corrupted result must be caught everywhere: the last processor with
   * keys changes one, or (if it is the largest possible) swaps two. */
  if (n >= 2 && dist == SIMPLE_SORT_UNIFORM) {
    int last = (int)((n < (size_t)P ? n : (size_t)P) - 1);
    if (me == last) {
      if (bits == 32)
        ((uint32_t *)out)[0] ^= 1;
      else
        ((uint64_t *)out)[0] ^= 1;
    }
    ok = -1;
    if (bits == 32)
      CHECK_OK(simple_sort_verify_u32(s, in, cnt, out, n_out, &ok));
    else
      CHECK_OK(simple_sort_verify_u64(s, in, cnt, out, n_out, &ok));
    CHECK_EQ(ok, 0);
  }
  simple_sort_free(out);
  free(in);
}

static void body(simple_t *s, void *arg) {
  (void)arg;
  size_t P = (size_t)simple_nprocs(s);
  size_t ns[] = {0, 1, P > 1 ? P - 1 : 2, P + 1, 7, 1000, 4099};
  for (int a = SIMPLE_SORT_SIMPLE; a <= SIMPLE_SORT_RDXOPT; a++)
    for (int bits = 32; bits <= 64; bits += 32) {
      for (size_t k = 0; k < sizeof ns / sizeof *ns; k++)
        one(s, ns[k], bits, SIMPLE_SORT_UNIFORM, (simple_sort_algo_t)a, (int)(k % 2), 0);
      for (int d = SIMPLE_SORT_EQUAL; d < SIMPLE_SORT_DIST_COUNT__; d++) {
        one(s, 1, bits, (simple_sort_dist_t)d, (simple_sort_algo_t)a, 1, 0);
        one(s, 1001, bits, (simple_sort_dist_t)d, (simple_sort_algo_t)a, d % 2, 0);
      }
    }
  /* Narrow digits (many passes, digits cut at many thread boundaries) and
   * a larger n. */
  one(s, 3001, 32, SIMPLE_SORT_UNIFORM, SIMPLE_SORT_SIMPLE, 1, 3);
  one(s, 3001, 64, SIMPLE_SORT_FEW, SIMPLE_SORT_RDXOPT, 0, 5);
  /* 16-bit digits: p 2^16 > 2^16 words once p > 1, so the prefixes come
   * from an allreduce and an exscan and the section sizes from an alltoall
   * instead of the allgathered table. */
  one(s, 3001, 32, SIMPLE_SORT_UNIFORM, SIMPLE_SORT_SIMPLE, 1, 16);
  one(s, 2000, 64, SIMPLE_SORT_REVERSE, SIMPLE_SORT_SIMPLE, 0, 16);
  one(s, 3001, 32, SIMPLE_SORT_UNIFORM, SIMPLE_SORT_RDX, 1, 16);
  one(s, 60000, 32, SIMPLE_SORT_UNIFORM, SIMPLE_SORT_SIMPLE, 1, 0);
  one(s, 60000, 64, SIMPLE_SORT_UNIFORM, SIMPLE_SORT_RDX, 0, 0);
}

#ifdef SORT_FORCE_MSG
/* The same cases with the inter-node exchange forced to thread-to-thread
 * messages (chosen by default only for large sorts). */
int main(int argc, char **argv) {
  setenv("SIMPLE_SORT_EXCHANGE", "msg", 1);
  int rc = simple_run(&argc, &argv, body, NULL);
  if (rc != 0) fprintf(stderr, "simple_run: %s\n", simple_strerror(rc));
  return rc == 0 ? 0 : 1;
}
#else
TEST_MAIN(body)
#endif
