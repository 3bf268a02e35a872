/* The decision table of the collectives' phase among nodes (choose.h).
 *
 * The crossovers, measured with simple-bench coll and with programs that
 * switch the forced algorithm inside one job, on the virtual cluster (the
 * method and the current evidence: docs/bench.md, "Algorithms among
 * nodes"; below, the figures each choice was made on):
 *  - allreduce: up to 8 KiB the master's recursive doubling wins (one
 *    exchange per round, no slicing barrier); above, the sliced combine
 *    and Rabenseifner's 2 n bytes per node beat log2 P exchanges of n.
 *    Two nodes of one thread have no slicing to gain: recursive doubling
 *    on the caller's buffers is one exchange of n where Rabenseifner's is
 *    two of n/2. Forced either way, 2 x 1, three alternating runs (median
 *    us per run): 32 KiB 32-35 against 48-52, 256 KiB 113-121 against
 *    149-158, 1 MiB 421-599 against 471-522, 4 MiB 2441-3296 against
 *    2810-3069: recursive doubling up to 512 KiB (not measured between
 *    256 KiB and 1 MiB). Two nodes with a node phase: every thread
 *    combines a slice either way, then each lane exchanges its piece once
 *    (rd) or twice at half size (rab). Forced either way, 2 x 2, three
 *    alternating runs (median us per run, rd against rab): 32 KiB
 *    38-47 against 54-62, 256 KiB 137-139 against 155-182, 1 MiB 530-659
 *    against 530-735, 4 MiB 3252-3886 against 3198-3582. Since node-pair
 *    messages go in segments up to 8 MiB (src/xchg), one program switching
 *    between the two every 10 calls on both nodes at once (15 paired
 *    blocks, both orders; time with rab over time with rd, median of the
 *    pairs): 2 x 2, 512 KiB 0.94-1.01 (7 runs), 1 MiB 0.90-0.99 (7 runs,
 *    median 0.92), 2 MiB 0.93-1.00, 4 MiB 0.91-0.96; 2 x 1, 512 KiB
 *    0.83-1.03 (median 0.86), 1 MiB 0.92-1.04, 2 and 4 MiB 0.84-0.92:
 *    recursive doubling below 1 MiB on nodes of two threads or more, below
 *    512 KiB on nodes of one.
 *  - reduce up to 8 KiB: the binomial tree, one way, whatever the node
 *    count: its ceil(log2 P) steps are as many as recursive doubling's
 *    but send one message per pair, not one each way. 2 x 1 on the
 *    virtual cluster (one core per node, so both ends' TCP work is
 *    serialized): 8 B 9.2-9.8 us against 12.4-13.3 (MPI_Reduce 8.9-9.7),
 *    4 KiB 12.8-13.0 against 18.5-20.0.
 *  - reduce above 8 KiB on 2 to 4 nodes: the tree moves n bytes one way
 *    into the root (2 nodes: one message; 3: two) where the allreduce
 *    moves 2 n (n/2 each way, twice) and, at 3 nodes, folds a third node in
 *    and out (3 n); on 4 nodes the tree's root takes 2 n in 2 steps,
 *    Rabenseifner's 2 n (P - 1) / P = 1.5 n in 4. From 5 nodes the tree up
 *    to 32 KiB (ceil(log2 P) steps against 2 log2 P), Rabenseifner above,
 *    where its 2 n (P - 1) / P bytes per node beat the tree's (log2 P) n at
 *    the root: a step costs alpha, so Rabenseifner's saving (log2 P - 2) n
 *    beta pays from n = log2 P / (log2 P - 2) alpha / beta, 3 alpha / beta
 *    on 8 nodes and 1.5 on 64 (about 40-110 KB on networks of 10-25 GB/s
 *    and 1.5-2 us). The virtual cluster, where the nodes share 2 cores
 *    and so the bytes all nodes move count rather than those at the root
 *    (the tree moves (P - 1) n in all, Rabenseifner twice that), favours
 *    the tree at every size: simple-bench coll -N N -t 1 --vcluster
 *    --rounds 3 --only reduce, forced each way, two alternating runs,
 *    us tree against rab: 4 nodes 32 KiB 65-68 against 119-120, 256 KiB
 *    239-246 against 381-394, 4 MiB 6905-7367 against 8423-8517; 8 nodes
 *    32 KiB 213-232 against 380-394, 256 KiB 775-795 against 1246-1325,
 *    1 MiB 3603-3636 against 5014-5126, 4 MiB 29826-31830 against
 *    25349-25505 (MPI_Reduce in the same jobs: 32 KiB 182-241, 256 KiB
 *    1440-1594, 4 MiB 41531-45861).
 *  - scan: below 8 KiB one lane (a message costs alpha whatever its size,
 *    splitting adds messages).
 *  - alltoall: blocks of 1 MiB and up go as messages of their own, below
 *    they are packed (Open MPI's TCP transport moves one large message
 *    faster than several eager ones: 4 blocks of 64 KiB took 182-184 us
 *    against 83-102 us packed, 2 x 2; 1 MiB blocks 2.71 -> 2.38 ms
 *    direct). Since the packed messages go in eager-sized segments
 *    (src/xchg), 2 x 2, three alternating runs of each forced: 256 KiB
 *    blocks 479-483 us packed against 621-637 direct, 1 MiB 3.33-3.35 ms
 *    against 2.82-3.10, 4 MiB 13.6-14.3 against 12.5-15.3. On another
 *    host of the VM's cloud, with node-pair messages of 512 KiB and more
 *    whole (src/xchg), four alternating runs: 256 KiB blocks 509-613 us
 *    packed against 411-442 direct, 32 KiB 58 against 57 (medians), 4 KiB
 *    19 against 32-33: direct from 256 KiB (the packed path's two extra
 *    copies of the node-pair message cost more than the messages it
 *    saves). With one thread per node a node pair's message is one block,
 *    which the packed path already sends from the caller's buffer: there
 *    the direct path only adds its posting order (2 x 1, 256 KiB: 133-143
 *    us packed, 166-245 direct; 1 MiB 541-543 against 597-1051). With
 *    node-pair messages in segments up to 8 MiB (src/xchg), the packed
 *    message needs no rendezvous and the crossover moved up; one program
 *    switching between the two (as for allreduce above), 2 x 2, time
 *    direct over packed: 4 KiB 1.73-1.77, 32 KiB 1.06-1.07, 128 KiB
 *    1.02-1.04, 256 KiB 0.96-1.32 (median 1.20 of 5 runs), 512 KiB
 *    1.04-1.17, 1 MiB 0.93-1.02 (median 0.98 of 5), 2 MiB 0.77-0.82 (the
 *    packed node-pair message, 8 MiB, goes whole): direct from 1 MiB.
 *  - allgather: the in-place exchange saves the copies of the node block
 *    and of the result, and its point-to-point messages go in eager-sized
 *    segments (src/xchg) where MPI_Allgatherv's large ones wait for a
 *    rendezvous; below 16 KiB per thread the packed path's one
 *    MPI_Allgatherv and one barrier fewer win by a little. Forced either
 *    way, 2 x 2, two runs each (median us): 8 B 24.6 packed against 25.1
 *    direct, 4 KiB 33.6 against 34.7, 32 KiB 91.7 against 63.1, 256 KiB 625
 *    against 258, 1 MiB 3595 against 1724; 2 x 1 against the build before
 *    (packed below 1 MiB, then MPI_Allgatherv in place), three runs: 4 KiB
 *    20.3 against 20.9, 32 KiB 37.7 against 35.2, 256 KiB 152 against 114,
 *    1 MiB 768 against 439. Since node-pair messages go in segments up to
 *    8 MiB (src/xchg), one program switching between the two (as for
 *    allreduce above), time direct over packed: 2 x 2, 16 KiB 1.00-1.05,
 *    32 KiB 1.02-1.14 (median 1.12 of 5 runs), 64 KiB 0.68-0.79, 128 KiB
 *    0.61-0.89; 2 x 1, 16 KiB 0.97-1.00, 32 KiB 0.91-0.93: packed up to
 *    32 KiB on two nodes with two threads or more (not measured on more
 *    nodes), else below 16 KiB. Above 4 nodes the node count need not be a
 *    power of two, where the exchange is a ring of P - 1 steps (MPI's
 *    Bruck: log2 P): direct from 1 MiB only.
 *  - bcast on 2 nodes: the tree at every size. MPI_Bcast carries the
 *    verdict word beside the data, copied with it into one block up to
 *    48 KiB (two copies of the data) and above in a two-block datatype,
 *    which Open MPI packs, and sends one message where the tree's 63 KiB
 *    segments stay under the eager limit (32 KiB through the copy, the
 *    same job's MPI_Bcast of the data alone over simple's: 0.88-0.90 with
 *    `mpi`, 0.98-0.99 with the tree, two runs each). With the copy up
 *    to 1 KiB only, forced either way, 2 x 1, three alternating runs
 *    (median us per run, tree against mpi): 8 B 7.5-10.0 against
 *    7.3-10.4, 4 KiB 10.2-10.4 against 10.7-11.8, 32 KiB 14.0-14.5
 *    against 15.4-20.3, 256 KiB 78-82 against 97-114, 4 MiB 1172-1456
 *    against 1360-1547. On 3 and 4 nodes (virtual nodes sharing 2 cores)
 *    the tree lost below 256 KiB (timed in one job against MPI_Bcast:
 *    0.85-0.88x from 64 B to 32 KiB on 3 nodes, 0.6x at 32 KiB on 4) and
 *    won from 256 KiB (two runs each: 3 nodes 179-183 us against
 *    356-433, 1 MiB 568-600 against 1584-1841; 4 nodes 344-346 against
 *    680-1052). Not measured above 4 nodes, where a tree that does not
 *    pipeline from level to level moves log2 P n on its deepest path and
 *    MPI's large bcast about 2 n. */
#include "coll/choose.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/job.h"
#include "simple/core.h"

typedef struct {
  simple__coll_kind_t kind;
  int max_nodes;    /* the row applies up to this many nodes, */
  int min_threads;  /* from this many threads on the largest node, */
  size_t max_bytes; /* and up to this many bytes (inclusive) */
  simple__coll_alg_t alg;
} rule_t;

#define ANY_NODES INT32_MAX
#define ANY_BYTES SIZE_MAX

/* First matching row wins; every kind ends with a catch-all row. Rows are
 * grouped by kind in the order of simple__coll_kind_t (a choice reads its
 * kind's rows only; checked at the first choice). */
static const rule_t rules[] = {
    {SIMPLE__COLL_ALLREDUCE, ANY_NODES, 1, SIMPLE__COLL_SMALL_REDUCE, SIMPLE__ALG_RD},
    {SIMPLE__COLL_ALLREDUCE, 2, 2, (1 << 20) - 1, SIMPLE__ALG_RD},
    {SIMPLE__COLL_ALLREDUCE, ANY_NODES, 2, ANY_BYTES, SIMPLE__ALG_RAB},
    {SIMPLE__COLL_ALLREDUCE, 2, 1, (512 << 10) - 1, SIMPLE__ALG_RD},
    {SIMPLE__COLL_ALLREDUCE, ANY_NODES, 1, ANY_BYTES, SIMPLE__ALG_RAB},
    {SIMPLE__COLL_REDUCE, ANY_NODES, 1, SIMPLE__COLL_SMALL_REDUCE, SIMPLE__ALG_TREE},
    {SIMPLE__COLL_REDUCE, 4, 1, ANY_BYTES, SIMPLE__ALG_TREE},
    {SIMPLE__COLL_REDUCE, ANY_NODES, 1, 32 << 10, SIMPLE__ALG_TREE},
    {SIMPLE__COLL_REDUCE, ANY_NODES, 1, ANY_BYTES, SIMPLE__ALG_RAB},
    {SIMPLE__COLL_SCAN, ANY_NODES, 1, 8191, SIMPLE__ALG_ONE_LANE},
    {SIMPLE__COLL_SCAN, ANY_NODES, 1, ANY_BYTES, SIMPLE__ALG_LANES},
    {SIMPLE__COLL_ALLTOALL, ANY_NODES, 2, (1 << 20) - 1, SIMPLE__ALG_PACKED},
    {SIMPLE__COLL_ALLTOALL, ANY_NODES, 2, ANY_BYTES, SIMPLE__ALG_DIRECT},
    {SIMPLE__COLL_ALLTOALL, ANY_NODES, 1, ANY_BYTES, SIMPLE__ALG_PACKED},
    {SIMPLE__COLL_ALLGATHER, 2, 2, 32 << 10, SIMPLE__ALG_PACKED},
    {SIMPLE__COLL_ALLGATHER, ANY_NODES, 1, (16 << 10) - 1, SIMPLE__ALG_PACKED},
    {SIMPLE__COLL_ALLGATHER, 4, 1, ANY_BYTES, SIMPLE__ALG_DIRECT},
    {SIMPLE__COLL_ALLGATHER, ANY_NODES, 1, (1 << 20) - 1, SIMPLE__ALG_PACKED},
    {SIMPLE__COLL_ALLGATHER, ANY_NODES, 1, ANY_BYTES, SIMPLE__ALG_DIRECT},
    {SIMPLE__COLL_BCAST, 2, 1, ANY_BYTES, SIMPLE__ALG_TREE},
    {SIMPLE__COLL_BCAST, 4, 1, (256 << 10) - 1, SIMPLE__ALG_MPI},
    {SIMPLE__COLL_BCAST, 4, 1, ANY_BYTES, SIMPLE__ALG_TREE},
    {SIMPLE__COLL_BCAST, ANY_NODES, 1, ANY_BYTES, SIMPLE__ALG_MPI},
};

/* SIMPLE_COLL_ALG: comma-separated COLL=ALG, each forcing ALG for COLL at
 * every size and node count. */
static const char *const kind_names[SIMPLE__COLL_KINDS] = {"allreduce", "reduce",    "scan",
                                                           "alltoall",  "allgather", "bcast"};
static const char *const alg_names[SIMPLE__ALG_COUNT] = {"rd",    "rab",    "tree",   "one-lane",
                                                         "lanes", "packed", "direct", "mpi"};
/* The algorithms each kind accepts, one bit per simple__coll_alg_t. */
#define ALG(a) (1u << SIMPLE__ALG_##a)
static const unsigned kind_algs[SIMPLE__COLL_KINDS] = {
    ALG(RD) | ALG(RAB),        ALG(RD) | ALG(RAB) | ALG(TREE), ALG(ONE_LANE) | ALG(LANES),
    ALG(PACKED) | ALG(DIRECT), ALG(PACKED) | ALG(DIRECT),      ALG(TREE) | ALG(MPI)};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int forced[SIMPLE__COLL_KINDS]; /* alg + 1, or 0: the table decides */
static int env_status;
/* The rows of kind k: rules[first[k]] .. rules[first[k + 1] - 1] (the
 * table is grouped by kind, in the enum's order), so that a choice reads
 * its own few rows only (a scan of the whole table cost up to ~130
 * instructions a call, counted with callgrind). */
static unsigned char first[SIMPLE__COLL_KINDS + 1];

/* word is the len bytes at s. */
static int is(const char *word, const char *s, size_t len) {
  return strlen(word) == len && memcmp(word, s, len) == 0;
}

static int parse_item(const char *item, size_t len) {
  const char *eq = memchr(item, '=', len);
  if (!eq) return -1;
  size_t klen = (size_t)(eq - item), alen = len - klen - 1;
  for (int k = 0; k < SIMPLE__COLL_KINDS; k++)
    for (int a = 0; a < SIMPLE__ALG_COUNT; a++)
      if ((kind_algs[k] >> a & 1) && is(kind_names[k], item, klen) &&
          is(alg_names[a], eq + 1, alen)) {
        forced[k] = a + 1;
        return 0;
      }
  return -1;
}

static void read_env(void) {
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
    if (i > 0 && rules[i].kind < rules[i - 1].kind) {
      fprintf(stderr,
              "simple: internal error: the collectives' decision table is not grouped by "
              "kind (src/coll/choose.c)\n");
      abort();
    }
    first[rules[i].kind + 1] = (unsigned char)(i + 1);
  }
  const char *s = getenv("SIMPLE_COLL_ALG");
  if (!s || !*s) return;
  for (const char *p = s;;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    if (parse_item(p, len) != 0) {
      memset(forced, 0, sizeof forced);
      env_status = SIMPLE_ERR_ARG;
      fprintf(stderr,
              "simple: SIMPLE_COLL_ALG='%s': expected COLL=ALG[,COLL=ALG...] with "
              "allreduce=rd|rab, reduce=rd|rab|tree, scan=one-lane|lanes, "
              "alltoall=packed|direct, allgather=packed|direct, bcast=tree|mpi; allreduce, reduce, "
              "scan, exscan, alltoall, allgather and bcast refuse every call (SIMPLE_ERR_ARG)\n",
              s);
      return;
    }
    if (!comma) return;
    p = comma + 1;
  }
}

int simple__coll_choose_status(void) {
  pthread_once(&once, read_env);
  return env_status;
}

simple__coll_alg_t simple__coll_choose(simple__coll_kind_t kind, const simple__node_t *n,
                                       size_t bytes) {
  pthread_once(&once, read_env);
  if (forced[kind]) return (simple__coll_alg_t)(forced[kind] - 1);
  int most = 0; /* threads of the largest node, counted when a row asks */
  for (size_t i = first[kind]; i < first[kind + 1]; i++) {
    const rule_t *u = &rules[i];
    if (n->nodes > u->max_nodes || bytes > u->max_bytes) continue;
    if (u->min_threads > 1 && !most)
      for (int k = 0; k < n->nodes; k++)
        if (n->threads_of[k] > most) most = n->threads_of[k];
    if (u->min_threads <= 1 || most >= u->min_threads) return u->alg;
  }
  return SIMPLE__ALG_COUNT; /* not reached: every kind has a catch-all row */
}
