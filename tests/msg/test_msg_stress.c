/* Stress: every thread sends to every thread (itself included) messages of
 * random sizes (0 B .. 40 KiB, across the eager limit) and random tags, by
 * typed isend, blocking send and buffer send, while receiving with any
 * source and any tag. Every message's payload derives from (source,
 * destination, sequence); the receiver checks each one, that nothing is
 * lost or duplicated, and that each (source, tag) stream arrives in
 * sequence order. */
#include "harness.h"
#include "msg_check.h"

#define NTAG 4

/* Deterministic per-(src, dst, seq) choices, known to both sides. */
static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}
static size_t msg_size(int src, int dst, long seq) {
  uint64_t h = mix((uint64_t)src << 40 ^ (uint64_t)dst << 20 ^ (uint64_t)seq);
  return h % 4 == 0 ? (size_t)(h >> 8) % 40000 : (size_t)(h >> 8) % 200;
}
static int msg_tag(int src, int dst, long seq) {
  return (int)(mix((uint64_t)seq * 31 + (uint64_t)src * 7 + (uint64_t)dst + 5) % NTAG);
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  int me = simple_pid(s), p = simple_nprocs(s);
  long per_pair = p <= 4 ? 60 : 20;
  long expect = per_pair * p;

  /* Header of each message: its sequence number, then the payload. */
  long *next_seq = calloc((size_t)p * NTAG, sizeof(long)); /* per (src, tag): last seq + 1 */
  long *count = calloc((size_t)p, sizeof(long));
  long received = 0;
  unsigned char *rbuf = malloc(40000 + 16);
  simple_request_t *sreq = malloc(sizeof *sreq * (size_t)(per_pair * p));
  unsigned char **sbuf = calloc((size_t)(per_pair * p), sizeof *sbuf);
  int nsreq = 0;

  for (long seq = 0; seq < per_pair; seq++) {
    for (int k = 0; k < p; k++) {
      int dst = (me + k + (int)seq) % p;
      size_t n = msg_size(me, dst, seq) + sizeof(long);
      int tag = msg_tag(me, dst, seq);
      int how = (int)(mix((uint64_t)seq + (uint64_t)me * 1000 + (uint64_t)dst) % 3);
      /* A blocking send above MPI's eager limit may wait for its receiver,
       * which may be sending to us: blocking sends are small (MPI-safe). */
      if (how == 1 && n > 1024) how = 0;
      if (how == 2) {
        simple_buf_t id;
        void *w;
        CHECK_OK(simple_buf_create(s, n, &id));
        CHECK_OK(simple_buf_extend(s, id, n, &w));
        memcpy(w, &seq, sizeof seq);
        msg_fill((char *)w + sizeof seq, n - sizeof seq, me, dst, seq);
        CHECK_OK(simple_buf_send(s, id, dst, tag));
      } else {
        unsigned char *b = malloc(n);
        memcpy(b, &seq, sizeof seq);
        msg_fill(b + sizeof seq, n - sizeof seq, me, dst, seq);
        if (how == 1) {
          CHECK_OK(simple_send(s, b, n, SIMPLE_BYTE, dst, tag));
          free(b);
        } else {
          sbuf[nsreq] = b;
          CHECK_OK(simple_isend(s, b, n, SIMPLE_BYTE, dst, tag, &sreq[nsreq++]));
        }
      }
      /* Receive whatever has arrived, so that large sends find receivers. */
      int flag = 1;
      while (flag && received < expect) {
        simple_status_t st;
        CHECK_OK(simple_iprobe(s, SIMPLE_ANY_SOURCE, SIMPLE_ANY_TAG, &flag, &st));
        if (!flag) break;
        simple_status_t st2;
        CHECK_OK(simple_recv(s, rbuf, 40000 + 16, SIMPLE_BYTE, st.source, st.tag, &st2));
        CHECK_EQ(st2.source, st.source);
        CHECK_EQ(st2.tag, st.tag);
        long sq;
        memcpy(&sq, rbuf, sizeof sq);
        int src = st2.source;
        CHECK(sq >= next_seq[src * NTAG + st2.tag]);
        next_seq[src * NTAG + st2.tag] = sq + 1;
        CHECK_EQ(st2.tag, msg_tag(src, me, sq));
        CHECK_EQ(st2.bytes, msg_size(src, me, sq) + sizeof(long));
        CHECK(msg_bad(rbuf + sizeof sq, st2.bytes - sizeof sq, src, me, sq) < 0);
        count[src]++;
        received++;
      }
    }
  }
  /* The rest, blocking, alternating typed and buffer receives. */
  while (received < expect) {
    simple_status_t st;
    long sq;
    const unsigned char *payload;
    simple_buf_t id = SIMPLE_BUF_NULL;
    if (received % 2) {
      CHECK_OK(
          simple_recv(s, rbuf, 40000 + 16, SIMPLE_BYTE, SIMPLE_ANY_SOURCE, SIMPLE_ANY_TAG, &st));
      payload = rbuf;
    } else {
      void *d;
      CHECK_OK(simple_buf_recv(s, SIMPLE_ANY_SOURCE, SIMPLE_ANY_TAG, &id, &st));
      CHECK_OK(simple_buf_data(s, id, &d, NULL));
      payload = d;
    }
    memcpy(&sq, payload, sizeof sq);
    int src = st.source;
    CHECK(sq >= next_seq[src * NTAG + st.tag]);
    next_seq[src * NTAG + st.tag] = sq + 1;
    CHECK_EQ(st.tag, msg_tag(src, me, sq));
    CHECK_EQ(st.bytes, msg_size(src, me, sq) + sizeof(long));
    CHECK(msg_bad(payload + sizeof sq, st.bytes - sizeof sq, src, me, sq) < 0);
    if (id != SIMPLE_BUF_NULL) CHECK_OK(simple_buf_free(s, id));
    count[src]++;
    received++;
  }
  CHECK_OK(simple_waitall(s, nsreq, sreq, NULL));
  for (int i = 0; i < nsreq; i++) free(sbuf[i]);
  /* Exactly per_pair from everyone: none lost, none duplicated (a
   * duplicate would break the sequence check or the count). */
  for (int q = 0; q < p; q++) CHECK_EQ(count[q], per_pair);
  CHECK_OK(simple_barrier(s));
  int flag = 1;
  CHECK_OK(simple_iprobe(s, SIMPLE_ANY_SOURCE, SIMPLE_ANY_TAG, &flag, NULL));
  CHECK(!flag);
  free(next_seq);
  free(count);
  free(rbuf);
  free(sreq);
  free(sbuf);
}

TEST_MAIN(test)
