/* simple_bcast: every type, several counts, roots 0, last and middle; the
 * root's data everywhere, nothing written past the end. */
#include "harness.h"

/* Bytes that differ from pid to pid and from segment to segment (a
 * segment landing at another offset shows). */
static void bytes_fill(unsigned char *b, size_t n, int pid) {
  for (size_t i = 0; i < n; i++)
    b[i] = (unsigned char)((i ^ (i >> 9)) * 167u + 13u * (unsigned)pid);
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  int me = simple_pid(s), p = simple_nprocs(s);
  static const size_t counts[] = {0, 1, 13, 1000, 150000};
  int roots[3] = {0, p - 1, p / 2};
  for (size_t ti = 0; ti < TEST_NTYPES; ti++) {
    simple_type_t t = test_types[ti];
    size_t es = simple_type_size(t);
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
      size_t n = counts[ci];
      if (n * es > (1u << 20) && t != SIMPLE_DOUBLE) continue; /* one large case is enough */
      unsigned char *buf = malloc(n * es + 8), *want = malloc(n * es + 8);
      for (int k = 0; k < 3; k++) {
        int root = roots[k];
        test_fill(SIMPLE_SUM, t, buf, n, me + 100);
        memset(buf + n * es, 0x5A, 8);
        CHECK_OK(simple_bcast(s, buf, n, t, root));
        test_fill(SIMPLE_SUM, t, want, n, root + 100);
        if (test_diff(t, buf, want, n) >= 0)
          simple_abort(s, "bcast type %s count %zu root %d wrong", simple_type_name(t), n, root);
        for (int i = 0; i < 8; i++) CHECK(buf[n * es + (size_t)i] == 0x5A);
      }
      free(buf);
      free(want);
    }
  }
  /* Both sides of the verdict word's copies in MPI_Bcast (the mpi
   * algorithm among nodes: src/net): on the stack up to 1 KiB, on the heap
   * up to 48 KiB, a datatype above. Messages between hosts (segments
   * layouts, whole from 512 KiB there) that go one way down the tree: in
   * segments (768 KiB, and one byte short of 1 MiB) and whole (1 MiB, the
   * one-way threshold there). */
  static const size_t sizes[] = {1024, 1025, 49152, 49153, 786432, 1048575, 1048576};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    size_t n = sizes[k];
    unsigned char *buf = malloc(n + 8), *want = malloc(n);
    CHECK(buf && want);
    bytes_fill(buf, n, me);
    memset(buf + n, 0x5A, 8);
    CHECK_OK(simple_bcast(s, buf, n, SIMPLE_UINT8, p / 2));
    bytes_fill(want, n, p / 2);
    CHECK(memcmp(buf, want, n) == 0);
    for (int i = 0; i < 8; i++) CHECK(buf[n + (size_t)i] == 0x5A);
    free(buf);
    free(want);
  }
  int x = 1;
  CHECK_RC(simple_bcast(s, &x, 1, SIMPLE_INT32, p), SIMPLE_ERR_RANK);
  CHECK_RC(simple_bcast(s, &x, 1, (simple_type_t)99, 0), SIMPLE_ERR_TYPE);
}

TEST_MAIN(test)
