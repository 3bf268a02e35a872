/* Internal: helpers shared by the rooted and gathering collectives of
 * src/coll (scan.c, gather.c, allgather.c). */
#ifndef SIMPLE_COLL_UTIL_COLL1_H
#define SIMPLE_COLL_UTIL_COLL1_H

#include <stddef.h>

#include "coll/coll.h"
#include "node/node_sync.h"
#include "node/ops.h"
#include "run/job.h"

/* Requests posted at once by one thread; more transfers go in batches. */
#define SIMPLE__C1_BATCH 16

/* Exclusive scan of count elements among the nodes, by one thread per node
 * on `lane`, combining in node order. part holds this node's contribution
 * (destroyed); on return res holds the combination of nodes 0..node-1
 * (untouched on node 0). tmp and spare are work space; all four hold count
 * elements and do not overlap.
 * Recursive doubling (works for any P): at step 2^j, node i exchanges its
 * partial (the combination over its aligned block of 2^j nodes) with node
 * i ^ 2^j; a partner from below is combined on the left of both partial and
 * result. ceil(log2 P) steps of one message each way:
 * cost ceil(log2 P) (alpha + beta n). */
int simple__c1_net_exscan(simple__node_t *n, int lane, void *part, void *res, void *tmp,
                          void *spare, size_t count, simple_type_t type, simple_op_t op);

#endif
