#include "run/pin.h"

#include <hwloc.h>
#include <stdio.h>

/* One topology per process: loading it reads /sys (milliseconds), so it is
 * done once at job start, never per thread. */
static hwloc_topology_t topo;
static int topo_loaded;

int simple__pin_open(int *cores, char *err, size_t errlen) {
  if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
    snprintf(err, errlen, "SIMPLE_PIN: hwloc could not load the machine topology");
    return SIMPLE_ERR_CONFIG;
  }
  topo_loaded = 1;
  /* The topology is already restricted to the cpuset this process may use
   * (hwloc's default), so a launcher's or a virtual node's cpuset is honoured. */
  int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  if (n <= 0) n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  if (n <= 0) {
    snprintf(err, errlen, "SIMPLE_PIN: hwloc found no cores");
    return SIMPLE_ERR_CONFIG;
  }
  *cores = n;
  return 0;
}

int simple__pin_thread(int first, int thread) {
  int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  hwloc_obj_type_t type = n > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  if (n <= 0) n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  hwloc_obj_t core = hwloc_get_obj_by_type(topo, type, (unsigned)((first + thread) % n));
  if (!core) return SIMPLE_ERR_CONFIG;
  hwloc_cpuset_t set = hwloc_bitmap_dup(core->cpuset);
  /* One PU of the core: the thread should not wander between hyperthreads. */
  hwloc_bitmap_singlify(set);
  int rc = hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD);
  hwloc_bitmap_free(set);
  return rc == 0 ? 0 : SIMPLE_ERR_CONFIG;
}

void simple__pin_close(void) {
  if (topo_loaded) hwloc_topology_destroy(topo);
  topo_loaded = 0;
}
