/* simple_alltoall: every type, counts 0, 1, odd and one case above 1 MiB
 * per thread, blocks of 1 MiB and more (one message per block between
 * nodes), in place and not, several calls in a row (so that messages of
 * successive calls share lanes). Block i -> j holds values that are a
 * function of (i, j, element index, salt); the receiver recomputes each
 * block it should hold independently. Guards before and after recv must
 * be untouched, and send must be unchanged. Argument errors: the same
 * error on every thread (nothing moves), and a node whose thread 0 alone
 * passes a bad buffer (that thread gets the code, the others of its node
 * SIMPLE_ERR_PEER; every node has such a thread, so nobody waits). */
#include "harness.h"

#define GUARD 64

/* Element e of the block thread i sends thread j. Small values (exact in
 * every floating type); i * p + j differs for every pair, so a misplaced
 * block differs from the expected one even when count is 1. */
static void block(simple_type_t t, unsigned char *buf, size_t count, int p, int i, int j,
                  int salt) {
  for (size_t e = 0; e < count; e++) {
    long long re = (long long)(i * p + j) + (long long)(e % 4099) * 7 + salt * 3;
    long long im = (long long)(e % 13) - (i + 2 * j) % 5 + salt % 3;
    test_store(t, buf, e, re % 100003, im);
  }
}

static void alltoall_one(simple_t *s, simple_type_t t, size_t count, int in_place, int salt) {
  int me = simple_pid(s), p = simple_nprocs(s);
  size_t es = simple_type_size(t), bytes = (size_t)p * count * es;
  unsigned char *send = malloc(bytes + 1), *base = malloc(bytes + 2 * GUARD),
                *want = malloc(bytes + 2 * GUARD), *recv = base + GUARD;
  CHECK(send && base && want);
  memset(base, 0xA5, bytes + 2 * GUARD);
  unsigned char *out = in_place ? recv : send;
  for (int j = 0; j < p; j++) block(t, out + (size_t)j * count * es, count, p, me, j, salt);
  CHECK_OK(simple_alltoall(s, in_place ? SIMPLE_IN_PLACE : send, recv, count, t));
  memset(want, 0xA5, bytes + 2 * GUARD);
  for (int i = 0; i < p; i++)
    block(t, want + GUARD + (size_t)i * count * es, count, p, i, me, salt);
  if (memcmp(base, want, bytes + 2 * GUARD) != 0) {
    size_t at = 0;
    while (base[at] == want[at]) at++;
    long off = (long)at - GUARD;
    simple_abort(s, "alltoall type %s count %zu in_place %d: byte %ld wrong (block %ld)",
                 simple_type_name(t), count, in_place, off,
                 off >= 0 && count ? off / (long)(count * es) : -1);
  }
  if (!in_place) {
    for (int j = 0; j < p; j++) block(t, want + (size_t)j * count * es, count, p, me, j, salt);
    CHECK(memcmp(send, want, bytes) == 0);
  }
  free(send);
  free(base);
  free(want);
}

static void errors(simple_t *s) {
  int p = simple_nprocs(s);
  double d[64];
  /* The same error everywhere: returned before any communication. */
  CHECK_RC(simple_alltoall(s, d, NULL, 1, SIMPLE_DOUBLE), SIMPLE_ERR_NULL);
  CHECK_RC(simple_alltoall(s, NULL, d, 1, SIMPLE_DOUBLE), SIMPLE_ERR_NULL);
  CHECK_RC(simple_alltoall(s, d, d + 32, 1, (simple_type_t)99), SIMPLE_ERR_TYPE);
  CHECK_RC(simple_alltoall(s, d, d + 32, SIZE_MAX / 2, SIMPLE_DOUBLE), SIMPLE_ERR_COUNT);
  if (p > 1) /* p * count * 8 overflows, count * 8 alone does not */
    CHECK_RC(simple_alltoall(s, d, d + 32, SIZE_MAX / 8 / (size_t)p + 1, SIMPLE_DOUBLE),
             SIMPLE_ERR_COUNT);
  /* NULL buffers with count 0 are fine. */
  CHECK_OK(simple_alltoall(s, NULL, NULL, 0, SIMPLE_INT32));
  /* One thread per node wrong: it gets the code, its node's others PEER. */
  if (simple_thread(s) == 0)
    CHECK_RC(simple_alltoall(s, d, NULL, 1, SIMPLE_DOUBLE), SIMPLE_ERR_NULL);
  else
    CHECK_RC(simple_alltoall(s, d, d + 32, 1, SIMPLE_DOUBLE), SIMPLE_ERR_PEER);
  CHECK_RC(simple_alltoall(NULL, d, d + 32, 1, SIMPLE_DOUBLE), SIMPLE_ERR_NOT_IN_JOB);
  /* Threads of a node disagreeing on SIMPLE_IN_PLACE (thread 0 one way, the
   * others the other): the transfers still complete (no node hangs), the
   * threads that differ from thread 0 get SIMPLE_ERR_ARG, thread 0
   * SIMPLE_ERR_PEER; a node of one thread cannot disagree with itself. */
  for (int zero_in_place = 0; zero_in_place < 2; zero_in_place++) {
    int ip = (simple_thread(s) == 0) == zero_in_place;
    int want = simple_threads(s) == 1  ? 0
               : simple_thread(s) == 0 ? SIMPLE_ERR_PEER
                                       : SIMPLE_ERR_ARG;
    CHECK_RC(simple_alltoall(s, ip ? SIMPLE_IN_PLACE : d, d + 32, 2, SIMPLE_INT32), want);
  }
  /* The same with large blocks (1 MiB, one message each): the messages
   * still pair up, nobody hangs. */
  size_t n = 131072;
  double *big = malloc(2 * (size_t)p * n * sizeof(double));
  CHECK(big);
  memset(big, 0, 2 * (size_t)p * n * sizeof(double));
  for (int zero_in_place = 0; zero_in_place < 2; zero_in_place++) {
    int ip = (simple_thread(s) == 0) == zero_in_place;
    int want = simple_threads(s) == 1  ? 0
               : simple_thread(s) == 0 ? SIMPLE_ERR_PEER
                                       : SIMPLE_ERR_ARG;
    CHECK_RC(simple_alltoall(s, ip ? SIMPLE_IN_PLACE : big, big + (size_t)p * n, n, SIMPLE_DOUBLE),
             want);
  }
  free(big);
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  int p = simple_nprocs(s);
  static const size_t counts[] = {0, 1, 5, 33};
  int salt = 0;
  for (size_t ti = 0; ti < TEST_NTYPES; ti++)
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
      for (int in_place = 0; in_place < 2; in_place++)
        alltoall_one(s, test_types[ti], counts[ci], in_place, ++salt);
  /* Above 1 MiB per thread in all (send and recv each). */
  size_t big = ((size_t)1 << 20) / (8 * (size_t)p) + 17;
  alltoall_one(s, SIMPLE_DOUBLE, big, 0, ++salt);
  alltoall_one(s, SIMPLE_DOUBLE, big, 1, ++salt);
  /* Odd byte counts that are not a multiple of a cache line. */
  alltoall_one(s, SIMPLE_BYTE, 1001, 0, ++salt);
  /* Blocks from 1 MiB up travel between nodes as messages of their own
   * (on nodes of two threads and more): one just at that size, one above
   * it in place; and one just below, packed (its node-pair messages of 4
   * MiB and more go whole where SIMPLE_SEGMENT_WHOLE is 512 KiB, in 63 KiB
   * segments by default). */
  alltoall_one(s, SIMPLE_BYTE, 1048576, 0, ++salt);
  alltoall_one(s, SIMPLE_DOUBLE, 131075, 1, ++salt);
  alltoall_one(s, SIMPLE_BYTE, 1048575, 0, ++salt);
  errors(s);
  /* Still in step after the errors. */
  alltoall_one(s, SIMPLE_INT32, 3, 0, ++salt);
  CHECK_OK(simple_barrier(s));
}

TEST_MAIN(test)
