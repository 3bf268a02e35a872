/* simple_scatterv: every type, irregular counts (some threads get
 * nothing), three placements of the blocks in the root's send (packed in
 * rank order; reverse rank order with gaps; rank order with gaps after some
 * pids, so that some nodes' blocks are contiguous and others not), roots
 * 0, last and middle, in place and not, one case above 1 MiB per thread.
 * Every thread's recv must hold its block and nothing outside it may be
 * written (guards); the root's send stays untouched; a count that
 * disagrees with the root's counts[] is refused on the root's node. */
#include "harness.h"

#define GUARD 64

static void block(simple_type_t t, void *buf, size_t n, int i, int salt) {
  test_fill(SIMPLE_BXOR, t, buf, n, i * 7 + salt);
}

/* counts/displs (p entries) for a base count and a placement; returns the
 * extent in elements. */
static size_t vlayout(int p, size_t base, int mode, size_t *counts, size_t *displs) {
  for (int i = 0; i < p; i++) counts[i] = i % 4 == 1 ? 0 : base + (size_t)(i * 5 % 7);
  size_t at = 0;
  if (mode == 1) {
    for (int i = p - 1; i >= 0; i--) {
      displs[i] = at;
      at += counts[i] + 3;
    }
  } else {
    for (int i = 0; i < p; i++) {
      displs[i] = at;
      at += counts[i] + (mode == 2 && i % 3 == 2 ? 2 : 0);
    }
  }
  return at;
}

/* The root's send: every block at its displacement, 0x3C in the gaps. */
static void root_image(simple_type_t t, unsigned char *buf, int p, size_t extent,
                       const size_t *counts, const size_t *displs, int salt) {
  size_t es = simple_type_size(t);
  memset(buf, 0x3C, extent * es);
  for (int i = 0; i < p; i++) block(t, buf + displs[i] * es, counts[i], i, salt);
}

static void scatterv_one(simple_t *s, simple_type_t t, size_t base_count, int mode, int root,
                         int in_place, int salt) {
  int me = simple_pid(s), p = simple_nprocs(s), is_root = me == root;
  in_place = in_place && is_root;
  size_t *counts = malloc(2 * sizeof(size_t) * (size_t)p), *displs = counts + p;
  CHECK(counts);
  size_t extent = vlayout(p, base_count, mode, counts, displs);
  size_t es = simple_type_size(t), n = counts[me], total = is_root ? extent * es : 0;
  size_t wbytes = (total > n * es ? total : n * es) + 2 * GUARD;
  unsigned char *send = malloc(total + 1), *base = malloc(n * es + 2 * GUARD),
                *want = malloc(wbytes), *recv = base + GUARD;
  CHECK(send && base && want);
  if (is_root) root_image(t, send, p, extent, counts, displs, salt);
  memset(base, 0xA5, n * es + 2 * GUARD);
  /* counts and displs only at the root: NULL elsewhere. */
  CHECK_OK(simple_scatterv(s, is_root ? send : NULL, is_root ? counts : NULL,
                           is_root ? displs : NULL, in_place ? (void *)SIMPLE_IN_PLACE : recv,
                           in_place ? 12345 : n, t, root));
  memset(want, 0xA5, n * es + 2 * GUARD);
  if (!in_place) block(t, want + GUARD, n, me, salt);
  if (memcmp(base, want, n * es + 2 * GUARD) != 0) {
    size_t at = 0;
    while (base[at] == want[at]) at++;
    simple_abort(s, "scatterv type %s base %zu mode %d root %d in_place %d: byte %zd wrong",
                 simple_type_name(t), base_count, mode, root, in_place, (ptrdiff_t)at - GUARD);
  }
  if (is_root) {
    root_image(t, want, p, extent, counts, displs, salt);
    CHECK(memcmp(send, want, total) == 0);
  }
  free(counts);
  free(send);
  free(base);
  free(want);
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  int p = simple_nprocs(s), me = simple_pid(s);
  static const size_t bases[] = {0, 1, 7, 333};
  int roots[3] = {0, p - 1, p / 2}, salt = 0;
  for (size_t ti = 0; ti < TEST_NTYPES; ti++)
    for (size_t bi = 0; bi < sizeof bases / sizeof bases[0]; bi++)
      for (int mode = 0; mode < 3; mode++)
        for (int in_place = 0; in_place < 2; in_place++)
          scatterv_one(s, test_types[ti], bases[bi], mode, roots[(bi + (size_t)mode) % 3], in_place,
                       ++salt);
  /* Above 1 MiB per thread (for most threads). */
  scatterv_one(s, SIMPLE_INT32, 262147, 1, p / 2, 0, ++salt);
  scatterv_one(s, SIMPLE_UINT8, 1048583, 2, p - 1, 1, ++salt);

  /* A count that disagrees with the root's counts[]: the root's node
   * refuses it (that thread SIMPLE_ERR_ARG, its node's others
   * SIMPLE_ERR_PEER); the other nodes still get their data. */
  size_t *counts = malloc(2 * sizeof(size_t) * (size_t)p), *displs = counts + p;
  size_t extent = vlayout(p, 3, 0, counts, displs);
  int root = p / 2, root_node = simple_node_of(s, root);
  int liar = simple_pid_of(s, root_node, simple_threads_on(s, root_node) - 1);
  int32_t *in = calloc(extent + 1, 4), *out = calloc(counts[me] + 1, 4);
  for (size_t i = 0; i < extent; i++) in[i] = (int32_t)i + 1;
  int want = simple_node(s) != root_node ? 0 : me == liar ? SIMPLE_ERR_ARG : SIMPLE_ERR_PEER;
  CHECK_RC(
      simple_scatterv(s, in, counts, displs, out, counts[me] + (me == liar), SIMPLE_INT32, root),
      want);
  if (want == 0)
    for (size_t i = 0; i < counts[me]; i++) CHECK_EQ(out[i], displs[me] + i + 1);
  /* Arguments refused on every thread alike. */
  CHECK_RC(simple_scatterv(s, in, counts, displs, out, counts[me], SIMPLE_INT32, -1),
           SIMPLE_ERR_RANK);
  CHECK_RC(simple_scatterv(s, in, counts, displs, out, counts[me], (simple_type_t)99, 0),
           SIMPLE_ERR_TYPE);
  /* Every block empty, the buffers NULL, displacements anywhere: nothing
   * moves, and no address is formed inside a NULL buffer (UBSan). */
  size_t *zc = calloc(2 * (size_t)p, sizeof(size_t)), *zd = zc + p;
  CHECK(zc);
  for (int i = 0; i < p; i++) zd[i] = (size_t)i + 1;
  CHECK_OK(simple_scatterv(s, NULL, zc, zd, NULL, 0, SIMPLE_INT32, p - 1));
  free(zc);
  /* Still in step afterwards. */
  scatterv_one(s, SIMPLE_INT64, 5, 2, p - 1, 0, ++salt);
  free(counts);
  free(in);
  free(out);
}

TEST_MAIN(test)
