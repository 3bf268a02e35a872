/* simple_barrier: no thread of any node leaves round k before every thread
 * of the job has entered it.
 *
 * Every thread stamps the system clock (CLOCK_MONOTONIC, one clock for every
 * process of a machine, virtual-cluster nodes included) just before it
 * enters each barrier and just after it leaves. A correct barrier has, for
 * every round, the latest entry before the earliest exit. The stamps are
 * combined with MPI_Allreduce, independently of the library. (An earlier
 * version counted arrivals with MPI atomics in a window; that needs
 * passive-target progress, which Open MPI over TCP only makes while the
 * target calls MPI, so it could stall on the virtual cluster.) */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <time.h>

#include "harness.h"

#define ROUNDS      200
#define MAX_THREADS 64

static double enter_t[MAX_THREADS][ROUNDS], leave_t[MAX_THREADS][ROUNDS];

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  int t = simple_thread(s);
  CHECK(simple_threads(s) <= MAX_THREADS);
  CHECK_OK(simple_barrier(s));
  for (int k = 0; k < ROUNDS; k++) {
    enter_t[t][k] = now();
    CHECK_OK(simple_barrier(s));
    leave_t[t][k] = now();
    /* Uneven arrival: one thread of each node is late now and then (a
     * stretch of work, not a sleep: the assertion below holds whatever the
     * timing, this only varies the order of arrival). */
    if ((k + t) % 17 == 0) {
      volatile unsigned sink = 0;
      for (unsigned i = 0; i < 200000; i++) sink += i;
    }
  }
  CHECK_OK(simple_barrier(s)); /* every stamp of this node is written */
  if (t == 0) {
    static double last_in[ROUNDS], first_out[ROUNDS];
    for (int k = 0; k < ROUNDS; k++) {
      last_in[k] = enter_t[0][k];
      first_out[k] = leave_t[0][k];
      for (int u = 1; u < simple_threads(s); u++) {
        if (enter_t[u][k] > last_in[k]) last_in[k] = enter_t[u][k];
        if (leave_t[u][k] < first_out[k]) first_out[k] = leave_t[u][k];
      }
    }
    MPI_Allreduce(MPI_IN_PLACE, last_in, ROUNDS, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, first_out, ROUNDS, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    for (int k = 0; k < ROUNDS; k++) CHECK(last_in[k] <= first_out[k]);
  }
  CHECK_OK(simple_barrier(s));
}

TEST_MAIN(test)
