/* simple_scatter: every type, counts 0, 1, odd and one above 1 MiB per
 * thread, roots 0, last and middle, in place at the root (recv =
 * SIMPLE_IN_PLACE) and not. Every thread's recv must hold its block of the
 * root's send and nothing outside it may be written (guards); the root's
 * send stays untouched. Expected blocks come from test_fill of each pid. */
#include "harness.h"

#define GUARD 64

/* Block i of the root's send in a call with salt `salt`. */
static void block(simple_type_t t, void *buf, size_t n, int i, int salt) {
  test_fill(SIMPLE_BXOR, t, buf, n, i * 7 + salt);
}

static void scatter_one(simple_t *s, simple_type_t t, size_t n, int root, int in_place, int salt) {
  int me = simple_pid(s), p = simple_nprocs(s), is_root = me == root;
  in_place = in_place && is_root;
  size_t es = simple_type_size(t), bytes = n * es, total = is_root ? (size_t)p * bytes : 0;
  unsigned char *send = malloc(total + 1), *base = malloc(bytes + 2 * GUARD),
                *want = malloc((total > bytes ? total : bytes) + 2 * GUARD), *recv = base + GUARD;
  CHECK(send && base && want);
  if (is_root)
    for (int i = 0; i < p; i++) block(t, send + (size_t)i * bytes, n, i, salt);
  memset(base, 0xA5, bytes + 2 * GUARD);
  CHECK_OK(simple_scatter(s, send, in_place ? (void *)SIMPLE_IN_PLACE : recv, n, t, root));
  memset(want, 0xA5, bytes + 2 * GUARD);
  if (!in_place) block(t, want + GUARD, n, me, salt);
  if (memcmp(base, want, bytes + 2 * GUARD) != 0) {
    size_t at = 0;
    while (base[at] == want[at]) at++;
    simple_abort(s, "scatter type %s count %zu root %d in_place %d: byte %zd of recv wrong",
                 simple_type_name(t), n, root, in_place, (ptrdiff_t)at - GUARD);
  }
  if (is_root) {
    for (int i = 0; i < p; i++) block(t, want + (size_t)i * bytes, n, i, salt);
    CHECK(memcmp(send, want, total) == 0);
  }
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
          scatter_one(s, test_types[ti], counts[ci], roots[k], in_place, ++salt);
  /* Above 1 MiB per thread. */
  scatter_one(s, SIMPLE_INT32, 262147, p / 2, 0, ++salt);
  scatter_one(s, SIMPLE_DOUBLE_COMPLEX, 65539, p - 1, 1, ++salt);
  /* Node messages of 2 x 2 between hosts (segments layouts, whole from
   * 512 KiB there) that go one way in segments (625 KiB) and whole (1 MiB,
   * the one-way threshold there). */
  scatter_one(s, SIMPLE_DOUBLE, 40000, 0, 0, ++salt);
  scatter_one(s, SIMPLE_DOUBLE, 65536, p - 1, 0, ++salt);

  /* Arguments refused on every thread alike. */
  int x[4] = {0};
  CHECK_RC(simple_scatter(s, x, x, 1, SIMPLE_INT32, p), SIMPLE_ERR_RANK);
  CHECK_RC(simple_scatter(s, x, x, 1, SIMPLE_INT32, -1), SIMPLE_ERR_RANK);
  CHECK_RC(simple_scatter(s, x, x, 1, (simple_type_t)99, 0), SIMPLE_ERR_TYPE);
  CHECK_RC(simple_scatter(s, x, NULL, 1, SIMPLE_INT32, 0), SIMPLE_ERR_NULL);
  CHECK_OK(simple_scatter(s, NULL, NULL, 0, SIMPLE_INT32, p - 1));
  /* In place off the root: refused on those threads' node (one node only,
   * so that no other node is left waiting). */
  if (simple_nodes(s) == 1 && p > 1)
    CHECK_RC(
        simple_scatter(s, x, me == 0 ? (void *)x : (void *)SIMPLE_IN_PLACE, 1, SIMPLE_INT32, 0),
        me == 0 ? SIMPLE_ERR_PEER : SIMPLE_ERR_ARG);
  scatter_one(s, SIMPLE_INT16, 5, p / 2, 0, ++salt);
}

TEST_MAIN(test)
