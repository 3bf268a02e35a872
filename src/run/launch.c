/* What the launcher told this process before the job starts, and what the
 * host has: for commands that check their arguments (and whether a problem
 * fits) before simple_run, printing errors once. */
#include <stdio.h>
#include <stdlib.h>

#include "run/job.h"

/* The launcher's variable among Open MPI's, MPICH's (Hydra: PMI), PMIx's
 * and Slurm's; -1 when none is set or it is not a number >= 0. */
static long launch_var(const char *const names[4]) {
  for (int i = 0; i < 4; i++) {
    const char *v = getenv(names[i]);
    if (!v || !*v) continue;
    char *end;
    long x = strtol(v, &end, 10);
    if (*end == '\0' && x >= 0) return x;
  }
  return -1;
}

static const char *const rank_vars[4] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                         "SLURM_PROCID"};
static const char *const size_vars[4] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE",
                                         "SLURM_NTASKS"};

int simple_launch_node(void) {
  long r = launch_var(rank_vars);
  return r < 0 ? 0 : (int)r;
}

int simple_launch_nodes(void) {
  long n = launch_var(size_vars);
  return n < 1 ? 1 : (int)n;
}

int simple__launch_known(int *node, int *nodes) {
  long r = launch_var(rank_vars), n = launch_var(size_vars);
  if (r < 0 || n < 1 || r >= n) return 0;
  *node = (int)r;
  *nodes = (int)n;
  return 1;
}

size_t simple_mem_available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  unsigned long long kb = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
  fclose(f);
  return (size_t)kb * 1024u;
}
