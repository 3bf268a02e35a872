/* simple_gather: every type, counts 0, 1, odd and one above 1 MiB per
 * thread, roots 0, last and middle, in place at the root and not. The
 * root's recv must hold every pid's block in rank order and nothing outside
 * it may be written (guards); other threads' recv and every send buffer
 * stay untouched. Expected blocks come from test_fill of each pid. */
#include "harness.h"

#define GUARD 64

/* pid i's block in a call with salt `salt`. */
static void block(simple_type_t t, void *buf, size_t n, int i, int salt) {
  test_fill(SIMPLE_BXOR, t, buf, n, i * 7 + salt);
}

static void gather_one(simple_t *s, simple_type_t t, size_t n, int root, int in_place, int salt) {
  int me = simple_pid(s), p = simple_nprocs(s), is_root = me == root;
  in_place = in_place && is_root;
  size_t es = simple_type_size(t), bytes = n * es, total = is_root ? (size_t)p * bytes : 0;
  unsigned char *send = malloc(bytes + 1), *base = malloc(total + 2 * GUARD),
                *want = malloc((total > bytes ? total : bytes) + 2 * GUARD), *recv = base + GUARD;
  CHECK(send && base && want);
  block(t, send, n, me, salt);
  memset(base, 0xA5, total + 2 * GUARD);
  if (in_place) block(t, recv + (size_t)me * bytes, n, me, salt);
  CHECK_OK(simple_gather(s, in_place ? SIMPLE_IN_PLACE : send, recv, n, t, root));
  /* The whole image, guards included. */
  memset(want, 0xA5, total + 2 * GUARD);
  if (is_root)
    for (int i = 0; i < p; i++) block(t, want + GUARD + (size_t)i * bytes, n, i, salt);
  if (memcmp(base, want, total + 2 * GUARD) != 0) {
    size_t at = 0;
    while (base[at] == want[at]) at++;
    simple_abort(s, "gather type %s count %zu root %d in_place %d: byte %zd of recv wrong",
                 simple_type_name(t), n, root, in_place, (ptrdiff_t)at - GUARD);
  }
  block(t, want, n, me, salt);
  CHECK(memcmp(send, want, bytes) == 0);
  free(send);
  free(base);
  free(want);
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  int p = simple_nprocs(s), me = simple_pid(s);
  static const size_t counts[] = {0, 1, 7, 333};
  int roots[3] = {0, p - 1, p / 2}, salt = 0;
  for (size_t ti = 0; ti < TEST_NTYPES; ti++)
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
      for (int k = 0; k < 3; k++)
        for (int in_place = 0; in_place < 2; in_place++)
          gather_one(s, test_types[ti], counts[ci], roots[k], in_place, ++salt);
  /* Above 1 MiB per thread. */
  gather_one(s, SIMPLE_INT32, 262147, p / 2, 0, ++salt);
  gather_one(s, SIMPLE_DOUBLE, 131075, p - 1, 1, ++salt);
  /* Node messages of 2 x 2 between hosts (segments layouts, whole from
   * 512 KiB there) that go one way in segments (625 KiB) and whole (1 MiB,
   * the one-way threshold there). */
  gather_one(s, SIMPLE_DOUBLE, 40000, 0, 0, ++salt);
  gather_one(s, SIMPLE_DOUBLE, 65536, p - 1, 0, ++salt);

  /* Arguments refused on every thread alike. */
  int x[4] = {0};
  CHECK_RC(simple_gather(s, x, x, 1, SIMPLE_INT32, p), SIMPLE_ERR_RANK);
  CHECK_RC(simple_gather(s, x, x, 1, SIMPLE_INT32, -1), SIMPLE_ERR_RANK);
  CHECK_RC(simple_gather(s, x, x, 1, (simple_type_t)99, 0), SIMPLE_ERR_TYPE);
  CHECK_RC(simple_gather(s, NULL, x, 1, SIMPLE_INT32, 0), SIMPLE_ERR_NULL);
  CHECK_OK(simple_gather(s, NULL, NULL, 0, SIMPLE_INT32, p - 1));
  /* In place off the root: those threads' nodes return an error (one node
   * only, so that no other node is left waiting for their data). */
  if (simple_nodes(s) == 1 && p > 1)
    CHECK_RC(simple_gather(s, me == 0 ? (const void *)x : SIMPLE_IN_PLACE, x, 1, SIMPLE_INT32, 0),
             me == 0 ? SIMPLE_ERR_PEER : SIMPLE_ERR_ARG);
  /* Still in step afterwards. */
  gather_one(s, SIMPLE_INT16, 5, p / 2, 0, ++salt);
}

TEST_MAIN(test)
