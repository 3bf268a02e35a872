/* Internal: the node-pair exchange plan, the one place that decides which
 * threads drive which node pairs, on which lanes, in which order. The
 * collectives (src/coll), the redistributions (src/dist) and the one-sided
 * layer's supersteps (src/rma: packets and get replies, two-sided or as
 * window puts) take these answers from here instead of each deriving its
 * own, so both ends of every transfer always agree.
 *
 * Lanes: this layer takes one communicator per lane when the job starts
 * (lanes.c); a lane is driven by at most one thread per node at a time
 * (thread l drives lane l), so concurrent transfers never match each
 * other's messages.
 *
 * Every function here is a few integer operations (header-only, inlined
 * into the drivers' loops); none allocates or communicates. */
#ifndef SIMPLE_XCHG_XCHG_H
#define SIMPLE_XCHG_XCHG_H

#include "base/sync.h"
#include "net/net.h"
#include "net/net_win.h"
#include "run/job.h"
#include "xchg/tags.h"

/* Lanes opened: min(max threads on any node, SIMPLE__XCHG_MAX_LANES), in
 * n->lanes. */
#define SIMPLE__XCHG_MAX_LANES 64
/* The most nodes on which simple__xchg_post carries the job-wide verdict
 * in band (simple__xchg_t's verdict, below). */
#define SIMPLE__XCHG_INBAND_NODES 8
typedef struct {
  int n;
  int sig_hi_bits;     /* simple__xchg_sig_tag: hash bits above bit 15 */
  size_t one_host_seg; /* segment size between nodes on one host (xchg.c) */
  simple__comm_t *lane[SIMPLE__XCHG_MAX_LANES];
  /* Where the verdict's one-byte tokens from node k land (xchg.c). */
  unsigned char token[SIMPLE__XCHG_INBAND_NODES];
} simple__xchg_lanes_t;
extern simple__layer_key_t simple__xchg_key;

/* The communicator of lane l (modulo the lanes opened), for the transfers
 * of net.h. Cost: two loads (the layer's slot, then the lane). */
static inline simple__comm_t *simple__xchg_lane(simple__node_t *n, int l) {
  const simple__xchg_lanes_t *L = *simple__layer_slot(n, &simple__xchg_key);
  return L->lane[l % L->n];
}

/* The tag that carries a call's 32-bit signature (src/coll: coll.h) in a
 * rooted exchange: SIMPLE__TAG_SIG_BASE plus the low 13 bits of its mix,
 * and as many of the next bits as MPI_TAG_UB leaves room for above bit 15
 * (the lanes' sig_hi_bits, the same on every node: MPI gives MPI_TAG_UB
 * one value in every process of a job). 13 bits at the standard's minimum
 * bound (32767), 29 where it is 2^31 - 1: a call with another signature
 * passes for the same one with probability 2^-13 or 2^-29. Two loads and
 * about ten integer operations. */
static inline int simple__xchg_sig_tag(simple__node_t *n, unsigned sig) {
  const simple__xchg_lanes_t *L = *simple__layer_slot(n, &simple__xchg_key);
  /* The signature keeps its parts apart, not mixed (coll.h): a mix (the
   * finalizer of MurmurHash3) first, so that the bits the tag keeps
   * depend on all of them. */
  sig ^= sig >> 16;
  sig *= 0x85EBCA6Bu;
  sig ^= sig >> 13;
  sig *= 0xC2B2AE35u;
  sig ^= sig >> 16;
  unsigned lo = sig & ((1u << SIMPLE__TAG_SIG_LOW_BITS) - 1);
  unsigned hi = (sig >> SIMPLE__TAG_SIG_LOW_BITS) & ((1u << L->sig_hi_bits) - 1);
  return (int)(SIMPLE__TAG_SIG_BASE | lo | hi << 15);
}

/* Lanes that run in parallel with a driving thread on every node: the
 * threads of the smallest node (at most n->lanes, at least 1); or 1 when
 * some host of the job is oversubscribed, a job-wide verdict (every node
 * must drive the same lanes, or messages wait on lanes nobody serves).
 * Why one lane when threads share cores: concurrent lanes only take turns
 * on the cores. Measured on 2 cores with 2 x 2 threads, a 64 KiB allreduce
 * took 120 us on one lane and 4-5 ms (a scheduler tick) on two, the
 * threads polling MPI in turn pushing each other's progress out to the
 * next tick. SIMPLE_LANES_SHARED=1 drives them all the same (tests of the
 * paths of several drivers on a small machine; the same on every node). */
static inline int simple__xchg_lanes(const simple__node_t *n) {
  if (n->shared_anywhere && !n->lanes_shared) return 1;
  int m = n->threads_of[0];
  for (int k = 1; k < n->nodes; k++)
    if (n->threads_of[k] < m) m = n->threads_of[k];
  if (m > n->lanes) m = n->lanes;
  return m < 1 ? 1 : m;
}

/* The shifted schedule alone (a + st, a - st mod P), for exchanges that
 * post every receive before any send and so need no pairing. */
static inline void simple__xchg_shift(const simple__node_t *n, int st, int *to, int *from) {
  int P = n->nodes, a = n->node;
  *to = (a + st) % P;
  *from = (a - st + P) % P;
}

/* The all-pairs schedule (every node sends to and receives from every
 * other node once): P - 1 steps st = 1..P-1. At step st node a sends to
 * node *to and receives from node *from:
 *   P a power of two: both a ^ st (pairwise exchange);
 *   otherwise: a + st and a - st (mod P), the shifted schedule.
 * Node a's send at step st meets node *to's receive at the same step, so
 * both ends handle a message at one step, on one lane. */
static inline void simple__xchg_step(const simple__node_t *n, int st, int *to, int *from) {
  int P = n->nodes;
  if ((P & (P - 1)) == 0)
    *to = *from = n->node ^ st;
  else
    simple__xchg_shift(n, st, to, from);
}

/* An all-pairs exchange whose every message goes in `chunks` pieces: the
 * items i = (st - 1) chunks + ch, (P - 1) chunks of them, are dealt
 * round-robin to `drivers` threads (thread l takes items l, l + drivers,
 * ...) and item i travels on lane i mod drivers at both ends. */
typedef struct {
  int drivers; /* threads 0..drivers-1 drive; the others copy node-local data */
  int chunks;  /* pieces per node-pair message */
} simple__xchg_split_t;

/* The split for an all-pairs exchange: drivers D = min(items, max(1, L -
 * 1)), L = simple__xchg_lanes, leaving one thread of the smallest node to
 * copy node-local blocks; with chunking allowed (want_chunks), each message
 * is cut into C = max(1, (L - 1) / (P - 1)) pieces so that L - 1 threads
 * drive even when the nodes are fewer than the threads (several streams
 * between two nodes). One node: no drivers. */
static inline simple__xchg_split_t simple__xchg_split(const simple__node_t *n, int want_chunks) {
  simple__xchg_split_t x = {0, 1};
  int P = n->nodes;
  if (P < 2) return x;
  int L = simple__xchg_lanes(n), d = L - 1 > 1 ? L - 1 : 1;
  if (want_chunks && d / (P - 1) > 1) x.chunks = d / (P - 1);
  int items = (P - 1) * x.chunks;
  x.drivers = items < d ? items : d;
  return x;
}

/* The drivers of an all-pairs exchange during which no thread has
 * node-local work to overlap (every thread of the node would wait for the
 * exchange anyway, as in the one-sided layer's superstep): one per lane,
 * D = min(P - 1, L), L = simple__xchg_lanes; 0 for one node. The same on
 * every node (L is a job-wide answer). */
static inline int simple__xchg_drivers(const simple__node_t *n) {
  int L = simple__xchg_lanes(n), items = n->nodes - 1;
  return items < L ? items : L;
}

/* Lane (and driving thread, at both ends) of item i of a split. */
static inline int simple__xchg_item_lane(const simple__xchg_split_t *x, int i) {
  return i % x->drivers;
}

/* A rooted exchange (gather, scatter): the lane, and the thread that
 * drives it at both ends, of the transfer between root_node and node k !=
 * root_node. The P - 1 other nodes are dealt round-robin over `lanes`
 * lanes, starting after the root. */
static inline int simple__xchg_rooted_lane(const simple__node_t *n, int k, int root_node,
                                           int lanes) {
  return ((k - root_node - 1 + n->nodes) % n->nodes) % lanes;
}

/* ------------------------------------------------------------------------
 * The message room: the node's memory for what crosses between nodes
 * (messages packed before they leave or landed before they are unpacked,
 * the reductions' accumulators), one block shared by every client
 * (simple_alltoall(v), the redistributions, gather(v)/scatter(v)'s node
 * messages, the packed allgather(v)'s blocks, the reductions and scans
 * among nodes), so that a node holds the largest volume any one call
 * needed, not one block per client (nor two, by call parity, as the node
 * scratch of src/node keeps for what is written before a publish).
 * Rules for a client:
 *   - one thread asks for it per call (thread 0; a rooted call's root on
 *     its node), before or after the call's first publish (node_sync.h),
 *     and hands the address to the other threads through a publish or a
 *     barrier (which orders it after the request of the call before);
 *   - the room's bytes are written only after the call's first publish:
 *     every thread of the node has left the call before (a redistribution
 *     returns without a closing barrier, its threads may still unpack),
 *     and so done with what that call left in the room;
 *   - they are read until the thread leaves the call.
 * When the room grows, the old block stays allocated until a requester
 * has passed a publish after the growth (it is freed at that request),
 * since a thread of the call before may still read it; on a node of one
 * thread it goes at once. Returns the room (64-byte aligned, at least
 * `bytes`), or NULL if out of memory (the room as it was). Cost: a
 * compare when it fits; else one allocation, at least doubling, and one
 * free later. */
void *simple__xchg_room(simple_t *s, size_t bytes);
/* Bytes of the room, and in *waiting (if not NULL) those of the blocks it
 * outgrew that wait to be freed. Under the same rule as a request. */
size_t simple__xchg_room_bytes(size_t *waiting);
/* Frees the room (when the job ends: every thread has left). */
void simple__xchg_room_release(void);

/* ------------------------------------------------------------------------
 * The engine: an all-pairs exchange described by its client, driven here.
 * The client says what crosses between this node and node k (callbacks on
 * its own context); the engine decides the order (simple__xchg_step), the
 * lane (the driver's own), the tag, and posts, waits and hands messages
 * back for unpacking. Two shapes:
 *   one message per node pair (blocks == NULL): at each of the driver's
 *     steps, the receive from `from` is posted, the message to `to` is
 *     obtained (the client packs it if it must) and sent, then both are
 *     waited for and the received one unpacked if the client asked; where
 *     the client's memory allows it (distinct, below), the steps whose
 *     messages are one segment each way go without waiting for the ones
 *     before them, up to SIMPLE__XCHG_WAVE in flight;
 *   one message per block (blocks != NULL): every block with the step's
 *     peers travels alone, in waves of SIMPLE__XCHG_WAVE each way; both
 *     ends list a pair's blocks in the same order and cut the list into
 *     the same waves, so every wave's sends meet receives posted before
 *     their sender waits.
 * A node without a copying thread gives the driver its node-local work
 * (`local`), done once while the first transfers are in flight. Cost per
 * step: one message each way (or one per block), alpha + beta m, plus the
 * client's packing. */
#define SIMPLE__XCHG_WAVE 32

typedef struct {
  simple__node_t *n;
  int tag;     /* from tags.h */
  int drivers; /* threads 0..drivers-1 drive (simple__xchg_split) */
  int chunks;  /* simple__xchg_post: pieces per message (simple__xchg_split) */
  void *ctx;   /* the client's, passed to every callback */
  /* One message per pair: its size each way (0: nothing moves), where the
   * message to k lies (packed by the client into driver d's room if it
   * must), where the one from k goes (*unpack = 1: in the driver's room,
   * then handed to unpack). */
  size_t (*out_bytes)(void *ctx, int k);
  size_t (*in_bytes)(void *ctx, int k);
  const void *(*out)(void *ctx, int k, int d);
  void *(*in)(void *ctx, int k, int d, int *unpack);
  void (*unpack)(void *ctx, int k, const void *msg);
  /* simple__xchg_drive: in() and out() give each peer's messages memory
   * of their own (its place in the caller's buffers, say), not one region
   * a driver reuses from step to step, so that a driver may have several
   * steps in flight (drive_window in xchg.c). 0: one step at a time. */
  int distinct;
  /* simple__xchg_post only, optional: where the message from k lands, or
   * the one to k leaves from, as the concatenation of *np pieces (net.h:
   * straight from or into the client's buffers), in place of in(k) or
   * out(k); NULL (or no callback): in(k), out(k). Every driver of a chunk
   * of the message must get the same pieces. */
  const simple__net_piece_t *(*in_pieces)(void *ctx, int k, int d, int *np);
  const simple__net_piece_t *(*out_pieces)(void *ctx, int k, int d, int *np);
  /* simple__xchg_post only, optional: the message to k (out = 1) or from
   * k as consecutive parts, their sizes in *sizes (the client's memory,
   * valid until the next call of this callback by driver d); returns
   * their number. Both ends of a message must give the same sizes, with
   * or without pieces: they decide the cuts below. A chunk that would go
   * as one MPI message (at or above SIMPLE_SEGMENT_WHOLE, or between
   * nodes on one host) whose non-empty parts are all SIMPLE_SEGMENT_PIECES
   * bytes or more goes as one MPI message per part instead, so that where each
   * part is one stretch of the client's memory at both ends (a piece of a
   * redistribution, in its storage or packed in the room) MPI moves it
   * without a copy: the TCP transport lands a contiguous rendezvous
   * message in place, where a message through a datatype of several
   * pieces is unpacked by MPI, out of its buffers, by the driver.
   * Measured on the virtual cluster, 2D FFT on 2 x 2 (one program
   * alternating blocks of 50 transforms with and without, medians of the
   * paired block ratios per node): natural 2048 x 2048 (pieces of 4 MiB)
   * 0.96-0.98, 4096 0.965, transposed 1024 0.96-0.975, 2048 0.97-0.995;
   * natural 512 (pieces of 256 KiB) 0.98, within the noise. Transposed
   * 4096 took 1.05-1.07 there, but no longer or shorter in separate jobs
   * (136-152 ms either way, four each). perf over natural 2048: MPI's
   * packing and unpacking, 7% of the cores' time, gone. */
  int (*parts)(void *ctx, int k, int d, int out, const size_t **sizes);
  /* One message per block: the number of blocks to (out = 1) or from node
   * k, and block i's place and size; NULL for one message per pair. */
  int (*blocks)(void *ctx, int k, int out);
  void *(*block)(void *ctx, int k, int out, int i, size_t *bytes);
  /* Node-local work for a node without a copier (NULL: none). */
  void (*local)(void *ctx);
  /* simple__xchg_post only, on up to SIMPLE__XCHG_INBAND_NODES nodes
   * (simple__xchg_in_band): the job-wide verdict on the call's arguments
   * travels in band, with no message of its own. Chunk 0 of every node
   * pair carries it, each way, even where it is empty: its first message
   * where that is at most one segment (SIMPLE__XCHG_SEG_BYTES), else (an
   * empty chunk, one that goes whole or in parts) a token of one byte
   * posted just before it, so that no verdict waits for a large message
   * to land. A node that failed posts nothing of the exchange: it sends an
   * error mark (net.h) in place of each carrier and drains what it is sent
   * (simple__xchg_post_failed); the others learn it from their carriers
   * (simple__xchg_post_verdict) and take back the rest
   * (simple__xchg_post_abandon). Every node of an exchange sets it alike.
   * What it saves: a vote of one word each way between every node pair
   * besides the data, 9 us of thread 0's time to post on the virtual
   * cluster (a system call and a packet through the virtual network); a
   * 2 x 2 redistribution of 256 x 256 complex elements took 0.92-0.96 of
   * the time without it, the 2D FFT with natural output 0.96-0.99 (one
   * program adding the vote back block by block, five runs, 2026-12-07).
   * Cost: where a node pair's message is empty, or its
   * first message is larger than a segment, a token each way; the tokens
   * of empty pairs are why it stops at SIMPLE__XCHG_INBAND_NODES (a
   * client votes with an allreduce above, net_comm.h). */
  int verdict;
  /* With verdict: where the carrier from node k lands among its driver's
   * requests (carrier[k], the client's array of nodes entries), recorded
   * as the driver posts its receives, for simple__xchg_post_verdict. */
  int *carrier;
  /* The job-wide verdict: this node found an error in the call's
   * arguments. It still runs its part of the exchange, so that no other
   * node waits forever, but sends an error mark (net.h) where a message
   * would go and drains what it is sent. Only the sizes (out_bytes,
   * in_bytes, blocks) are asked of the client then: they must be known
   * without the faulty arguments. A node that receives a mark completes
   * the rest of its transfers and its driver returns SIMPLE_ERR_PEER. */
  int bad;
  /* The call's signature (coll.h), or 0 (simple__xchg_drive and the
   * rooted exchanges; not simple__xchg_post and simple__xchg_put). With
   * it, every message and mark goes with simple__xchg_sig_tag(sig) as its
   * tag instead of `tag`, every receive and drain takes any tag, and a
   * message whose tag differs from this node's (another call on the
   * sending node: another root, type or count of the same bytes) is not
   * unpacked and makes the exchange return SIMPLE_ERR_ARG. Nothing more
   * on the wire, no copy: the compare reads the receive's status. Every
   * node of an exchange passes a signature, or none does. */
  unsigned sig;
} simple__xchg_t;

/* Driver d's share of the exchange (d < x->drivers), with the node-local
 * work too when also_local. Returns 0, SIMPLE_ERR_PEER when the node is bad
 * or a mark reached this driver (the verdict: the driver's node must fail
 * the call), SIMPLE_ERR_ARG when no mark did but a message came with
 * another signature (x->sig; where messages land in the client's buffers
 * directly, that one has landed too), or the first transfer's error (the
 * driver still waits for what it posted). */
int simple__xchg_drive(const simple__xchg_t *x, int d, int also_local);

/* The other way to run an all-pairs exchange, for clients that post every
 * receive before they pack (so no message ever waits for its receive) and
 * do node-local work while the transfers fly: driver d posts its items of
 * the shifted schedule, chunk by chunk (item i = (st - 1) chunks + ch on
 * lane d, i = d, d + drivers, ...), receives (out = 0: into in(k) + the
 * chunk's offset, never unpacked by the engine) or sends (out = 1: from
 * out(k)). Each chunk goes in segments of at most SIMPLE__XCHG_SEG_BYTES
 * (below; between nodes on one host, whole; a whole one of large parts
 * as one message per part, simple__xchg_t's parts), a request each, all
 * posted at once: under the TCP transport's eager limit no segment waits
 * for a rendezvous. Requests go to req (room
 * for simple__xchg_post_count of them), *nreq counts them. The client
 * completes them (simple__net_waitall, or testall while it works). Chunks
 * are cut on cache lines. */
int simple__xchg_post(const simple__xchg_t *x, int d, int out, simple__net_req_t *req, int *nreq);

/* Whether simple__xchg_post's exchanges on this job's nodes carry their
 * verdict in band (simple__xchg_t's verdict): the same on every node. */
static inline int simple__xchg_in_band(const simple__node_t *n) {
  return n->nodes <= SIMPLE__XCHG_INBAND_NODES;
}

/* simple__xchg_post's exchange with its verdict in band (x->verdict), on
 * a node that did not fail, once its drivers have posted their receives
 * and sends: one thread waits for every node pair's carrier, whichever
 * driver posted it (reqs[d]: driver d's requests; x->carrier says
 * where), and sets failed[k] (k < nodes) where node k sent a mark, while
 * the drivers leave their requests alone. The carriers come first from
 * their nodes: the wait ends when each node's first segment (or token)
 * has landed. Cost: P - 1 waits. 0 or SIMPLE_ERR_MPI. */
int simple__xchg_post_verdict(const simple__xchg_t *x, simple__net_req_t *const *reqs,
                              unsigned char *failed);

/* Then, where failed says some node failed: driver d takes back its
 * receives from failed nodes (req[0..nrecv), as simple__xchg_post posted
 * them; its sends follow up to nreq), sends each failed node one count
 * message (tag count_tag) per item it drives with it, the number of
 * messages it sent, and waits for every request. On a failed node one
 * thread runs simple__xchg_post_failed (every driver's items; x needs n,
 * tag, drivers and chunks alone, no sizes): an error mark to every node
 * in place of its carrier, then from each node its carrier, drained (a
 * mark: that node failed too and sends nothing more), and per item the
 * count message and the rest of that many messages, drained. Nothing
 * stays queued, and the failed node needs no sizes. 0 or SIMPLE_ERR_MPI.
 * The error path only: one small message per item with a failed node. */
int simple__xchg_post_abandon(const simple__xchg_t *x, int d, const unsigned char *failed,
                              int count_tag, simple__net_req_t *req, int nrecv, int nreq);
int simple__xchg_post_failed(const simple__xchg_t *x, int count_tag);

/* The requests simple__xchg_post(x, d, out) posts (the sizes as it will
 * see them). Cost: one pass over the driver's items. */
int simple__xchg_post_count(const simple__xchg_t *x, int d, int out);

/* A bound on the requests of any driver's simple__xchg_post one way, for
 * a client that sizes its room before it knows the messages: an exchange
 * of `chunks` pieces per node pair whose messages one way total at most
 * `bytes`. A chunk of L bytes takes ceil(L / S) <= 1 + floor(L / S)
 * segments (S = SIMPLE__XCHG_SEG_BYTES), and floors sum to at most the
 * floor of the sum: items + bytes / S. */
#define SIMPLE__XCHG_SEG_BYTES (63 * 1024)
/* Between nodes on one host: whole messages, up to 1 GiB (one MPI count). */
#define SIMPLE__XCHG_ONE_HOST_SEG ((size_t)1 << 30)
static inline size_t simple__xchg_post_bound(const simple__node_t *n, int chunks, size_t bytes) {
  return (size_t)(n->nodes - 1) * (size_t)chunks + bytes / SIMPLE__XCHG_SEG_BYTES;
}

/* The driver of simple__xchg_post (and simple__xchg_put) that moves
 * chunk ch of the message to (out = 1) or from (out = 0) node k != this
 * node: the inverse of their schedules, for a client that must know which
 * thread completes a given message (the one-sided layer's get replies,
 * which a thread lands once their driver has waited for them). */
static inline int simple__xchg_post_driver(const simple__xchg_t *x, int k, int out, int ch) {
  int P = x->n->nodes, a = x->n->node;
  int st = out ? (k - a + P) % P : (a - k + P) % P;
  return ((st - 1) * x->chunks + ch) % x->drivers;
}

/* simple__xchg_post's exchange done with one-sided puts instead (a client
 * that keeps the target's memory in an MPI window, src/net/net_win.h):
 * driver d puts each of its send items (the shifted schedule, chunk by
 * chunk, as simple__xchg_post) from out(k) to byte disp (+ the chunk's
 * offset) of node k's window, then flushes each target once, so that its
 * puts travel together. Lanes and tags play no part (a window has its own
 * communicator); in_bytes, in and unpack are not read. A put reaches its
 * target with no receive to find a mark in, so the verdict cannot travel
 * with it: when x->bad nothing is put and SIMPLE_ERR_PEER returned, and a
 * client must reach its verdict before (the one-sided layer does, in its
 * count exchange). The target's side of completion is the client's too:
 * a barrier among the nodes after every driver returned, then
 * simple__win_sync. Cost per driver: its items' puts, alpha + beta m each,
 * overlapped up to the flushes. */
int simple__xchg_put(const simple__xchg_t *x, int d, simple__win_t *w, size_t disp);

/* A rooted exchange on the root's node (gather: out = 0, every other node
 * sends one message; scatter: out = 1, one message to every other node):
 * the driver of `lane` (of `lanes`, simple__xchg_rooted_lane) moves the
 * messages of the nodes dealt to its lane through out/out_bytes or
 * in/in_bytes/unpack (called for each k in increasing order, the buffer
 * first): those of one segment SIMPLE__XCHG_BATCH requests at a time, a
 * larger one on its own after the batch before it, in segments, up to 8
 * in flight (as simple__xchg_sendrecv moves a message; in error mode
 * every message so). The other nodes' drivers send or receive their
 * node's one message with simple__xchg_rooted_peer on the lane
 * simple__xchg_rooted_lane gives them. Returns 0, SIMPLE_ERR_ARG (a
 * gather's message came with another signature, x->sig; the others were
 * still received, and unpacked), SIMPLE_ERR_PEER (a mark came, or x->bad)
 * or SIMPLE_ERR_MPI. Cost: (P - 1) / lanes messages per driver, each
 * alpha + beta m; segments let a message of many overlap its transfer
 * with TCP's acknowledgements (one way between two virtual nodes, 8 MiB:
 * 2404-2654 us in segments against 3371-3603 whole). */
#define SIMPLE__XCHG_BATCH 16
int simple__xchg_rooted(const simple__xchg_t *x, int root_node, int lanes, int lane, int out);
/* The other end of a rooted exchange, on a node that is not the root's:
 * its one message of `bytes` (nothing when 0, as the root's side skips
 * empty messages) sent to (out = 1) or received from the root's node on
 * `lane`, in segments, or, when x->bad, marks sent or the root's message
 * drained (simple__xchg_sendrecv's error path).
 * Returns 0, SIMPLE_ERR_ARG (the root's message came with another
 * signature, x->sig: buf holds it all the same), SIMPLE_ERR_PEER (bad,
 * or a mark came from the root's node), or SIMPLE_ERR_MPI. Both rooted
 * calls return SIMPLE_ERR_PEER the same way. Only x->n, x->tag, x->bad
 * and x->sig are read. */
int simple__xchg_rooted_peer(const simple__xchg_t *x, int root_node, int lane, void *buf,
                             size_t bytes, int out);

/* simple__xchg_rooted_peer from or into several buffers: the node's one
 * message, cut at the same segments, leaves from (out = 1) or lands in
 * the pieces' concatenation (net.h: simple__net_isend_pieces,
 * simple__net_irecv_pieces), so that a gather's or scatter's node message
 * needs no copy into or out of a staging area. A mark writes nothing; a
 * message with another signature lands all the same (as it lands in buf),
 * the call then failing with SIMPLE_ERR_ARG. */
int simple__xchg_rooted_peer_pieces(const simple__xchg_t *x, int root_node, int lane,
                                    const simple__net_piece_t *pieces, int np, size_t bytes,
                                    int out);

/* *bad's value once a message came with another node's signature
 * (simple__xchg_sendrecv): as a mark's 1, the node sends marks from then
 * on, but its verdict is SIMPLE_ERR_ARG. */
#define SIMPLE__XCHG_SIG_DIFFERS 2

/* The tag a message of a call with signature sig goes with: the
 * signature's (simple__xchg_sig_tag), or `tag` for sig 0 (no signature: a
 * node in error mode, whose marks any receive takes). */
static inline int simple__xchg_out_tag(simple__node_t *n, unsigned sig, int tag) {
  return sig ? simple__xchg_sig_tag(n, sig) : tag;
}

/* SIMPLE__XCHG_SEG_BYTES (defined above): messages between nodes on
 * different hosts of more than this many bytes, and fewer than
 * SIMPLE_SEGMENT_WHOLE (8 MiB by default; from there they go whole;
 * a message going one way only, from twice that: xchg.c, msg_seg),
 * go in segments of at most this size (of equal size up to 8 segments,
 * rounded up to 64 bytes: xchg.c, msg_seg), each
 * a message of its own (simple__xchg_sendrecv, simple__xchg_post, the
 * reduce tree; between nodes on one host, where MPI's shared memory moves
 * a message in one copy, they go whole, up to 1 GiB a segment):
 * the largest that Open MPI's TCP transport sends eagerly (its default
 * btl_tcp_eager_limit, 64 KiB, less room for its match header). A larger
 * message costs a rendezvous, one more round trip before its data moves;
 * measured within one job on the virtual cluster (2 x 1, reduce tree),
 * 63 KiB segments against 128 KiB: 256 KiB 1.29-1.49x faster, 1 MiB
 * 1.11-1.37x. */

/* Whether messages between this node and node `peer` go as between
 * hosts: in SIMPLE__XCHG_SEG_BYTES segments below SIMPLE_SEGMENT_WHOLE,
 * through MPI's network transport, not whole through its shared memory
 * (nodes on one host, unless SIMPLE_SEGMENT_ONE_HOST=1). */
int simple__xchg_between_hosts(simple__node_t *n, int peer);

/* One step of a pairwise schedule (src/coll/internode.c) that carries the
 * verdict and the call's signature: with *bad clear, src's message is
 * received into rbuf (with any tag) while sbuf goes to dest with
 * simple__xchg_out_tag(sig, tag) (dest or src -1: none); a mark received
 * sets *bad to 1 (nothing written to rbuf), data whose tag is not this
 * node's sets it to SIMPLE__XCHG_SIG_DIFFERS (rbuf holds the data, not to
 * be used). With *bad set, a mark to dest and src's message drained,
 * whatever its tag. Every node of such a schedule that has seen an error
 * passes it on at each later step, so the verdict reaches every node
 * whose result depends on the offender's data, at no extra message, and
 * the signature costs nothing on the wire: the receive reads the tag from
 * the status it gets anyway. Every node of the schedule passes its own
 * call's signature, or 0 in error mode. A message above
 * SIMPLE__XCHG_SEG_BYTES to or from another host goes in segments (below),
 * up to 8 in flight each way
 * (both ends cut it alike: the sizes are the schedule's, known in error
 * mode too, where each segment is a mark). A step with dest or src -1
 * sends or receives one way only, which raises the size from which its
 * message goes whole (xchg.c, msg_seg): the schedule must pair such a step
 * with one of the same kind at the other end (a tree's edge, a fold),
 * whatever the sizes. Returns 0 or SIMPLE_ERR_MPI. */
int simple__xchg_sendrecv(simple__node_t *n, int lane, const void *sbuf, size_t sbytes, int dest,
                          void *rbuf, size_t rbytes, int src, int tag, int *bad, unsigned sig);

/* simple__xchg_sendrecv that hands rbuf over segment by segment:
 * arrived(arg, off, len) runs for each segment of the received message as
 * it lands (bytes off .. off + len of rbuf, in order; every segment but
 * the last has the message's segment size, at most the pair's
 * (SIMPLE__XCHG_SEG_BYTES or SIMPLE__XCHG_ONE_HOST_SEG) and a multiple of
 * 64 bytes, so of every type's size),
 * while the later segments are still on the wire, and for none after a
 * mark or a message with another signature (nor with *bad set on entry).
 * A reduction combines there, overlapping its pass over the data with the
 * transfer. arrived must not write the bytes of sbuf: they may still be
 * in flight. */
typedef void simple__xchg_arrived_fn(void *arg, size_t off, size_t len);
int simple__xchg_sendrecv_each(simple__node_t *n, int lane, const void *sbuf, size_t sbytes,
                               int dest, void *rbuf, size_t rbytes, int src, int tag, int *bad,
                               unsigned sig, simple__xchg_arrived_fn *arrived, void *arg);

#endif
