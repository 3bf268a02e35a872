/* simple_allgatherv: every type, irregular counts (some threads send
 * nothing), three placements (packed in rank order; reverse rank order
 * with gaps; rank order with gaps after some pids), in place and not, one
 * case above 1 MiB per thread. Every thread's recv must hold every block
 * at its displacement and nothing else may change (gaps and guards); a
 * count that disagrees with counts[pid] is refused on every thread of the
 * job (the job-wide verdict). Expected blocks come from test_fill of each
 * pid. */
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

static void allgatherv_one(simple_t *s, simple_type_t t, size_t base_count, int mode, int in_place,
                           int salt) {
  int me = simple_pid(s), p = simple_nprocs(s);
  size_t *counts = malloc(2 * sizeof(size_t) * (size_t)p), *displs = counts + p;
  CHECK(counts);
  size_t extent = vlayout(p, base_count, mode, counts, displs);
  size_t es = simple_type_size(t), n = counts[me], total = extent * es;
  unsigned char *send = malloc(n * es + 1), *base = malloc(total + 2 * GUARD),
                *want = malloc(total + 2 * GUARD), *recv = base + GUARD;
  CHECK(send && base && want);
  block(t, send, n, me, salt);
  memset(base, 0xA5, total + 2 * GUARD);
  if (in_place) block(t, recv + displs[me] * es, n, me, salt);
  CHECK_OK(simple_allgatherv(s, in_place ? SIMPLE_IN_PLACE : send, in_place ? 12345 : n, recv,
                             counts, displs, t));
  memset(want, 0xA5, total + 2 * GUARD);
  for (int i = 0; i < p; i++) block(t, want + GUARD + displs[i] * es, counts[i], i, salt);
  if (memcmp(base, want, total + 2 * GUARD) != 0) {
    size_t at = 0;
    while (base[at] == want[at]) at++;
    simple_abort(s, "allgatherv type %s base %zu mode %d in_place %d: byte %zd wrong",
                 simple_type_name(t), base_count, mode, in_place, (ptrdiff_t)at - GUARD);
  }
  block(t, want, n, me, salt);
  CHECK(memcmp(send, want, n * es) == 0);
  free(counts);
  free(send);
  free(base);
  free(want);
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  int p = simple_nprocs(s), me = simple_pid(s);
  static const size_t bases[] = {0, 1, 7, 333};
  int salt = 0;
  for (size_t ti = 0; ti < TEST_NTYPES; ti++)
    for (size_t bi = 0; bi < sizeof bases / sizeof bases[0]; bi++)
      for (int mode = 0; mode < 3; mode++)
        for (int in_place = 0; in_place < 2; in_place++)
          allgatherv_one(s, test_types[ti], bases[bi], mode, in_place, ++salt);
  /* Above 1 MiB per thread (for most threads). */
  allgatherv_one(s, SIMPLE_INT32, 262147, 1, 0, ++salt);
  allgatherv_one(s, SIMPLE_UINT8, 1048583, 2, 1, ++salt);

  /* A count that disagrees with counts[pid] on the last pid: its node
   * refuses the call and says so in the exchange among nodes (that thread
   * SIMPLE_ERR_ARG, every other thread of the job SIMPLE_ERR_PEER); nobody
   * hangs. */
  size_t *counts = malloc(2 * sizeof(size_t) * (size_t)p), *displs = counts + p;
  size_t extent = vlayout(p, 3, 0, counts, displs);
  int liar = p - 1;
  int32_t *in = calloc(counts[me] + 1, 4), *out = calloc(extent + 1, 4);
  int want = me == liar ? SIMPLE_ERR_ARG : SIMPLE_ERR_PEER;
  CHECK_RC(simple_allgatherv(s, in, counts[me] + (me == liar), out, counts, displs, SIMPLE_INT32),
           want);
  /* Arguments refused on every thread alike. */
  CHECK_RC(simple_allgatherv(s, in, counts[me], out, NULL, displs, SIMPLE_INT32), SIMPLE_ERR_NULL);
  CHECK_RC(simple_allgatherv(s, in, counts[me], out, counts, displs, (simple_type_t)99),
           SIMPLE_ERR_TYPE);
  allgatherv_one(s, SIMPLE_INT64, 5, 2, 0, ++salt);
  free(counts);
  free(in);
  free(out);
}

TEST_MAIN(test)
