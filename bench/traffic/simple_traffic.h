/* What libsimple-traffic (simple_traffic.c) hands back through
 * MPI_Pcontrol(2, &counts): this process's messages to peers on other
 * nodes between the last MPI_Pcontrol(1) and MPI_Pcontrol(0). */
#ifndef SIMPLE_TRAFFIC_H
#define SIMPLE_TRAFFIC_H

#include <stdint.h>

typedef struct {
  int loaded;         /* 1 when the library answered; 0: not loaded */
  int node;           /* this process's node, as the library sees it */
  int64_t api_msgs;   /* sends, puts, gets, accumulates the program called */
  int64_t api_bytes;  /* their payload bytes */
  int64_t pml_msgs;   /* messages of Open MPI's PML, collectives' inside included; -1: no view */
  int64_t pml_bytes;  /* their payload bytes; -1: no view */
  int64_t osc_msgs;   /* one-sided messages sent by Open MPI's OSC; -1: no view */
  int64_t osc_bytes;  /* their bytes; -1: no view */
  int64_t coll_calls; /* MPI collective calls (any peer): PMPI's only view of them */
} simple_traffic_counts_t;

#endif
