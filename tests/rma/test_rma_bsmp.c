/* BSMP on both backends: the tag size changes at the next sync (messages
 * carry the tag size in force when sent), zero-length payloads, many
 * messages of varied sizes from every processor to every processor, qsize
 * counts, get_tag/move/hpmove, and queues that last one superstep. */
#include <stdint.h>

#include "harness.h"

static size_t len_of(int src, int dst, int k) {
  return (size_t)((src * 7 + dst * 3 + k * 11) % 40);
}
static unsigned char byte_of(int src, int dst, int k, size_t i) {
  return (unsigned char)(src * 31 + dst * 17 + k * 5 + (int)i);
}

static void run(simple_t *s, int backend) {
  int p = simple_nprocs(s), me = simple_pid(s);
  CHECK_OK(simple_rma_set_backend(s, backend));
  size_t ts = 2 * sizeof(int32_t);
  CHECK_OK(simple_bsmp_set_tagsize(s, &ts));
  size_t old = ts;
  /* Still the old size in this superstep: send a message with it. */
  int32_t oldtag[8] = {0};
  if (old) {
    for (size_t i = 0; i < old / 4 && i < 8; i++) oldtag[i] = me;
  }
  CHECK_OK(simple_bsmp_send(s, (me + 1) % p, oldtag, &me, sizeof me));
  CHECK_OK(simple_rma_sync(s));
  size_t nm, nb;
  CHECK_OK(simple_bsmp_qsize(s, &nm, &nb));
  CHECK_EQ(nm, 1);
  CHECK_EQ(nb, sizeof(int));
  ptrdiff_t st;
  int32_t tag[2] = {-1, -1};
  CHECK_OK(simple_bsmp_get_tag(s, &st, tag));
  CHECK_EQ(st, sizeof(int));
  int from = -1;
  CHECK_OK(simple_bsmp_move(s, &from, sizeof from));
  CHECK_EQ(from, (me + p - 1) % p);

  /* Now the tag size is 8 bytes: (source, k). */
  enum { K = 5 };
  unsigned char buf[64];
  for (int d = 0; d < p; d++)
    for (int k = 0; k < K; k++) {
      size_t n = len_of(me, d, k);
      for (size_t i = 0; i < n; i++) buf[i] = byte_of(me, d, k, i);
      int32_t t2[2] = {me, k};
      CHECK_OK(simple_bsmp_send(s, d, t2, n ? buf : NULL, n));
    }
  CHECK_OK(simple_rma_sync(s));
  size_t want_bytes = 0;
  for (int q = 0; q < p; q++)
    for (int k = 0; k < K; k++) want_bytes += len_of(q, me, k);
  CHECK_OK(simple_bsmp_qsize(s, &nm, &nb));
  CHECK_EQ(nm, (size_t)p * K);
  CHECK_EQ(nb, want_bytes);
  int *seen = calloc((size_t)p * K, sizeof(int));
  for (size_t m = 0; m < nm; m++) {
    const void *tp, *pp;
    size_t n;
    int32_t t2[2];
    if (m % 2) {
      CHECK_OK(simple_bsmp_get_tag(s, &st, t2));
      n = (size_t)st;
      CHECK_OK(simple_bsmp_move(s, buf, sizeof buf));
      pp = buf;
    } else {
      CHECK_OK(simple_bsmp_hpmove(s, &tp, &pp, &st));
      n = (size_t)st;
      memcpy(t2, tp, sizeof t2);
    }
    CHECK(t2[0] >= 0 && t2[0] < p && t2[1] >= 0 && t2[1] < K);
    CHECK_EQ(n, len_of(t2[0], me, t2[1]));
    for (size_t i = 0; i < n; i++)
      CHECK_EQ(((const unsigned char *)pp)[i], byte_of(t2[0], me, t2[1], i));
    seen[t2[0] * K + t2[1]]++;
  }
  for (int i = 0; i < p * K; i++) CHECK_EQ(seen[i], 1);
  CHECK_OK(simple_bsmp_hpmove(s, (const void **)&buf, (const void **)&buf, &st));
  CHECK_EQ(st, -1);
  /* Unread messages are dropped at the next sync. */
  CHECK_OK(simple_bsmp_send(s, me, tag, NULL, 0));
  CHECK_OK(simple_rma_sync(s));
  CHECK_OK(simple_rma_sync(s));
  CHECK_OK(simple_bsmp_qsize(s, &nm, &nb));
  CHECK_EQ(nm, 0);
  /* Back to no tags; disagreeing sizes fail the sync everywhere. */
  ts = 0;
  CHECK_OK(simple_bsmp_set_tagsize(s, &ts));
  CHECK_EQ(ts, 8);
  CHECK_OK(simple_rma_sync(s));
  if (p > 1) {
    ts = me == 0 ? 4 : 8;
    CHECK_OK(simple_bsmp_set_tagsize(s, &ts));
    CHECK_RC(simple_rma_sync(s), SIMPLE_ERR_ARG);
    CHECK(strstr(simple_rma_error(s), "set_tagsize") != NULL);
    ts = 99;
    CHECK_OK(simple_bsmp_set_tagsize(s, &ts));
    CHECK_EQ(ts, 0); /* unchanged */
    ts = 0;
    CHECK_OK(simple_bsmp_set_tagsize(s, &ts));
    CHECK_OK(simple_rma_sync(s));
  }
  free(seen);
}

static void spmd(simple_t *s, void *arg) {
  (void)arg;
  run(s, SIMPLE_RMA_TWOSIDED);
  run(s, SIMPLE_RMA_ONESIDED);
}

TEST_MAIN(spmd)
