/* simple_node_bcast and simple_node_share: every type, several counts,
 * every root. */
#include "harness.h"

static void test(simple_t *s, void *arg) {
  (void)arg;
  int me = simple_thread(s), r = simple_threads(s);
  /* 33 elements of 8 bytes: past the posted path's 256 bytes
   * (src/node/node_coll.c), below them for smaller types. */
  static const size_t counts[] = {0, 1, 13, 33, 100000};
  for (size_t ti = 0; ti < TEST_NTYPES; ti++) {
    simple_type_t t = test_types[ti];
    size_t es = simple_type_size(t);
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
      size_t n = counts[ci];
      unsigned char *buf = malloc(n * es + 8), *want = malloc(n * es + 8);
      for (int root = 0; root < r; root++) {
        /* Each thread starts from different data; the root's must win. */
        test_fill(SIMPLE_SUM, t, buf, n, me + 100);
        memset(buf + n * es, 0x5A, 8);
        CHECK_OK(simple_node_bcast(s, buf, n, t, root));
        test_fill(SIMPLE_SUM, t, want, n, root + 100);
        CHECK(test_diff(t, buf, want, n) < 0);
        for (int i = 0; i < 8; i++) CHECK(buf[n * es + (size_t)i] == 0x5A);
      }
      free(buf);
      free(want);
    }
  }
  /* share: the root's pointer, not a copy. */
  static int cell[64];
  for (int root = 0; root < r; root++) {
    void *p = &cell[me];
    CHECK_OK(simple_node_share(s, &p, root));
    CHECK(p == (void *)&cell[root]);
  }
}

TEST_MAIN(test)
