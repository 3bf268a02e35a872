/* simple_allgather: every type, counts 0, 1, odd and one above 1 MiB per
 * thread, in place (each thread's block already at recv + pid * count) and
 * not. Every thread's recv must hold every pid's block in rank order and
 * nothing outside it may be written (guards); send stays untouched.
 * Expected blocks come from test_fill of each pid. */
#include "harness.h"

#define GUARD 64

static void block(simple_type_t t, void *buf, size_t n, int i, int salt) {
  test_fill(SIMPLE_BXOR, t, buf, n, i * 7 + salt);
}

static void allgather_one(simple_t *s, simple_type_t t, size_t n, int in_place, int salt) {
  int me = simple_pid(s), p = simple_nprocs(s);
  size_t es = simple_type_size(t), bytes = n * es, total = (size_t)p * bytes;
  unsigned char *send = malloc(bytes + 1), *base = malloc(total + 2 * GUARD),
                *want = malloc(total + 2 * GUARD), *recv = base + GUARD;
  CHECK(send && base && want);
  block(t, send, n, me, salt);
  memset(base, 0xA5, total + 2 * GUARD);
  if (in_place) block(t, recv + (size_t)me * bytes, n, me, salt);
  CHECK_OK(simple_allgather(s, in_place ? SIMPLE_IN_PLACE : send, recv, n, t));
  memset(want, 0xA5, total + 2 * GUARD);
  for (int i = 0; i < p; i++) block(t, want + GUARD + (size_t)i * bytes, n, i, salt);
  if (memcmp(base, want, total + 2 * GUARD) != 0) {
    size_t at = 0;
    while (base[at] == want[at]) at++;
    simple_abort(s, "allgather type %s count %zu in_place %d: byte %zd of recv wrong",
                 simple_type_name(t), n, in_place, (ptrdiff_t)at - GUARD);
  }
  block(t, want, n, me, salt);
  CHECK(memcmp(send, want, bytes) == 0);
  free(send);
  free(base);
  free(want);
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  static const size_t counts[] = {0, 1, 7, 333, 5001};
  int salt = 0;
  for (size_t ti = 0; ti < TEST_NTYPES; ti++)
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
      for (int in_place = 0; in_place < 2; in_place++)
        allgather_one(s, test_types[ti], counts[ci], in_place, ++salt);
  /* Above 1 MiB per thread. */
  allgather_one(s, SIMPLE_INT32, 262147, 0, ++salt);
  allgather_one(s, SIMPLE_DOUBLE, 131075, 1, ++salt);
  /* Either side of the table's crossovers: packed below 16 KiB, direct
   * from 16 KiB (up to 4 nodes); on 2 nodes of two threads or more,
   * packed up to 32 KiB, direct above. */
  allgather_one(s, SIMPLE_BYTE, 16383, 0, ++salt);
  allgather_one(s, SIMPLE_BYTE, 16384, 1, ++salt);
  allgather_one(s, SIMPLE_BYTE, 32768, 0, ++salt);
  allgather_one(s, SIMPLE_BYTE, 32769, 1, ++salt);

  /* Arguments refused on every thread alike. */
  int x[2] = {0};
  CHECK_RC(simple_allgather(s, x, x, 1, (simple_type_t)99), SIMPLE_ERR_TYPE);
  CHECK_RC(simple_allgather(s, NULL, x, 1, SIMPLE_INT32), SIMPLE_ERR_NULL);
  CHECK_RC(simple_allgather(s, x, NULL, 1, SIMPLE_INT32), SIMPLE_ERR_NULL);
  CHECK_RC(simple_allgather(s, x, x, SIZE_MAX / 2, SIMPLE_INT32), SIMPLE_ERR_COUNT);
  CHECK_OK(simple_allgather(s, NULL, NULL, 0, SIMPLE_INT32));
  allgather_one(s, SIMPLE_INT16, 5, 0, ++salt);
}

TEST_MAIN(test)
