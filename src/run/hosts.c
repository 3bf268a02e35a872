/* Placement checks at start-up: nodes that share a host where a host list
 * or an allocation promised each its own, and thread counts above a node's
 * cores. With job.c, part of src/run's start-up, which may call MPI. */
#include "run/hosts.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/options.h"

int simple__hosts_check(MPI_Comm comm, MPI_Comm local, int threads, int cores, int explicit_threads,
                        char *err, size_t errlen) {
  int rank, local_size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(local, &local_size);
  char host[256] = "?";
  if (gethostname(host, sizeof host - 1) != 0) strcpy(host, "?");
  host[sizeof host - 1] = '\0';

  /* The ranks of the job on this host, so that the message names them;
   * gathered only where every process of the host has the room, so that
   * all of them make the same calls. */
  int *ranks = malloc(sizeof(int) * (size_t)local_size);
  int have = ranks != NULL, all_have = 0;
  MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, local);
  if (all_have) MPI_Allgather(&rank, 1, MPI_INT, ranks, 1, MPI_INT, local);

  if (explicit_threads && threads > cores)
    fprintf(stderr,
            "simple: warning: node %d runs %d threads on host %s, which gives it %d core%s: "
            "threads will share cores\n",
            rank, threads, host, cores, cores == 1 ? "" : "s");

  long per_host = simple__env_long("SIMPLE_PROCS_PER_HOST", 0);
  long allow = simple__env_long("SIMPLE_ALLOW_SHARED_HOSTS", 0);
  int bad = per_host > 0 && allow != 1 && local_size > per_host;
  if (bad) {
    /* Every process of the host is marked bad; the job's verdict prints
     * one line, from the first of them. */
    size_t at = (size_t)snprintf(err, errlen, "nodes ");
    for (int i = 0; i < local_size && all_have && at < errlen; i++)
      at += (size_t)snprintf(err + at, errlen - at, "%s%d", i ? "," : "", ranks[i]);
    if (at < errlen)
      snprintf(err + at, errlen - at,
               " share host %s, but the host list or allocation gives each node its own host"
               " (simplerun --allow-shared-hosts allows it)",
               host);
  }
  free(ranks);
  return bad;
}

int simple__hosts_default_threads(MPI_Comm local) {
  int local_size;
  MPI_Comm_size(local, &local_size);
  cpu_set_t mine, all;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0 || CPU_COUNT(&mine) == 0) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < (online > 0 ? online : 1) && c < CPU_SETSIZE; c++) CPU_SET((int)c, &mine);
  }
  /* MPI_BOR is defined on MPI_BYTE: the union of the host's masks. */
  MPI_Allreduce(&mine, &all, (int)sizeof mine, MPI_BYTE, MPI_BOR, local);
  int n = CPU_COUNT(&mine), sum = 0, u = CPU_COUNT(&all);
  MPI_Allreduce(&n, &sum, 1, MPI_INT, MPI_SUM, local);
  if (sum == u) return n; /* disjoint masks: each process owns its cores */
  int t = u / local_size;
  if (t > n) t = n;
  return t < 1 ? 1 : t;
}
