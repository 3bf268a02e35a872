/* Internal: helpers shared by the rooted and gathering collectives of
 * src/coll (scan.c, gather.c, allgather.c). */
#ifndef SIMPLE_COLL_UTIL_COLL1_H
#define SIMPLE_COLL_UTIL_COLL1_H

#include <stddef.h>

#include "coll/coll.h"
#include "node/node_sync.h"
#include "node/ops.h"
#include "run/job.h"

/* Tags on the lanes; distinct from those of the other collectives so that
 * a message of one kind can never match a receive of another. */
enum { SIMPLE__C1_TAG_SCAN = 0x5c01, SIMPLE__C1_TAG_GATHER, SIMPLE__C1_TAG_SCATTER };

/* Requests posted at once by one thread; more transfers go in batches. */
#define SIMPLE__C1_BATCH 16

/* For a rooted transfer between root_node and node k != root_node: the
 * lane (and the thread that drives it on both nodes). The P - 1 other
 * nodes are dealt round-robin over `lanes` lanes, starting after the root. */
static inline int simple__c1_lane_of(const simple__node_t *n, int k, int root_node, int lanes) {
  return ((k - root_node - 1 + n->nodes) % n->nodes) % lanes;
}

/* A node barrier that also carries a return code: every thread gets
 * SIMPLE_ERR_FATAL if the job failed, its own rc if non-zero, SIMPLE_ERR_PEER
 * if another thread's rc was non-zero, else 0. */
int simple__c1_sync(simple_t *s, int rc);

/* a * b into *out; SIMPLE_ERR_COUNT if the product overflows. */
int simple__c1_mul(size_t a, size_t b, size_t *out);

/* Elements needed to hold blocks [first, last) of a v-layout:
 * max(displs[i] + counts[i]), with overflow checked (SIMPLE_ERR_COUNT);
 * SIMPLE_ERR_NULL if counts or displs is NULL with a non-empty range. */
int simple__c1_extent(const size_t *counts, const size_t *displs, int first, int last, size_t *out);

/* Sum of counts[first..last) elements, overflow checked. */
int simple__c1_sum(const size_t *counts, int first, int last, size_t *out);

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
