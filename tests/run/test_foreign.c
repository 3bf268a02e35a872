/* Calls from a thread the job did not start: a thread that an SPMD function
 * creates itself (as OpenMP or a helper library would) and that calls the
 * library with its creator's context gets SIMPLE_ERR_NOT_IN_JOB from every
 * layer, with no effect: the job's own threads then run the same calls
 * normally. */
#include <pthread.h>

#include "harness.h"

typedef struct {
  simple_t *s;
  int rc[12];
} foreign_t;

static void *foreign(void *arg) {
  foreign_t *f = arg;
  simple_t *s = f->s;
  int32_t x = 1, y = 0;
  simple_request_t r = SIMPLE_REQUEST_NULL;
  simple_buf_t id = SIMPLE_BUF_NULL;
  int flag = 0;
  size_t tagsize = 0;
  int i = 0;
  f->rc[i++] = simple_node_barrier(s);
  f->rc[i++] = simple_node_allreduce(s, &x, &y, 1, SIMPLE_INT32, SIMPLE_SUM);
  f->rc[i++] = simple_barrier(s);
  f->rc[i++] = simple_allreduce(s, &x, &y, 1, SIMPLE_INT32, SIMPLE_SUM);
  f->rc[i++] = simple_bcast(s, &x, 1, SIMPLE_INT32, 0);
  f->rc[i++] = simple_alltoall(s, &x, &y, 0, SIMPLE_INT32);
  f->rc[i++] = simple_isend(s, &x, 1, SIMPLE_INT32, simple_pid(s), 0, &r);
  f->rc[i++] = simple_iprobe(s, SIMPLE_ANY_SOURCE, SIMPLE_ANY_TAG, &flag, NULL);
  f->rc[i++] = simple_buf_create(s, 16, &id);
  f->rc[i++] = simple_rma_push_reg(s, &x, sizeof x);
  f->rc[i++] = simple_rma_sync(s);
  f->rc[i++] = simple_bsmp_set_tagsize(s, &tagsize);
  return NULL;
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  CHECK(simple_self() == s);
  foreign_t f = {.s = s};
  for (int i = 0; i < 12; i++) f.rc[i] = -12345;
  pthread_t t;
  CHECK(pthread_create(&t, NULL, foreign, &f) == 0);
  CHECK(pthread_join(t, NULL) == 0);
  for (int i = 0; i < 12; i++) {
    if (f.rc[i] != SIMPLE_ERR_NOT_IN_JOB)
      fprintf(stderr, "call %d from a foreign thread returned %d\n", i, f.rc[i]);
    CHECK_RC(f.rc[i], SIMPLE_ERR_NOT_IN_JOB);
  }
  /* Nothing happened: the job's own calls match up as usual. */
  int32_t x = simple_pid(s) + 1, sum = 0;
  CHECK_OK(simple_allreduce(s, &x, &sum, 1, SIMPLE_INT32, SIMPLE_SUM));
  int p = simple_nprocs(s);
  CHECK_EQ(sum, (int32_t)p * (p + 1) / 2);
  int flag = 1;
  CHECK_OK(simple_iprobe(s, SIMPLE_ANY_SOURCE, SIMPLE_ANY_TAG, &flag, NULL));
  CHECK_EQ(flag, 0);
  CHECK_OK(simple_rma_sync(s));
  CHECK_OK(simple_barrier(s));
}

int main(int argc, char **argv) { return simple_run(&argc, &argv, test, NULL); }
