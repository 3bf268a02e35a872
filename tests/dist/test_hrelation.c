/* simple_hrelation: random destinations (a fixed pseudo-random function
 * every thread can recompute), without index (received in sender-rank
 * order, each sender's elements in order: checked by recomputing every
 * sender's list) and with index (a permutation of the global array: the
 * receiver checks element i of its block); several element sizes; threads
 * that send nothing, all to one thread; capacity and argument errors,
 * which every thread of the job must see. */
#include "harness.h"

static unsigned hash(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

/* Elements thread q sends, and where element e of q goes. */
static size_t count_of(int q, int mode) {
  return mode == 1 && q % 2 ? 0 : (size_t)(q * 5 + 7) % 23;
}
static int dest_of(int q, size_t e, int p, int mode, int salt) {
  if (mode == 2) return p - 1; /* all to one */
  return (int)(hash((unsigned)(q * 7919 + (int)e * 31 + salt)) % (unsigned)p);
}
static unsigned char byte_of(int q, size_t e, size_t b, int salt) {
  return (unsigned char)(q * 37 + (int)e * 11 + (int)b * 5 + salt);
}

static void unindexed(simple_t *s, size_t es, int mode, int salt) {
  int p = simple_nprocs(s), me = simple_pid(s);
  size_t n = count_of(me, mode);
  unsigned char *send = malloc(n * es + 1);
  int *dest = malloc(sizeof(int) * (n + 1));
  CHECK(send && dest);
  for (size_t e = 0; e < n; e++) {
    dest[e] = dest_of(me, e, p, mode, salt);
    for (size_t b = 0; b < es; b++) send[e * es + b] = byte_of(me, e, b, salt);
  }
  /* The expected arrivals, in sender order. */
  size_t want = 0;
  for (int q = 0; q < p; q++)
    for (size_t e = 0; e < count_of(q, mode); e++) want += dest_of(q, e, p, mode, salt) == me;
  size_t cap = want + 3, got = 99;
  unsigned char *recv = malloc(cap * es + 1);
  CHECK(recv);
  memset(recv, 0xEE, cap * es);
  CHECK_OK(simple_hrelation(s, send, n, es, dest, NULL, recv, cap, &got));
  CHECK_EQ(got, want);
  size_t at = 0;
  for (int q = 0; q < p; q++)
    for (size_t e = 0; e < count_of(q, mode); e++) {
      if (dest_of(q, e, p, mode, salt) != me) continue;
      for (size_t b = 0; b < es; b++) CHECK_EQ(recv[at * es + b], byte_of(q, e, b, salt));
      at++;
    }
  for (size_t b = want * es; b < cap * es; b++) CHECK_EQ(recv[b], 0xEE);
  free(send);
  free(dest);
  free(recv);
}

/* A permutation of a global array of N elements, block-distributed in
 * blocks of B = N / p (+1 on the first N % p): element g goes to global
 * position perm(g) = (g * a + c) mod N with a coprime to N. */
static void indexed(simple_t *s, size_t es, long N, int salt) {
  int p = simple_nprocs(s), me = simple_pid(s);
  long a = 1;
  for (long c = 5; c < N + 5; c += 2) {
    long x = c, y = N; /* gcd(c, N) == 1 */
    while (y) {
      long t = x % y;
      x = y;
      y = t;
    }
    if (x == 1) {
      a = c;
      break;
    }
  }
  long q = N / p, rem = N % p, lo = me * q + (me < rem ? me : rem), n = q + (me < rem);
  unsigned char *send = malloc((size_t)n * es + 1), *recv = malloc((size_t)n * es + 1);
  int *dest = malloc(sizeof(int) * ((size_t)n + 1));
  size_t *idx = malloc(sizeof(size_t) * ((size_t)n + 1));
  CHECK(send && recv && dest && idx);
  for (long e = 0; e < n; e++) {
    long g = lo + e, t = (g * a + salt) % N;
    int o = 0;
    while (!(t >= o * q + (o < rem ? o : rem) && t < (o + 1) * q + (o + 1 < rem ? o + 1 : rem)))
      o++;
    dest[e] = o;
    idx[e] = (size_t)(t - (o * q + (o < rem ? o : rem)));
    for (size_t b = 0; b < es; b++) send[(size_t)e * es + b] = byte_of(0, (size_t)g, b, salt);
  }
  size_t got;
  CHECK_OK(simple_hrelation(s, send, (size_t)n, es, dest, idx, recv, (size_t)n, &got));
  CHECK_EQ(got, n);
  /* Position t of the global result holds element g with g a + salt = t. */
  for (long e = 0; e < n; e++) {
    long t = lo + e, g = -1;
    for (long x = 0; x < N; x++)
      if ((x * a + salt) % N == t) g = x;
    for (size_t b = 0; b < es; b++)
      CHECK_EQ(recv[(size_t)e * es + b], byte_of(0, (size_t)g, b, salt));
  }
  free(send);
  free(recv);
  free(dest);
  free(idx);
}

static void errors(simple_t *s) {
  int p = simple_nprocs(s), me = simple_pid(s);
  double a[4] = {1, 2, 3, 4}, b[8];
  int dest[4] = {0, 0, 0, 0};
  size_t idx[4] = {0, 1, 2, 3}, got;
  CHECK_RC(simple_hrelation(NULL, a, 1, 8, dest, NULL, b, 8, &got), SIMPLE_ERR_NOT_IN_JOB);
  /* Thread 0 receives 4 p elements: too many for its capacity of 8 when
   * p > 2; it gets COUNT and learns how many, the others PEER. */
  int rc = simple_hrelation(s, a, 4, 8, dest, NULL, b, 8, &got);
  if (p > 2)
    CHECK_RC(rc, me == 0 ? SIMPLE_ERR_COUNT : SIMPLE_ERR_PEER);
  else
    CHECK_OK(rc);
  if (me == 0) CHECK_EQ(got, 4 * (size_t)p);
  /* One bad destination on the last thread: everybody hears of it. */
  if (me == p - 1) dest[2] = p;
  CHECK_RC(simple_hrelation(s, a, 4, 8, dest, NULL, b, 8 * (size_t)p, &got),
           me == p - 1 ? SIMPLE_ERR_RANK : SIMPLE_ERR_PEER);
  dest[2] = 0;
  /* An index beyond the destination's capacity. */
  if (me == 0) idx[3] = 100;
  CHECK_RC(simple_hrelation(s, a, 4, 8, dest, idx, b, 8, &got),
           me == 0 ? SIMPLE_ERR_RANK : SIMPLE_ERR_PEER);
  CHECK_RC(simple_hrelation(s, a, 4, 0, dest, NULL, b, 8, &got), SIMPLE_ERR_ARG);
  CHECK_RC(simple_hrelation(s, a, 4, 8, NULL, NULL, b, 8, &got), SIMPLE_ERR_NULL);
  /* Nothing to send anywhere: NULL everything is fine. */
  CHECK_OK(simple_hrelation(s, NULL, 0, 8, NULL, NULL, NULL, 0, &got));
  CHECK_EQ(got, 0);
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  int salt = 0, p = simple_nprocs(s);
  static const size_t sizes[] = {8, 4, 1, 12, 16};
  for (size_t e = 0; e < sizeof sizes / sizeof *sizes; e++)
    for (int mode = 0; mode < 3; mode++) unindexed(s, sizes[e], mode, ++salt);
  indexed(s, 8, 1, 0);
  indexed(s, 8, 5L * p + 3, ++salt);
  indexed(s, 4, 97, ++salt);
  indexed(s, 12, 2L * p - 1, ++salt);
  errors(s);
  unindexed(s, 8, 0, ++salt); /* still in step */
  CHECK_OK(simple_barrier(s));
}

TEST_MAIN(test)
