/* The communicator handles of src/net (net_comm.h) driven directly under
 * every job layout, by thread 0 of every node (the other threads wait):
 * two duplicates are separate matching spaces (a message sent on one is
 * never received on the other, whatever its source and tag); a receive
 * too small for its message completes with SIMPLE_ERR_TRUNCATE; a matched
 * probe hands over a message once; and the collectives on a handle give
 * what a closed form of (node, index) says. Links the static library:
 * src/net is internal. */
#include <mpi.h> /* OPEN_MPI: which truncation behaviour to expect */
#include <sched.h>
#include <string.h>

#include "harness.h"
#include "net/net_comm.h"

#define WORDS 3

static void isolation(simple_t *s, simple__comm_t *a, simple__comm_t *b, int me, int P) {
  int to = (me + 1) % P, from = (me + P - 1) % P, tag = 0;
  long long va = 1000 + me, vb = 2000 + me, ra = 0, rb = 0, qa, qb;
  size_t got = 0;
  /* Same destination, same tag, a first: the receive on b must still get
   * b's message. */
  CHECK_OK(simple__comm_isend(a, &va, sizeof va, to, 7, &qa));
  CHECK_OK(simple__comm_isend(b, &vb, sizeof vb, to, 7, &qb));
  CHECK_OK(simple__comm_recv(b, &rb, sizeof rb, from, -1, &tag, &got));
  CHECK_EQ(rb, 2000 + from);
  CHECK_EQ(tag, 7);
  CHECK_EQ(got, sizeof rb);
  CHECK_OK(simple__comm_recv(a, &ra, sizeof ra, from, 7, NULL, NULL));
  CHECK_EQ(ra, 1000 + from);
  CHECK_OK(simple__comm_wait(&qa, NULL, NULL));
  CHECK_OK(simple__comm_wait(&qb, NULL, NULL));
}

static void truncation_and_probe(simple_t *s, simple__comm_t *a, int me, int P) {
  int to = (me + 1) % P, from = (me + P - 1) % P;
  long long two[2] = {me, -me}, one = 0, q, r;
  /* Sixteen bytes into eight: the receive says so, and the buffer holds
   * the first eight (Open MPI) or what it held (MPICH), never anything
   * else (net_comm.h). */
  CHECK_OK(simple__comm_irecv(a, &one, sizeof one, from, 3, &r));
  CHECK_OK(simple__comm_isend(a, two, sizeof two, to, 3, &q));
  CHECK_RC(simple__comm_wait(&r, NULL, NULL), SIMPLE_ERR_TRUNCATE);
#ifdef OPEN_MPI
  CHECK_EQ(one, from);
#else
  CHECK(one == from || one == 0);
#endif
  CHECK_OK(simple__comm_wait(&q, NULL, NULL));
  /* A matched probe: found once, with its source, tag and size. */
  CHECK_OK(simple__comm_isend(a, two, sizeof two, to, 4, &q));
  int found = 0, src = -1, tag = -1;
  size_t bytes = 0;
  long long match = 0, in[2] = {0, 0};
  while (!found) {
    CHECK_OK(simple__comm_improbe(a, &found, &src, &tag, &bytes, &match));
    if (!found) sched_yield(); /* 2 cores, up to 8 threads */
  }
  CHECK_EQ(src, from);
  CHECK_EQ(tag, 4);
  CHECK_EQ(bytes, sizeof two);
  CHECK_OK(simple__comm_mrecv(&match, in, bytes));
  CHECK_EQ(in[0], from);
  CHECK_EQ(in[1], -from);
  CHECK_OK(simple__comm_wait(&q, NULL, NULL));
}

static void collectives(simple_t *s, simple__comm_t *c, int me, int P) {
  CHECK_OK(simple__comm_barrier(c));
  /* alltoall: node me sends k the words me * 100 + k * 10 + j. */
  uint64_t snd[8 * WORDS], rcv[8 * WORDS];
  for (int k = 0; k < P; k++)
    for (int j = 0; j < WORDS; j++) snd[k * WORDS + j] = (uint64_t)(me * 100 + k * 10 + j);
  CHECK_OK(simple__comm_alltoall_u64(c, snd, rcv, WORDS));
  for (int k = 0; k < P; k++)
    for (int j = 0; j < WORDS; j++) CHECK_EQ(rcv[k * WORDS + j], k * 100 + me * 10 + j);
  /* allgatherv: node k gives k + 1 bytes of value k, packed in reverse
   * node order; allgather: one int each. */
  size_t counts[8], displs[8], at = 0;
  for (int k = P - 1; k >= 0; k--) {
    counts[k] = (size_t)k + 1;
    displs[k] = at;
    at += counts[k];
  }
  unsigned char mine[8], all[64];
  memset(mine, me, sizeof mine);
  CHECK_OK(simple__comm_allgatherv(c, mine, counts, displs, all));
  for (int k = 0; k < P; k++)
    for (size_t i = 0; i < counts[k]; i++) CHECK_EQ(all[displs[k] + i], k);
  int ids[8] = {0}, id = me * 3;
  CHECK_OK(simple__comm_allgather(c, &id, sizeof id, ids));
  for (int k = 0; k < P; k++) CHECK_EQ(ids[k], k * 3);
  /* bcast_word from the last node: each size path (word alone, stack
   * copy, one datatype), with a zero word (the data travels) and a
   * non-zero one (the word travels; the data does not matter). */
  static unsigned char buf[4096];
  size_t sizes[] = {0, 100, 1024, 4096};
  for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
    for (long long verdict = 0; verdict < 2; verdict++) {
      size_t bytes = sizes[z];
      long long word = me == P - 1 ? verdict : 77;
      memset(buf, me == P - 1 ? 0xab : 0x11, bytes);
      CHECK_OK(simple__comm_bcast_word(c, &word, buf, bytes, P - 1));
      CHECK_EQ(word, verdict);
      for (size_t i = 0; i < bytes && !verdict; i++) CHECK_EQ(buf[i], 0xab);
    }
  CHECK_OK(simple__comm_bcast(c, buf, 16, 0));
}

static void body(simple_t *s, void *arg) {
  (void)arg;
  simple__node_t *n = s->node;
  int P = n->nodes, me = n->node;
  CHECK(P <= 8);
  if (s->thread == 0) {
    simple__comm_t *a = NULL, *b = NULL;
    CHECK_OK(simple__comm_dup(n, &a));
    CHECK_OK(simple__comm_dup(n, &b));
    CHECK(simple__comm_tag_ub(a) >= 32767);
    if (P > 1) {
      isolation(s, a, b, me, P);
      truncation_and_probe(s, a, me, P);
    }
    collectives(s, b, me, P);
    simple__comm_free(&a);
    simple__comm_free(&b);
    CHECK(a == NULL && b == NULL);
    simple__comm_free(&a); /* NULL: nothing */
  }
  CHECK_OK(simple_barrier(s));
}

TEST_MAIN(body)
