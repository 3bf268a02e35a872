/* Internal: the registry of every MPI tag the library uses on its lane
 * communicators (src/net's lanes), the one list to look at before taking a
 * new one. Two kinds of message may share a tag only if no receive for one
 * can ever be posted while a message of the other is in flight between the
 * same pair of nodes on the same lane; distinct tags make that hold without
 * reasoning about call order. src/msg's tags live on a communicator of
 * their own (the user's tag, source and destination thread packed into
 * one int, src/msg/msg.c), so they cannot meet these. */
#ifndef SIMPLE_XCHG_TAGS_H
#define SIMPLE_XCHG_TAGS_H

enum {
  /* Ordered reductions among nodes (src/coll/internode.c). */
  SIMPLE__TAG_FOLD = 1,
  SIMPLE__TAG_RS = 2,
  SIMPLE__TAG_AG = 3,
  SIMPLE__TAG_UNFOLD = 4,
  SIMPLE__TAG_RD = 5,
  /* The rooted reduce's tree (segments up; nothing comes down). */
  SIMPLE__TAG_REDUCE = 6,
  /* The regular allgather's exchange of node blocks in place. */
  SIMPLE__TAG_ALLGATHER = 7,
  /* The broadcast's tree (segments down; nothing comes back up). */
  SIMPLE__TAG_BCAST = 8,
  /* The rooted and gathering collectives (src/coll: scan, gather(v),
   * scatter(v)). */
  SIMPLE__TAG_SCAN = 0x5c01,
  SIMPLE__TAG_GATHER = 0x5c02,
  SIMPLE__TAG_SCATTER = 0x5c03,
  /* The rooted exchanges that carry the call's signature in the tag
   * (xchg.h: simple__xchg_sig_tag): 0x2000-0x3fff (0x6000-0x7fff for a
   * message's last segment, SIG_LAST below), plus the same ranges
   * shifted by every multiple of 0x8000 that MPI_TAG_UB allows. Received
   * with any tag (the tag is the message's content), so nothing else may
   * be in flight to such a receive on its lane: the rule every lane keeps
   * (thread l drives lane l at both ends, in program order). */
  SIMPLE__TAG_SIG_BASE = 0x2000,
  SIMPLE__TAG_SIG_LOW_BITS = 13,
  /* Bit 14 of a signature tag: the last segment of a message (xchg.c:
   * move), so that a node in error mode, draining what it is sent, knows
   * where a message ends whatever size its own failed call gave it. No
   * other tag here has bit 13 (SIG_BASE) set: a tag with bits 13 and 14
   * is a last segment, with bit 13 alone any other signature tag. */
  SIMPLE__TAG_SIG_LAST = 0x4000,
  /* The one-sided layer's supersteps (src/rma): reserved here; its packets
   * and replies travel on the same lanes. */
  SIMPLE__TAG_RMA_PKT = 0x5a01,
  SIMPLE__TAG_RMA_REPLY = 0x5a02,
  /* alltoall(v) (src/coll/alltoall.c). */
  SIMPLE__TAG_ALLTOALL = 0x5a10,
  /* Redistribution, transpose and shift (src/dist/redist.c). */
  SIMPLE__TAG_REDIST = 0x5d01,
  /* Their message counts to a node that failed, where the verdict travels
   * in band (simple__xchg_post_abandon). */
  SIMPLE__TAG_REDIST_COUNT = 0x5d03,
};

#endif
