/* The MPI thread level of a job.
 *
 *   test_thread_level            the library initializes MPI: a process
 *                                running one thread (and no watchdog) gets
 *                                MPI_THREAD_SINGLE, any other gets
 *                                MPI_THREAD_MULTIPLE (asked of MPI itself)
 *   test_thread_level user ok    the program initializes MPI at
 *   test_thread_level user low   MPI_THREAD_SINGLE before simple_run: a job
 *                                whose nodes all run one thread runs ("ok");
 *                                one with a node of several threads is
 *                                refused on every node with
 *                                SIMPLE_ERR_THREAD_LEVEL ("low") */
#include <mpi.h>

#include "harness.h"

static void level(simple_t *s, void *arg) {
  (void)arg;
  int got = -1;
  MPI_Query_thread(&got);
  int want = simple_threads(s) == 1 && !getenv("SIMPLE_WATCHDOG") ? MPI_THREAD_SINGLE
                                                                  : MPI_THREAD_MULTIPLE;
  CHECK_EQ(got, want);
  /* The job works at either level: an inter-node allreduce and a message
   * around a ring of all threads. */
  int32_t x = simple_pid(s) + 1, sum = 0;
  CHECK_OK(simple_allreduce(s, &x, &sum, 1, SIMPLE_INT32, SIMPLE_SUM));
  int p = simple_nprocs(s);
  CHECK_EQ(sum, (int32_t)p * (p + 1) / 2);
  int32_t in = -1, out = simple_pid(s);
  simple_request_t r;
  CHECK_OK(simple_irecv(s, &in, 1, SIMPLE_INT32, (simple_pid(s) + p - 1) % p, 7, &r));
  CHECK_OK(simple_send(s, &out, 1, SIMPLE_INT32, (simple_pid(s) + 1) % p, 7));
  CHECK_OK(simple_wait(s, &r, NULL));
  CHECK_EQ(in, (simple_pid(s) + p - 1) % p);
}

static int ran;

static void user(simple_t *s, void *arg) {
  (void)arg;
  ran = 1;
  int32_t x = 1, sum = 0;
  CHECK_OK(simple_allreduce(s, &x, &sum, 1, SIMPLE_INT32, SIMPLE_SUM));
  CHECK_EQ(sum, simple_nprocs(s));
}

int main(int argc, char **argv) {
  if (argc < 3 || strcmp(argv[1], "user") != 0) {
    int rc = simple_run(&argc, &argv, level, NULL);
    if (rc != 0) fprintf(stderr, "simple_run: %s\n", simple_strerror(rc));
    return rc == 0 ? 0 : 1;
  }
  int expect_ok = strcmp(argv[2], "ok") == 0, provided = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  int rc = simple_run(&argc, &argv, user, NULL);
  int good = expect_ok ? rc == 0 && ran : rc == SIMPLE_ERR_THREAD_LEVEL && !ran;
  if (!good)
    fprintf(stderr, "test_thread_level: simple_run returned %s, ran %d; expected %s\n",
            simple_errname(rc), ran, expect_ok ? "success" : "SIMPLE_ERR_THREAD_LEVEL");
  MPI_Finalize();
  return good ? 0 : 1;
}
