/* simple_alltoallv: every type, irregular counts (some pairs exchange
 * nothing, whole node pairs too when the base count is 0), three
 * placements of the blocks (packed in rank order; reverse rank order with
 * gaps; rank order with gaps after some ranks, so that on nodes of one
 * thread some nodes' blocks are contiguous and others not), different
 * placements on the sending and receiving sides, in place and not, one
 * case above 1 MiB per thread. recv must hold every block at its
 * displacement and nothing else may change (gaps and guards); send must be
 * unchanged. In place follows MPI: rcounts/rdispls describe both the
 * outgoing and the incoming blocks (so counts are symmetric), and
 * scounts/sdispls are ignored (passed as NULL). Block i -> j is a function
 * of (i, j, element, salt), recomputed by the receiver. */
#include "harness.h"

#define GUARD 64

static void block(simple_type_t t, unsigned char *buf, size_t count, int p, int i, int j,
                  int salt) {
  for (size_t e = 0; e < count; e++) {
    long long re = (long long)(i * p + j) + (long long)(e % 4099) * 7 + salt * 3;
    long long im = (long long)(e % 13) - (i + 2 * j) % 5 + salt % 3;
    test_store(t, buf, e, re % 100003, im);
  }
}

/* Elements thread i sends thread j. sym: symmetric in i and j. */
static size_t pair_count(int i, int j, size_t base, int sym) {
  if (base == 0 || (i + j) % 4 == 1) return 0;
  return base + (size_t)(sym ? (i * j + i + j) % 7 : (i * 3 + j * 5) % 7);
}

/* Displacements for p blocks of the given counts; returns the extent. */
static size_t place(int p, const size_t *counts, int mode, size_t *displs) {
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

/* Elements thread i sends thread j in a chain: base from every thread of
 * a node to every thread of the next node, nothing else. With three nodes
 * or more the middle ones send and receive at the same step while the
 * first only sends and the last only receives, yet every node pair's
 * message must be cut alike at both ends (between hosts, src/xchg). */
static size_t chain_count(const simple_t *s, int i, int j, size_t base) {
  return simple_node_of(s, j) == simple_node_of(s, i) + 1 ? base : 0;
}

static void alltoallv_one(simple_t *s, simple_type_t t, size_t base_count, int smode, int rmode,
                          int in_place, int salt, int chain) {
  int me = simple_pid(s), p = simple_nprocs(s);
  size_t es = simple_type_size(t);
  size_t *arr = malloc(4 * sizeof(size_t) * (size_t)p);
  CHECK(arr);
  size_t *scounts = arr, *sdispls = arr + p, *rcounts = arr + 2 * p, *rdispls = arr + 3 * p;
  for (int j = 0; j < p; j++) {
    scounts[j] =
        chain ? chain_count(s, me, j, base_count) : pair_count(me, j, base_count, in_place);
    rcounts[j] =
        chain ? chain_count(s, j, me, base_count) : pair_count(j, me, base_count, in_place);
  }
  size_t sext = place(p, scounts, smode, sdispls), rext = place(p, rcounts, rmode, rdispls);
  size_t sbytes = sext * es, rbytes = rext * es;
  unsigned char *send = malloc(sbytes + 1), *sref = malloc(sbytes + 1),
                *base = malloc(rbytes + 2 * GUARD), *want = malloc(rbytes + 2 * GUARD),
                *recv = base + GUARD;
  CHECK(send && sref && base && want);
  memset(send, 0x5A, sbytes);
  memset(base, 0xA5, rbytes + 2 * GUARD);
  if (in_place)
    for (int j = 0; j < p; j++) block(t, recv + rdispls[j] * es, rcounts[j], p, me, j, salt);
  else
    for (int j = 0; j < p; j++) block(t, send + sdispls[j] * es, scounts[j], p, me, j, salt);
  memcpy(sref, send, sbytes);
  if (in_place)
    CHECK_OK(simple_alltoallv(s, SIMPLE_IN_PLACE, NULL, NULL, recv, rcounts, rdispls, t));
  else
    CHECK_OK(simple_alltoallv(s, send, scounts, sdispls, recv, rcounts, rdispls, t));
  memset(want, 0xA5, rbytes + 2 * GUARD);
  for (int i = 0; i < p; i++) block(t, want + GUARD + rdispls[i] * es, rcounts[i], p, i, me, salt);
  if (memcmp(base, want, rbytes + 2 * GUARD) != 0) {
    size_t at = 0;
    while (base[at] == want[at]) at++;
    simple_abort(s, "alltoallv type %s base %zu modes %d/%d in_place %d: byte %ld wrong",
                 simple_type_name(t), base_count, smode, rmode, in_place, (long)at - GUARD);
  }
  CHECK(memcmp(send, sref, sbytes) == 0);
  free(arr);
  free(send);
  free(sref);
  free(base);
  free(want);
}

static void errors(simple_t *s) {
  int p = simple_nprocs(s);
  size_t *z = calloc(2 * (size_t)p, sizeof(size_t));
  double d[4];
  CHECK(z);
  /* All zero counts: NULL buffers are fine. */
  CHECK_OK(simple_alltoallv(s, NULL, z, z + p, NULL, z, z + p, SIMPLE_INT16));
  CHECK_OK(simple_alltoallv(s, SIMPLE_IN_PLACE, NULL, NULL, NULL, z, z + p, SIMPLE_INT16));
  /* The same error everywhere: returned before any communication. */
  CHECK_RC(simple_alltoallv(s, d, NULL, z, d, z, z + p, SIMPLE_DOUBLE), SIMPLE_ERR_NULL);
  CHECK_RC(simple_alltoallv(s, d, z, z, d, z, NULL, SIMPLE_DOUBLE), SIMPLE_ERR_NULL);
  CHECK_RC(simple_alltoallv(s, SIMPLE_IN_PLACE, z, z, d, NULL, z, SIMPLE_DOUBLE), SIMPLE_ERR_NULL);
  CHECK_RC(simple_alltoallv(s, d, z, z, d, z, z + p, (simple_type_t)-1), SIMPLE_ERR_TYPE);
  /* A count with a NULL buffer; an extent that overflows. */
  size_t *c = calloc(2 * (size_t)p, sizeof(size_t)), *one = calloc((size_t)p, sizeof(size_t));
  CHECK(c && one);
  c[0] = 1;
  /* Consistent counts (rank 0 sends one element to every rank, which
   * expects it): the nodes, all in error, still exchange error marks by
   * these sizes, so they must agree as in a correct call. */
  for (int j = 0; j < p && simple_pid(s) == 0; j++) one[j] = 1;
  CHECK_RC(simple_alltoallv(s, d, one, z + p, NULL, c, c + p, SIMPLE_DOUBLE), SIMPLE_ERR_NULL);
  free(one);
  c[p] = SIZE_MAX;
  CHECK_RC(simple_alltoallv(s, d, z, z + p, d, c, c + p, SIMPLE_DOUBLE), SIMPLE_ERR_COUNT);
  c[p] = SIZE_MAX / 8;
  CHECK_RC(simple_alltoallv(s, d, c, c + p, d, z, z + p, SIMPLE_DOUBLE), SIMPLE_ERR_COUNT);
  /* One thread per node wrong: it gets the code, its node's others PEER. */
  if (simple_thread(s) == 0)
    CHECK_RC(simple_alltoallv(s, d, z, z + p, d, z, NULL, SIMPLE_DOUBLE), SIMPLE_ERR_NULL);
  else
    CHECK_RC(simple_alltoallv(s, d, z, z + p, d, z, z + p, SIMPLE_DOUBLE), SIMPLE_ERR_PEER);
  CHECK_RC(simple_alltoallv(NULL, d, z, z + p, d, z, z + p, SIMPLE_DOUBLE), SIMPLE_ERR_NOT_IN_JOB);
  free(c);
  free(z);
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  int p = simple_nprocs(s);
  static const size_t bases[] = {0, 1, 6};
  int salt = 0;
  for (size_t ti = 0; ti < TEST_NTYPES; ti++)
    for (size_t bi = 0; bi < sizeof bases / sizeof bases[0]; bi++)
      for (int mode = 0; mode < 3; mode++)
        for (int in_place = 0; in_place < 2; in_place++)
          alltoallv_one(s, test_types[ti], bases[bi], mode, (mode + (int)bi) % 3, in_place, ++salt,
                        0);
  /* Above 1 MiB per thread (send and recv each). */
  size_t big = ((size_t)1 << 20) / (6 * (size_t)p) + 11;
  for (int mode = 0; mode < 3; mode++) {
    alltoallv_one(s, SIMPLE_DOUBLE, big, mode, (mode + 1) % 3, 0, ++salt, 0);
    alltoallv_one(s, SIMPLE_DOUBLE, big, mode, mode, 1, ++salt, 0);
  }
  /* A chain of node messages of 625 KiB and more (80000 doubles a pair). */
  alltoallv_one(s, SIMPLE_DOUBLE, 80000, 0, 0, 0, ++salt, 1);
  errors(s);
  /* Still in step after the errors. */
  alltoallv_one(s, SIMPLE_INT32, 3, 1, 2, 0, ++salt, 0);
  CHECK_OK(simple_barrier(s));
}

TEST_MAIN(test)
