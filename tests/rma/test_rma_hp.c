/* Unbuffered transfers, zero-length transfers and puts to oneself, on both
 * backends: hpput and hpget land by the end of the sync whatever the
 * distance; inside a node they are immediate. */
#include "harness.h"

#define N 33

static void run(simple_t *s, int backend) {
  int p = simple_nprocs(s), me = simple_pid(s);
  CHECK_OK(simple_rma_set_backend(s, backend));
  int *in = calloc((size_t)p * N, sizeof(int));
  int **srcs = malloc(sizeof(int *) * (size_t)p);
  int *got = calloc((size_t)p * N, sizeof(int));
  int pub[N];
  for (int i = 0; i < N; i++) pub[i] = me * 1000 + i;
  CHECK_OK(simple_rma_push_reg(s, in, (size_t)p * N * sizeof(int)));
  CHECK_OK(simple_rma_push_reg(s, pub, sizeof pub));
  CHECK_OK(simple_rma_sync(s));
  for (int d = 0; d < p; d++) {
    /* hpput: the source must stay as it is until the sync, so each d
     * gets a buffer of its own. */
    int *src = srcs[d] = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++) src[i] = me * 100 + d + i;
    CHECK_OK(simple_rma_hpput(s, d, src, in, (size_t)me * N * sizeof(int), N * sizeof(int)));
    CHECK_OK(simple_rma_hpget(s, d, pub, 0, got + (size_t)d * N, N * sizeof(int)));
    /* Zero-length transfers of every kind are legal and do nothing. */
    CHECK_OK(simple_rma_put(s, d, NULL, in, 0, 0));
    CHECK_OK(simple_rma_hpput(s, d, NULL, in, 0, 0));
    CHECK_OK(simple_rma_get(s, d, in, 0, NULL, 0));
    CHECK_OK(simple_rma_hpget(s, d, in, (size_t)p * N * sizeof(int), NULL, 0));
    CHECK_OK(simple_bsmp_send(s, d, NULL, NULL, 0));
    if (simple_node_of(s, d) == simple_node(s)) {
      /* Inside the node, immediate. */
      for (int i = 0; i < N; i++) CHECK_EQ(got[(size_t)d * N + i], d * 1000 + i);
    }
  }
  CHECK_OK(simple_rma_sync(s));
  for (int q = 0; q < p; q++)
    for (int i = 0; i < N; i++) {
      CHECK_EQ(in[(size_t)q * N + i], q * 100 + me + i);
      CHECK_EQ(got[(size_t)q * N + i], q * 1000 + i);
    }
  size_t nm, nb;
  CHECK_OK(simple_bsmp_qsize(s, &nm, &nb));
  CHECK_EQ(nm, p);
  CHECK_EQ(nb, 0);
  /* Only the last processor reads (from processor 0); every other one,
   * and every other node, has nothing to do in this superstep. */
  int probe = -1;
  if (me == p - 1) CHECK_OK(simple_rma_get(s, 0, pub, 4 * sizeof(int), &probe, sizeof probe));
  CHECK_OK(simple_rma_sync(s));
  if (me == p - 1) CHECK_EQ(probe, 4);
  /* Only processor 0 writes (to the last one): its node sends and
   * receives nothing, the last node only receives. */
  int word = 4242;
  if (me == 0) CHECK_OK(simple_rma_put(s, p - 1, &word, pub, 8 * sizeof(int), sizeof word));
  word = 0;
  CHECK_OK(simple_rma_sync(s));
  CHECK_EQ(pub[8], me == p - 1 ? 4242 : me * 1000 + 8);
  /* Put to oneself, buffered: after the sync. */
  int one = 42;
  CHECK_OK(simple_rma_put(s, me, &one, in, 0, sizeof one));
  CHECK_EQ(in[0], 0 * 100 + me);
  CHECK_OK(simple_rma_sync(s));
  CHECK_EQ(in[0], 42);
  CHECK_OK(simple_rma_pop_reg(s, in));
  CHECK_OK(simple_rma_pop_reg(s, pub));
  CHECK_OK(simple_rma_sync(s));
  free(in);
  free(got);
  for (int d = 0; d < p; d++) free(srcs[d]);
  free(srcs);
}

static void spmd(simple_t *s, void *arg) {
  (void)arg;
  run(s, SIMPLE_RMA_TWOSIDED);
  run(s, SIMPLE_RMA_ONESIDED);
}

TEST_MAIN(spmd)
