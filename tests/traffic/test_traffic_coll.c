#define _POSIX_C_SOURCE 200809L
/* The messages between nodes of the hybrid collectives, counted by
 * libsimple-traffic (bench/traffic, linked into this program ahead of MPI),
 * against the closed forms of the algorithms that include/simple/coll.h
 * documents, for P nodes of r_k threads, n bytes per thread:
 *   barrier, allgather(v), and bcast on 3 nodes and more: no
 *     point-to-point message; one MPI collective call per node
 *     (MPI_Barrier, MPI_Allgatherv, MPI_Bcast among the node masters),
 *     whose own messages PMPI cannot see;
 *   bcast on 2 nodes: the binomial tree from the root's node, point to
 *     point: P - 1 messages of n bytes (one);
 *   allreduce of n <= 8 KiB: recursive doubling among nodes on one
 *     lane: pof2 log2(pof2) messages of n bytes, plus 2 (P - pof2) to
 *     fold the nodes above the largest power of two pof2 <= P in and out;
 *   reduce of n <= 8 KiB: a binomial tree to the root's node, one way:
 *     P - 1 messages of n bytes;
 *   gather, scatter: one message per other node, of that node's blocks:
 *     P - 1 messages, (p - r_root) n bytes;
 *   scan and exscan of n <= 1 KiB: recursive doubling among nodes, node k
 *     exchanging with k ^ 2^j for every 2^j < P whose partner exists:
 *     sum over j of #{k < P : k ^ 2^j < P} messages of n bytes, except at
 *     the last step (2^(j+1) >= P), where only the lower node of each pair
 *     sends;
 *   alltoall of blocks under 1 MiB, and alltoallv whatever its blocks:
 *     one message per ordered node pair, P (P - 1) messages,
 *     sum over i != j of r_i r_j n bytes.
 * The call's signature rides in every message's tag (docs/api.md): no
 * byte more.
 * Each process is a node here (SIMPLE_TRAFFIC_PPN=1), whatever host it is
 * on; the counts are summed over the job outside the counted segment. */
#include <mpi.h>
#include <stdlib.h>

#include "harness.h"
#include "simple_traffic.h"

#define N_BYTES 1024 /* per thread: the small allreduce (<= 8 KiB) */

typedef struct {
  double msgs, bytes, calls;
} tally_t;

static tally_t counted(simple_t *s, int which, unsigned char *a, unsigned char *b, size_t *counts,
                       size_t *displs) {
  size_t nd = N_BYTES / 8;
  simple_barrier(s);
  if (simple_thread(s) == 0) MPI_Pcontrol(1);
  simple_node_barrier(s);
  int rc = 0;
  switch (which) {
    case 0: rc = simple_barrier(s); break;
    case 1: rc = simple_bcast(s, a, N_BYTES, SIMPLE_BYTE, 0); break;
    case 2: rc = simple_allgather(s, a, b, N_BYTES, SIMPLE_BYTE); break;
    case 3: rc = simple_allreduce(s, a, b, nd, SIMPLE_DOUBLE, SIMPLE_SUM); break;
    case 4: rc = simple_reduce(s, a, b, nd, SIMPLE_DOUBLE, SIMPLE_SUM, 0); break;
    case 5: rc = simple_gather(s, a, b, N_BYTES, SIMPLE_BYTE, 0); break;
    case 6: rc = simple_scatter(s, a, b, N_BYTES, SIMPLE_BYTE, 0); break;
    case 7: rc = simple_alltoall(s, a, b, N_BYTES, SIMPLE_BYTE); break;
    case 8: rc = simple_alltoallv(s, a, counts, displs, b, counts, displs, SIMPLE_BYTE); break;
    case 9: rc = simple_scan(s, a, b, nd, SIMPLE_DOUBLE, SIMPLE_SUM); break;
    case 10: rc = simple_exscan(s, a, b, nd, SIMPLE_DOUBLE, SIMPLE_SUM); break;
  }
  CHECK_OK(rc);
  simple_node_barrier(s);
  simple_traffic_counts_t c = {0};
  double v[3] = {0}, sum[3];
  if (simple_thread(s) == 0) {
    MPI_Pcontrol(0);
    MPI_Pcontrol(2, &c);
    CHECK(c.loaded == 1);
    v[0] = (double)c.api_msgs;
    v[1] = (double)c.api_bytes;
    v[2] = (double)c.coll_calls;
  }
  CHECK_OK(simple_allreduce(s, v, sum, 3, SIMPLE_DOUBLE, SIMPLE_SUM));
  return (tally_t){sum[0], sum[1], sum[2]};
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  int P = simple_nodes(s), p = simple_nprocs(s);
  unsigned char *a = calloc((size_t)p, N_BYTES), *b = calloc((size_t)p, N_BYTES);
  size_t *counts = calloc((size_t)p, sizeof *counts), *displs = calloc((size_t)p, sizeof *displs);
  CHECK(a && b && counts && displs);
  for (int i = 0; i < p; i++) counts[i] = N_BYTES, displs[i] = (size_t)i * N_BYTES;
  double scan_msgs = 0, scan_bytes = 0;
  for (int mask = 1; mask < P; mask <<= 1)
    for (int k = 0; k < P; k++)
      if ((k ^ mask) < P && ((mask << 1) < P || (k ^ mask) > k)) {
        scan_msgs++;
        scan_bytes += N_BYTES;
      }
  int pof2 = 1, lg = 0;
  while (pof2 * 2 <= P) pof2 *= 2, lg++;
  double rd_msgs = (double)pof2 * lg + 2.0 * (P - pof2);
  double pair_bytes = 0;
  for (int i = 0; i < P; i++)
    for (int j = 0; j < P; j++)
      if (i != j) pair_bytes += (double)simple_threads_on(s, i) * simple_threads_on(s, j) * N_BYTES;
  double others = (double)(p - simple_threads_on(s, 0)) * N_BYTES;
  double mcoll = P > 1 ? P : 0; /* one node: no MPI call at all, or calls with no peer */
  /* An untimed first call of each: connections and scratch. */
  for (int k = 0; k < 11; k++) counted(s, k, a, b, counts, displs);
  for (int k = 0; k < 3; k++) {
    tally_t t = counted(s, k, a, b, counts, displs);
    double msgs = k == 1 && P == 2 ? P - 1 : 0;
    CHECK_EQ(t.msgs, msgs);
    CHECK_EQ(t.bytes, msgs * N_BYTES);
    if (P > 1) CHECK_EQ(t.calls, msgs ? 0 : mcoll);
  }
  for (int k = 3; k < 5; k++) {
    tally_t t = counted(s, k, a, b, counts, displs);
    double msgs = P < 2 ? 0 : k == 3 ? rd_msgs : P - 1;
    CHECK_EQ(t.msgs, msgs);
    CHECK_EQ(t.bytes, msgs * N_BYTES);
  }
  for (int k = 5; k < 7; k++) {
    tally_t t = counted(s, k, a, b, counts, displs);
    CHECK_EQ(t.msgs, P - 1);
    CHECK_EQ(t.bytes, others);
  }
  for (int k = 7; k < 9; k++) {
    tally_t t = counted(s, k, a, b, counts, displs);
    CHECK_EQ(t.msgs, (double)P * (P - 1));
    CHECK_EQ(t.bytes, pair_bytes);
  }
  for (int k = 9; k < 11; k++) {
    tally_t t = counted(s, k, a, b, counts, displs);
    CHECK_EQ(t.msgs, scan_msgs);
    CHECK_EQ(t.bytes, scan_bytes);
  }
  free(a);
  free(b);
  free(counts);
  free(displs);
}

int main(int argc, char **argv) {
  /* Every process a node of its own, even on one host. */
  setenv("SIMPLE_TRAFFIC_PPN", "1", 1);
  int rc = simple_run(&argc, &argv, test, NULL);
  if (rc != 0) fprintf(stderr, "simple_run: %s\n", simple_strerror(rc));
  return rc == 0 ? 0 : 1;
}
