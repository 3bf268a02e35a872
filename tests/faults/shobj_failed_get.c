/* An accumulator's acquire whose read fails in MPI (the read after the
 * lock: the second MPI_Get of a remote acquire, failed by fail_mpi_get.c)
 * returns the error and gives the lock back: afterwards every processor
 * takes the accumulator in turn, and the sum is the closed form. Runs on
 * nodes of one thread each, the accumulator at the last node, the failed
 * acquire on processor 0. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>

#include "harness.h"

static void spmd(simple_t *s, void *arg) {
  (void)arg;
  int P = simple_nprocs(s), me = simple_pid(s);
  simple_shobj_space_t *sp;
  CHECK_OK(simple_shobj_open(s, NULL, &sp));
  simple_obj_t acc = SIMPLE_SHOBJ_NULL;
  int64_t zero = 0;
  if (me == P - 1) CHECK_OK(simple_shobj_acc(s, sp, &zero, sizeof zero, &acc));
  CHECK_OK(simple_bcast(s, &acc, sizeof acc, SIMPLE_BYTE, P - 1));
  int64_t *v;
  if (me == 0) {
    setenv("SIMPLE_TEST_FAIL_GET", "2", 1);
    CHECK_RC(simple_shobj_acquire(s, sp, acc, (void **)&v), SIMPLE_ERR_MPI);
    unsetenv("SIMPLE_TEST_FAIL_GET");
  }
  CHECK_OK(simple_barrier(s));
  CHECK_OK(simple_shobj_acquire(s, sp, acc, (void **)&v));
  *v += me + 1;
  CHECK_OK(simple_shobj_release(s, sp, acc));
  CHECK_OK(simple_barrier(s));
  int64_t got;
  CHECK_OK(simple_shobj_get(s, sp, acc, &got, sizeof got, NULL));
  CHECK_EQ(got, (int64_t)P * (P + 1) / 2);
  CHECK_OK(simple_shobj_close(s, sp));
}

TEST_MAIN(spmd)
