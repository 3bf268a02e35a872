/* The context of paper 000, Table 1, checked against what the launcher was
 * asked for: the node count from MPI itself, thread counts parsed here from
 * SIMPLE_THREADS, pids unique and node-major across the job, and the
 * job-wide verdict on shared cores from affinity masks and host groups. */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include "harness.h"

static int spec_threads(const char *spec, int node) {
  /* "R" for all nodes, or "R0,R1,...": the node-th entry. */
  const char *p = spec;
  for (int k = 0; k < node && strchr(p, ','); k++) p = strchr(p, ',') + 1;
  return strchr(spec, ',') ? atoi(p) : atoi(spec);
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  int world;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  const char *spec = getenv("SIMPLE_THREADS");
  CHECK(spec != NULL);
  CHECK(simple_self() == s);
  CHECK_EQ(simple_nodes(s), world);
  int total = 0, first = 0;
  for (int k = 0; k < world; k++) {
    if (k == simple_node(s)) first = total;
    total += spec_threads(spec, k);
    CHECK_EQ(simple_threads_on(s, k), spec_threads(spec, k));
  }
  CHECK_EQ(simple_threads(s), spec_threads(spec, simple_node(s)));
  CHECK_EQ(simple_nprocs(s), total);
  CHECK(simple_thread(s) >= 0 && simple_thread(s) < simple_threads(s));
  CHECK_EQ(simple_pid(s), first + simple_thread(s));
  CHECK_EQ(simple_node_of(s, simple_pid(s)), simple_node(s));
  CHECK_EQ(simple_pid_of(s, simple_node(s), simple_thread(s)), simple_pid(s));
  CHECK_EQ(simple_threads_on(s, -1), -1);
  CHECK_EQ(simple_threads_on(s, world), -1);
  CHECK_EQ(simple_node_of(s, -1), -1);
  CHECK_EQ(simple_node_of(s, total), -1);
  CHECK_EQ(simple_pid_of(s, 0, simple_threads_on(s, 0)), -1);
  for (int p = 0, k = 0; p < total; p++) {
    while (p >= simple_pid_of(s, k, 0) + simple_threads_on(s, k)) k++;
    CHECK_EQ(simple_node_of(s, p), k);
  }

  /* Every pid of the job exactly once: each node's threads mark theirs in a
   * shared array, and node 0's thread 0 gathers the marks with MPI. */
  int *seen;
  void *p = NULL;
  CHECK_OK(simple_node_malloc(s, sizeof(int) * (size_t)total, &p));
  seen = p;
  if (simple_thread(s) == 0) memset(seen, 0, sizeof(int) * (size_t)total);
  CHECK_OK(simple_node_barrier(s));
  __atomic_fetch_add(&seen[simple_pid(s)], 1, __ATOMIC_RELAXED);
  CHECK_OK(simple_node_barrier(s));
  if (simple_thread(s) == 0) {
    int *all = malloc(sizeof(int) * (size_t)total);
    MPI_Allreduce(seen, all, total, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int q = 0; q < total; q++) CHECK_EQ(all[q], 1);
    free(all);
  }
  CHECK_OK(simple_node_free(s, p));

  /* simple_cores_shared: 1 when some node runs more threads than it may
   * use cores (its affinity mask) or some host runs more threads than it
   * has cores online, the same on every thread. Recomputed here from the
   * affinity masks and MPI's own grouping of the processes by host. */
  static int want_shared;
  if (simple_thread(s) == 0) {
    cpu_set_t set;
    CHECK(sched_getaffinity(0, sizeof set, &set) == 0);
    MPI_Comm host;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    int mine = simple_threads(s), on_host = 0, over;
    MPI_Allreduce(&mine, &on_host, 1, MPI_INT, MPI_SUM, host);
    MPI_Comm_free(&host);
    over = mine > CPU_COUNT(&set) || on_host > sysconf(_SC_NPROCESSORS_ONLN);
    MPI_Allreduce(&over, &want_shared, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  }
  CHECK_OK(simple_node_barrier(s));
  CHECK_EQ(simple_cores_shared(s), want_shared);

  double t0 = simple_time(), t1 = simple_time();
  CHECK(t1 >= t0 && t0 > 0);
  CHECK(simple_version() == SIMPLE_VERSION);
  CHECK(strcmp(simple_version_string(), SIMPLE_VERSION_STRING) == 0);
}

TEST_MAIN(test)
