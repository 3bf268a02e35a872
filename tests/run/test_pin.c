/* SIMPLE_PIN=1: every thread is bound to one CPU, and threads sharing a host
 * get distinct CPUs while the host has enough of them. Checked with the
 * kernel's own view (sched_getaffinity), not the library's. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include "harness.h"

static void test(simple_t *s, void *arg) {
  (void)arg;
  cpu_set_t set;
  CHECK(sched_getaffinity(0, sizeof set, &set) == 0);
  CHECK_EQ(CPU_COUNT(&set), 1);
  int cpu = -1;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &set)) cpu = c;
  /* Gather every thread's CPU on the node, then over the host with MPI. */
  int *cpus;
  void *p;
  int r = simple_threads(s);
  CHECK_OK(simple_node_malloc(s, sizeof(int) * (size_t)r, &p));
  cpus = p;
  cpus[simple_thread(s)] = cpu;
  CHECK_OK(simple_node_barrier(s));
  if (simple_thread(s) == 0) {
    MPI_Comm host;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    int procs, total = 0;
    MPI_Comm_size(host, &procs);
    MPI_Allreduce(&r, &total, 1, MPI_INT, MPI_SUM, host);
    int *counts = calloc((size_t)procs, sizeof(int)), *displs = calloc((size_t)procs, sizeof(int));
    int *all = malloc(sizeof(int) * (size_t)total);
    MPI_Allgather(&r, 1, MPI_INT, counts, 1, MPI_INT, host);
    for (int k = 1; k < procs; k++) displs[k] = displs[k - 1] + counts[k - 1];
    MPI_Allgatherv(cpus, r, MPI_INT, all, counts, displs, MPI_INT, host);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (total <= online)
      for (int i = 0; i < total; i++)
        for (int j = 0; j < i; j++)
          if (all[i] == all[j]) simple_abort(s, "two threads of the host pinned to CPU %d", all[i]);
    free(all);
    free(counts);
    free(displs);
    MPI_Comm_free(&host);
  }
  CHECK_OK(simple_node_barrier(s));
  CHECK_OK(simple_node_free(s, p));
}

TEST_MAIN(test)
