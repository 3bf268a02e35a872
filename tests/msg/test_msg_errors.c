/* Bad arguments get the documented error and have no effect: nothing is
 * sent (the final probes find nothing), no request or buffer id is
 * consumed, and a good message afterwards still goes through. */
#include <limits.h>

#include "harness.h"

static void test(simple_t *s, void *arg) {
  (void)arg;
  int me = simple_pid(s), p = simple_nprocs(s);
  int x = 1, flag = 0;
  int ub = simple_tag_ub(s);
  /* A tag above the bound, where int has one (with one thread per node the
   * bound can be INT_MAX: then a negative tag stands in). */
  int above = ub < INT_MAX ? ub + 1 : -5;
  simple_request_t r = SIMPLE_REQUEST_NULL;
  simple_status_t st;
  simple_buf_t id = SIMPLE_BUF_NULL;

  CHECK(ub >= 127);
  CHECK_EQ(simple_tag_ub(NULL), -1);
  CHECK_RC(simple_send(NULL, &x, 1, SIMPLE_INT32, 0, 0), SIMPLE_ERR_NOT_IN_JOB);
  CHECK_RC(simple_recv(NULL, &x, 1, SIMPLE_INT32, 0, 0, NULL), SIMPLE_ERR_NOT_IN_JOB);
  CHECK_RC(simple_buf_create(NULL, 0, &id), SIMPLE_ERR_NOT_IN_JOB);

  /* Ranks. */
  CHECK_RC(simple_send(s, &x, 1, SIMPLE_INT32, p, 0), SIMPLE_ERR_RANK);
  CHECK_RC(simple_send(s, &x, 1, SIMPLE_INT32, -1, 0), SIMPLE_ERR_RANK);
  CHECK_RC(simple_isend(s, &x, 1, SIMPLE_INT32, p + 5, 0, &r), SIMPLE_ERR_RANK);
  CHECK_RC(simple_recv(s, &x, 1, SIMPLE_INT32, p, 0, NULL), SIMPLE_ERR_RANK);
  CHECK_RC(simple_recv(s, &x, 1, SIMPLE_INT32, -2, 0, NULL), SIMPLE_ERR_RANK);
  CHECK_RC(simple_irecv(s, &x, 1, SIMPLE_INT32, p, 0, &r), SIMPLE_ERR_RANK);
  CHECK_RC(simple_probe(s, p, 0, &st), SIMPLE_ERR_RANK);
  CHECK_RC(simple_iprobe(s, -7, 0, &flag, &st), SIMPLE_ERR_RANK);
  CHECK_RC(simple_buf_recv(s, p, 0, &id, &st), SIMPLE_ERR_RANK);
  /* Tags: negative, above the bound; ANY_TAG only on the receiving side. */
  CHECK_RC(simple_send(s, &x, 1, SIMPLE_INT32, me, -1), SIMPLE_ERR_ARG);
  CHECK_RC(simple_send(s, &x, 1, SIMPLE_INT32, me, above), SIMPLE_ERR_ARG);
  CHECK_RC(simple_recv(s, &x, 1, SIMPLE_INT32, me, -3, NULL), SIMPLE_ERR_ARG);
  CHECK_RC(simple_iprobe(s, me, above, &flag, NULL), SIMPLE_ERR_ARG);
  /* Buffers and types. */
  CHECK_RC(simple_send(s, NULL, 3, SIMPLE_INT32, me, 0), SIMPLE_ERR_NULL);
  CHECK_RC(simple_recv(s, NULL, 3, SIMPLE_INT32, me, 0, NULL), SIMPLE_ERR_NULL);
  CHECK_RC(simple_isend(s, NULL, 1, SIMPLE_BYTE, me, 0, &r), SIMPLE_ERR_NULL);
  CHECK_RC(simple_send(s, &x, 1, (simple_type_t)99, me, 0), SIMPLE_ERR_TYPE);
  CHECK_RC(simple_send(s, &x, 1, (simple_type_t)-1, me, 0), SIMPLE_ERR_TYPE);
  CHECK_RC(simple_irecv(s, &x, 1, (simple_type_t)99, me, 0, &r), SIMPLE_ERR_TYPE);
  CHECK_RC(simple_send(s, &x, SIZE_MAX / 2, SIMPLE_INT32, me, 0), SIMPLE_ERR_COUNT);
  /* NULL out-pointers. */
  CHECK_RC(simple_isend(s, &x, 1, SIMPLE_INT32, me, 0, NULL), SIMPLE_ERR_ARG);
  CHECK_RC(simple_irecv(s, &x, 1, SIMPLE_INT32, me, 0, NULL), SIMPLE_ERR_ARG);
  CHECK_RC(simple_iprobe(s, me, 0, NULL, &st), SIMPLE_ERR_ARG);
  CHECK_RC(simple_test(s, &r, NULL, &st), SIMPLE_ERR_ARG);
  CHECK_RC(simple_wait(s, NULL, &st), SIMPLE_ERR_ARG);
  CHECK_RC(simple_waitall(s, -1, &r, NULL), SIMPLE_ERR_ARG);
  CHECK_RC(simple_waitall(s, 2, NULL, NULL), SIMPLE_ERR_ARG);
  CHECK_RC(simple_buf_create(s, 0, NULL), SIMPLE_ERR_ARG);
  CHECK_RC(simple_buf_recv(s, me, 0, NULL, &st), SIMPLE_ERR_ARG);
  /* Unknown requests and ids: never made, made-up, stale. */
  simple_request_t bogus = 0x123456789abcull;
  CHECK_RC(simple_wait(s, &bogus, &st), SIMPLE_ERR_ARG);
  CHECK_RC(simple_test(s, &bogus, &flag, &st), SIMPLE_ERR_ARG);
  r = SIMPLE_REQUEST_NULL;
  CHECK_OK(simple_wait(s, &r, &st)); /* a null request is complete */
  CHECK_EQ(st.source, SIMPLE_ANY_SOURCE);
  CHECK_OK(simple_test(s, &r, &flag, NULL));
  CHECK(flag);
  CHECK_OK(simple_isend(s, &x, 1, SIMPLE_INT32, me, 3, &r));
  simple_request_t stale = r;
  CHECK_OK(simple_wait(s, &r, NULL));
  CHECK(r == SIMPLE_REQUEST_NULL);
  CHECK_RC(simple_wait(s, &stale, NULL), SIMPLE_ERR_ARG);
  CHECK_OK(simple_recv(s, &x, 1, SIMPLE_INT32, me, 3, NULL));
  void *ptr;
  size_t bytes;
  CHECK_RC(simple_buf_free(s, SIMPLE_BUF_NULL), SIMPLE_ERR_ARG);
  CHECK_RC(simple_buf_free(s, 0xdeadbeef00000001ull), SIMPLE_ERR_ARG);
  CHECK_RC(simple_buf_pack(s, 77, &x, 1, SIMPLE_INT32), SIMPLE_ERR_ARG);
  CHECK_RC(simple_buf_unpack(s, 77, &x, 1, SIMPLE_INT32), SIMPLE_ERR_ARG);
  CHECK_RC(simple_buf_data(s, 77, &ptr, &bytes), SIMPLE_ERR_ARG);
  CHECK_RC(simple_buf_extend(s, 77, 4, &ptr), SIMPLE_ERR_ARG);
  CHECK_RC(simple_buf_send(s, 77, me, 0), SIMPLE_ERR_ARG);
  CHECK_OK(simple_buf_create(s, 8, &id));
  CHECK_RC(simple_buf_pack(s, id, NULL, 2, SIMPLE_INT32), SIMPLE_ERR_NULL);
  CHECK_RC(simple_buf_pack(s, id, &x, 1, (simple_type_t)50), SIMPLE_ERR_TYPE);
  CHECK_RC(simple_buf_extend(s, id, 4, NULL), SIMPLE_ERR_ARG);
  CHECK_RC(simple_buf_unpack(s, id, &x, 1, SIMPLE_INT32), SIMPLE_ERR_COUNT);
  /* A send refused for its destination keeps the buffer. */
  CHECK_RC(simple_buf_send(s, id, p, 0), SIMPLE_ERR_RANK);
  CHECK_RC(simple_buf_send(s, id, me, -4), SIMPLE_ERR_ARG);
  CHECK_OK(simple_buf_pack(s, id, &me, 1, SIMPLE_INT32));
  CHECK_OK(simple_buf_data(s, id, &ptr, &bytes));
  CHECK_EQ(bytes, sizeof(int));
  CHECK_OK(simple_buf_free(s, id));
  CHECK_RC(simple_buf_data(s, id, &ptr, &bytes), SIMPLE_ERR_ARG);

  /* Nothing was sent by any of the failed calls. */
  CHECK_OK(simple_barrier(s));
  for (int i = 0; i < 64; i++) {
    CHECK_OK(simple_iprobe(s, SIMPLE_ANY_SOURCE, SIMPLE_ANY_TAG, &flag, &st));
    CHECK(!flag);
  }
  CHECK_OK(simple_barrier(s));
  /* And the layer still works. */
  int right = (me + 1) % p, left = (me - 1 + p) % p, v = -1;
  CHECK_OK(simple_send(s, &me, 1, SIMPLE_INT32, right, 0));
  CHECK_OK(simple_recv(s, &v, 1, SIMPLE_INT32, left, 0, &st));
  CHECK_EQ(v, left);
  CHECK_OK(simple_barrier(s));
}

TEST_MAIN(test)
