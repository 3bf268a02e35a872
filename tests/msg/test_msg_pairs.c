/* Typed messages between every pair of threads (self included): every
 * datatype, sizes around the eager limit, nonblocking and blocking forms;
 * payload, status and the bytes past the buffer checked. */
#include "harness.h"
#include "msg_check.h"

static void pairs_nonblocking(simple_t *s, size_t bytes, long seq) {
  int me = simple_pid(s), p = simple_nprocs(s);
  unsigned char **in = malloc(sizeof *in * (size_t)p), **out = malloc(sizeof *out * (size_t)p);
  simple_request_t *req = malloc(sizeof *req * 2 * (size_t)p);
  simple_status_t *st = malloc(sizeof *st * 2 * (size_t)p);
  for (int q = 0; q < p; q++) {
    in[q] = malloc(bytes + 8);
    out[q] = malloc(bytes + 1);
    memset(in[q] + bytes, 0x5A, 8);
    msg_fill(out[q], bytes, me, q, seq);
    CHECK_OK(simple_irecv(s, in[q], bytes, SIMPLE_BYTE, q, 7, &req[q]));
  }
  for (int k = 0; k < p; k++) {
    int q = (me + k) % p; /* spread the senders over the receivers */
    CHECK_OK(simple_isend(s, out[q], bytes, SIMPLE_BYTE, q, 7, &req[p + q]));
  }
  CHECK_OK(simple_waitall(s, 2 * p, req, st));
  for (int q = 0; q < p; q++) {
    CHECK(req[q] == SIMPLE_REQUEST_NULL);
    CHECK_EQ(st[q].source, q);
    CHECK_EQ(st[q].tag, 7);
    CHECK_EQ(st[q].bytes, bytes);
    long bad = msg_bad(in[q], bytes, q, me, seq);
    if (bad >= 0) simple_abort(s, "from %d, %zu bytes: byte %ld wrong", q, bytes, bad);
    for (int i = 0; i < 8; i++) CHECK(in[q][bytes + (size_t)i] == 0x5A);
    free(in[q]);
    free(out[q]);
  }
  free(in);
  free(out);
  free(req);
  free(st);
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  int me = simple_pid(s), p = simple_nprocs(s);
  static const size_t sizes[] = {0, 1, 8, 13, 4096, 16384, 16385, 100000};
  long seq = 0;
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) pairs_nonblocking(s, sizes[k], seq++);
  CHECK_OK(simple_barrier(s));

  /* Every type, blocking: a shift by d around the ring for every d, the
   * receive posted first by odd ranks, the send first by even ones (small
   * messages, so the send never waits for its receiver). */
  for (size_t ti = 0; ti < TEST_NTYPES; ti++) {
    simple_type_t t = test_types[ti];
    size_t es = simple_type_size(t), n = 37;
    unsigned char *a = malloc(n * es), *b = malloc(n * es), *want = malloc(n * es);
    for (int d = 0; d < p; d++) {
      int to = (me + d) % p, from = (me - d + p) % p;
      test_fill(SIMPLE_SUM, t, a, n, me * 31 + to);
      test_fill(SIMPLE_SUM, t, want, n, from * 31 + me);
      simple_status_t st;
      if (me % 2) {
        simple_request_t r;
        CHECK_OK(simple_irecv(s, b, n, t, from, 3, &r));
        CHECK_OK(simple_send(s, a, n, t, to, 3));
        CHECK_OK(simple_wait(s, &r, &st));
      } else {
        CHECK_OK(simple_send(s, a, n, t, to, 3));
        CHECK_OK(simple_recv(s, b, n, t, from, 3, &st));
      }
      CHECK_EQ(st.source, from);
      CHECK_EQ(st.bytes, n * es);
      if (test_diff(t, b, want, n) >= 0)
        simple_abort(s, "type %s from %d wrong", simple_type_name(t), from);
    }
    free(a);
    free(b);
    free(want);
  }
  CHECK_OK(simple_barrier(s));

  /* Large blocking messages (rendezvous inside a node): pairs (2k, 2k+1)
   * exchange in an order that cannot deadlock. */
  size_t big = 3u << 20;
  unsigned char *a = malloc(big), *b = malloc(big);
  int peer = me ^ 1;
  if (peer < p) {
    msg_fill(a, big, me, peer, 99);
    if (me % 2 == 0) {
      CHECK_OK(simple_send(s, a, big, SIMPLE_BYTE, peer, 11));
      CHECK_OK(simple_recv(s, b, big, SIMPLE_BYTE, peer, 11, NULL));
    } else {
      CHECK_OK(simple_recv(s, b, big, SIMPLE_BYTE, peer, 11, NULL));
      CHECK_OK(simple_send(s, a, big, SIMPLE_BYTE, peer, 11));
    }
    CHECK(msg_bad(b, big, peer, me, 99) < 0);
  }
  free(a);
  free(b);
  CHECK_OK(simple_barrier(s));
}

TEST_MAIN(test)
