/* Internal: which algorithm each collective's phase among nodes runs, by
 * (collective, nodes, threads, bytes): the one table of crossovers (choose.c), read
 * like Open MPI's tuned decision rules, and overridable for experiments by
 * SIMPLE_COLL_ALG (docs/api.md). Every input of a choice is the same on
 * every thread of every node (the call's count and type, the layout, the
 * environment, which simplerun gives every process alike), so both ends of
 * every transfer run the same schedule. Cost of a choice: a scan of the
 * collective's own rows of the table (two to four; ~25 instructions). */
#ifndef SIMPLE_COLL_CHOOSE_H
#define SIMPLE_COLL_CHOOSE_H

#include <stddef.h>

typedef enum {
  SIMPLE__COLL_ALLREDUCE,
  SIMPLE__COLL_REDUCE,
  SIMPLE__COLL_SCAN, /* scan and exscan */
  SIMPLE__COLL_ALLTOALL,
  SIMPLE__COLL_ALLGATHER, /* the regular form */
  SIMPLE__COLL_BCAST,
  SIMPLE__COLL_KINDS
} simple__coll_kind_t;

typedef enum {
  /* allreduce, reduce: up to SIMPLE__COLL_SMALL_REDUCE bytes the node
   * masters combine, above every thread combines a slice; then recursive
   * doubling among nodes (log2 P messages of n; on one lane, or each
   * lane its piece). */
  SIMPLE__ALG_RD,
  /* allreduce, reduce: every thread combines a slice, then Rabenseifner's
   * reduce-scatter + allgather among nodes on every lane. */
  SIMPLE__ALG_RAB,
  /* reduce (commutative ops; others fall back to RD up to
   * SIMPLE__COLL_SMALL_REDUCE bytes, RAB above): up to that size as RD
   * inside the node, above as RAB; then a pipelined binomial tree to the
   * root's node on every lane, half the bytes of an allreduce, one way.
   * bcast: a binomial tree from the root's node, point to point in
   * segments, the verdict in error marks and the signature in the tags. */
  SIMPLE__ALG_TREE,
  /* scan: the node total exchanged on one lane, or cut over every lane. */
  SIMPLE__ALG_ONE_LANE,
  SIMPLE__ALG_LANES,
  /* alltoall: node-pair messages packed from (unpacked into) the threads'
   * buffers, or one message per block straight between the buffers.
   * allgather: node blocks packed in the scratch after a verdict word,
   * one MPI_Allgatherv; or assembled in thread 0's recv and exchanged
   * there in place, point to point (recursive doubling, or a ring), the
   * verdict in error marks and the signature in the tags. */
  SIMPLE__ALG_PACKED,
  SIMPLE__ALG_DIRECT,
  /* bcast: MPI_Bcast among the node masters, the verdict word and the
   * signature in its message. */
  SIMPLE__ALG_MPI,
  SIMPLE__ALG_COUNT
} simple__coll_alg_t;

/* The reductions' node phase: up to this many bytes the last thread to
 * arrive combines every input and drives the exchange on one lane (one
 * barrier); above, every thread combines a slice and the lanes exchange
 * their pieces at once. */
#define SIMPLE__COLL_SMALL_REDUCE 8192

/* The algorithm of collective `kind` on node n's job (its node count, and
 * the threads of its largest node) for `bytes` per thread (alltoall: per
 * block). */
struct simple__node;
simple__coll_alg_t simple__coll_choose(simple__coll_kind_t kind, const struct simple__node *n,
                                       size_t bytes);

/* 0, or SIMPLE_ERR_ARG when SIMPLE_COLL_ALG is malformed (printed once on
 * stderr with what it accepts): the collectives refuse every call then. */
int simple__coll_choose_status(void);

#endif
