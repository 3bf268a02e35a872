/* Internal: which nodes share a host, checked once at start-up. */
#ifndef SIMPLE_RUN_HOSTS_H
#define SIMPLE_RUN_HOSTS_H

#include <mpi.h>
#include <stddef.h>

/* Checks the job's placement, collectively over comm (every process must
 * call it; local is comm split by shared memory). Where the launcher named
 * hosts (simplerun sets SIMPLE_PROCS_PER_HOST=P for a host list or a batch
 * allocation), more than P processes on one host mean that the launcher
 * placed two nodes where one was meant: returns 1 with a message in err
 * naming the nodes and the host, unless SIMPLE_ALLOW_SHARED_HOSTS=1.
 * Also warns (stderr, once per node) when an explicit thread count exceeds
 * the cores the process may use. Returns 0 otherwise. Cost: an allreduce
 * and an allgather of an int over the host's processes, once per job. */
int simple__hosts_check(MPI_Comm comm, MPI_Comm local, int threads, int cores, int explicit_threads,
                        char *err, size_t errlen);

/* The default thread count of this process: the cores of its affinity
 * mask (which a batch system's binding and a cgroup's cpuset restrict),
 * measured here, on its own host. Processes of the job on one host whose
 * masks are disjoint (bound by the launcher) each get their own cores;
 * where masks overlap, the union is shared evenly among them. At least 1.
 * Collective over local (the host's processes). Cost: two small
 * allreduces over the host's processes, once per job. */
int simple__hosts_default_threads(MPI_Comm local);

#endif
