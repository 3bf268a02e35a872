/* Buffer-id messages: pack/unpack of every type, payload written in place,
 * round trips around the ring, zero-copy hand-over inside a node (the
 * receiver gets the very buffer the sender filled), typed and buffer
 * messages mixed, and the ids' life cycle. */
#include "harness.h"
#include "msg_check.h"

static void test(simple_t *s, void *arg) {
  (void)arg;
  int me = simple_pid(s), p = simple_nprocs(s);
  int right = (me + 1) % p, left = (me - 1 + p) % p;
  int same_node = simple_node_of(s, left) == simple_node(s);

  /* Pack every type into one buffer, send, unpack in the same order. */
  simple_buf_t id;
  CHECK_OK(simple_buf_create(s, 16, &id));
  for (size_t ti = 0; ti < TEST_NTYPES; ti++) {
    simple_type_t t = test_types[ti];
    size_t es = simple_type_size(t), n = 5 + ti * 40;
    unsigned char *v = malloc(n * es);
    test_fill(SIMPLE_SUM, t, v, n, me * 17 + (int)ti);
    CHECK_OK(simple_buf_pack(s, id, v, n, t));
    free(v);
  }
  CHECK_OK(simple_buf_send(s, id, right, 4));
  CHECK_RC(simple_buf_free(s, id), SIMPLE_ERR_ARG); /* given up */
  simple_buf_t got;
  simple_status_t st;
  CHECK_OK(simple_buf_recv(s, left, 4, &got, &st));
  CHECK_EQ(st.source, left);
  CHECK_EQ(st.tag, 4);
  size_t total = 0;
  for (size_t ti = 0; ti < TEST_NTYPES; ti++) {
    simple_type_t t = test_types[ti];
    size_t es = simple_type_size(t), n = 5 + ti * 40;
    unsigned char *v = malloc(n * es), *want = malloc(n * es);
    test_fill(SIMPLE_SUM, t, want, n, left * 17 + (int)ti);
    CHECK_OK(simple_buf_unpack(s, got, v, n, t));
    if (test_diff(t, v, want, n) >= 0) simple_abort(s, "unpacked %s wrong", simple_type_name(t));
    total += n * es;
    free(v);
    free(want);
  }
  CHECK_EQ(st.bytes, total);
  char extra;
  CHECK_RC(simple_buf_unpack(s, got, &extra, 1, SIMPLE_INT8), SIMPLE_ERR_COUNT);
  CHECK_OK(simple_buf_free(s, got));
  CHECK_RC(simple_buf_free(s, got), SIMPLE_ERR_ARG);

  /* In place, several sizes; inside a node the receiver's payload is the
   * sender's memory (its address travels in the first 8 bytes). */
  static const size_t sizes[] = {8, 100, 4096, 70000, 1u << 20};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    size_t n = sizes[k];
    void *w;
    CHECK_OK(simple_buf_create(s, 0, &id));
    CHECK_OK(simple_buf_extend(s, id, n, &w));
    msg_fill(w, n, me, right, (long)k);
    uintptr_t addr = (uintptr_t)w;
    memcpy(w, &addr, sizeof addr);
    CHECK_OK(simple_buf_send(s, id, right, 5));
    CHECK_OK(simple_buf_recv(s, left, 5, &got, &st));
    void *data;
    size_t bytes;
    CHECK_OK(simple_buf_data(s, got, &data, &bytes));
    CHECK_EQ(bytes, n);
    for (size_t i = 8; i < n; i++)
      if (((unsigned char *)data)[i] != msg_byte(left, me, (long)k, i))
        simple_abort(s, "buffer of %zu bytes from %d: byte %zu wrong", n, left, i);
    memcpy(&addr, data, sizeof addr);
    if (same_node) CHECK(addr == (uintptr_t)data); /* no copy */
    /* Forward the received buffer itself: ownership moves on. */
    CHECK_OK(simple_buf_send(s, got, right, 6));
    CHECK_OK(simple_buf_recv(s, left, 6, &got, &st));
    CHECK_OK(simple_buf_data(s, got, &data, &bytes));
    CHECK_EQ(bytes, n);
    CHECK_OK(simple_buf_free(s, got));
  }

  /* Typed send received as a buffer, buffer received by a typed receive. */
  double d[10];
  for (int i = 0; i < 10; i++) d[i] = me + i * 0.5;
  CHECK_OK(simple_send(s, d, 10, SIMPLE_DOUBLE, right, 7));
  CHECK_OK(simple_buf_recv(s, SIMPLE_ANY_SOURCE, 7, &got, &st));
  CHECK_EQ(st.source, left);
  double e[10];
  CHECK_OK(simple_buf_unpack(s, got, e, 10, SIMPLE_DOUBLE));
  for (int i = 0; i < 10; i++) CHECK(e[i] == left + i * 0.5);
  CHECK_OK(simple_buf_free(s, got));
  CHECK_OK(simple_buf_create(s, 80, &id));
  CHECK_OK(simple_buf_pack(s, id, d, 10, SIMPLE_DOUBLE));
  CHECK_OK(simple_buf_send(s, id, right, 8));
  memset(e, 0, sizeof e);
  CHECK_OK(simple_recv(s, e, 10, SIMPLE_DOUBLE, left, SIMPLE_ANY_TAG, &st));
  CHECK_EQ(st.tag, 8);
  for (int i = 0; i < 10; i++) CHECK(e[i] == left + i * 0.5);

  /* An empty buffer is a message of 0 bytes. */
  CHECK_OK(simple_buf_create(s, 0, &id));
  CHECK_OK(simple_buf_send(s, id, me, 9));
  CHECK_OK(simple_buf_recv(s, me, 9, &got, &st));
  CHECK_EQ(st.bytes, 0);
  CHECK_OK(simple_buf_free(s, got));

  /* Many live buffers: ids stay distinct and valid. */
  simple_buf_t ids[300];
  for (int i = 0; i < 300; i++) {
    CHECK_OK(simple_buf_create(s, 4, &ids[i]));
    CHECK_OK(simple_buf_pack(s, ids[i], &i, 1, SIMPLE_INT32));
  }
  for (int i = 0; i < 300; i += 2) CHECK_OK(simple_buf_free(s, ids[i]));
  for (int i = 1; i < 300; i += 2) {
    int v;
    CHECK_OK(simple_buf_unpack(s, ids[i], &v, 1, SIMPLE_INT32));
    CHECK_EQ(v, i);
    CHECK_OK(simple_buf_free(s, ids[i]));
  }
  CHECK_OK(simple_barrier(s));
}

TEST_MAIN(test)
