/* Communicator handles and the transport calls on them: see net_comm.h. */
#include "net/net_comm.h"

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "net/net_state.h"
#include "simple/core.h"

/* simple__comm_bcast_word: up to WORD_COPY_BYTES the word and the data go
 * through a copy on the stack, up to WORD_STAGE_BYTES through one on the
 * heap, as one plain message; above, through a two-block datatype, which
 * Open MPI packs on the way out and unpacks on the way in. The two copies
 * cost less than the datatype while the message stays eager (MPI_Bcast
 * of the word and the data, 3 and 4 processes on the virtual cluster, one
 * program alternating blocks of 50 calls, medians of 31 blocks, time with
 * a heap copy each call over time with the datatype): 1 KiB 0.98, 4 KiB
 * 0.96-0.97, 32 KiB 0.94, 48 KiB 0.92-0.96, 60 KiB 0.94-0.96; from 64 KiB
 * (Open MPI's TCP eager limit), where the datatype's message lands in
 * place, 0.88-1.90 (the copy into a block kept from call to call). Hence
 * 48 KiB, below that limit with room to spare. */
#define WORD_COPY_BYTES  1024
#define WORD_STAGE_BYTES (48u << 10)

int simple__comm_tag_ub(const simple__comm_t *c) {
  int *ub = NULL, flag = 0;
  if (MPI_Comm_get_attr(c->comm, MPI_TAG_UB, &ub, &flag) != MPI_SUCCESS || !flag || !ub)
    return 32767;
  return *ub;
}

int simple__comm_send(simple__comm_t *c, const void *buf, size_t bytes, int dest, int tag) {
  if (bytes > INT_MAX) return SIMPLE_ERR_COUNT;
  return simple__net_ok(
      SIMPLE__NET_WATCHED(MPI_Send(buf, (int)bytes, MPI_BYTE, dest, tag, c->comm)));
}

/* A started request r (rc: the call that started it) into its opaque slot
 * *req: 0, or SIMPLE_ERR_MPI. */
static int started(int rc, const MPI_Request *r, long long *req) {
  if (rc != MPI_SUCCESS) return SIMPLE_ERR_MPI;
  memcpy(req, r, sizeof *r);
  return 0;
}

int simple__comm_isend(simple__comm_t *c, const void *buf, size_t bytes, int dest, int tag,
                       long long *req) {
  if (bytes > INT_MAX) return SIMPLE_ERR_COUNT;
  MPI_Request r;
  return started(MPI_Isend(buf, (int)bytes, MPI_BYTE, dest, tag, c->comm, &r), &r, req);
}

int simple__comm_improbe(simple__comm_t *c, int *found, int *src, int *tag, size_t *bytes,
                         long long *match) {
  MPI_Message m;
  MPI_Status st;
  int flag = 0;
  if (MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, c->comm, &flag, &m, &st) != MPI_SUCCESS)
    return SIMPLE_ERR_MPI;
  *found = flag;
  if (!flag) return 0;
  int count = 0;
  MPI_Get_count(&st, MPI_BYTE, &count);
  *src = st.MPI_SOURCE;
  *tag = st.MPI_TAG;
  *bytes = (size_t)count;
  memcpy(match, &m, sizeof m);
  return 0;
}

/* A receive's MPI count: a buffer larger than one count takes messages up
 * to INT_MAX bytes, all that one MPI_BYTE message can hold (a matched
 * message's size came from an int count). */
static int recv_count(size_t bytes) { return bytes > INT_MAX ? INT_MAX : (int)bytes; }

int simple__comm_mrecv(long long *match, void *buf, size_t bytes) {
  MPI_Message m;
  memcpy(&m, match, sizeof m);
  int rc = SIMPLE__NET_WATCHED(MPI_Mrecv(buf, recv_count(bytes), MPI_BYTE, &m, MPI_STATUS_IGNORE));
  return simple__net_ok(rc);
}

int simple__comm_imrecv(long long *match, void *buf, size_t bytes, long long *req) {
  MPI_Message m;
  MPI_Request r;
  memcpy(&m, match, sizeof m);
  return started(MPI_Imrecv(buf, recv_count(bytes), MPI_BYTE, &m, &r), &r, req);
}

int simple__comm_irecv(simple__comm_t *c, void *buf, size_t bytes, int src, int tag,
                       long long *req) {
  MPI_Request r;
  return started(
      MPI_Irecv(buf, recv_count(bytes), MPI_BYTE, src, tag < 0 ? MPI_ANY_TAG : tag, c->comm, &r),
      &r, req);
}

/* An MPI return code as ours: a truncated message is the caller's error. */
static int recv_rc(int rc) {
  if (rc == MPI_SUCCESS) return 0;
  int cls = MPI_ERR_OTHER;
  MPI_Error_class(rc, &cls);
  return cls == MPI_ERR_TRUNCATE ? SIMPLE_ERR_TRUNCATE : SIMPLE_ERR_MPI;
}

static int status_out(int rc, MPI_Status *st, int *tag, size_t *bytes) {
  if (recv_rc(rc) == SIMPLE_ERR_MPI) return SIMPLE_ERR_MPI;
  int count = 0;
  MPI_Get_count(st, MPI_BYTE, &count);
  if (tag) *tag = st->MPI_TAG;
  if (bytes) *bytes = count == MPI_UNDEFINED ? 0 : (size_t)count;
  return rc == MPI_SUCCESS ? 0 : SIMPLE_ERR_TRUNCATE;
}

int simple__comm_recv(simple__comm_t *c, void *buf, size_t bytes, int src, int tag, int *mtag,
                      size_t *got) {
  /* No status asked of MPI when the caller wants none. */
  MPI_Status st, *want = mtag || got ? &st : MPI_STATUS_IGNORE;
  int rc = SIMPLE__NET_WATCHED(
      MPI_Recv(buf, recv_count(bytes), MPI_BYTE, src, tag < 0 ? MPI_ANY_TAG : tag, c->comm, want));
  return want == &st ? status_out(rc, &st, mtag, got) : recv_rc(rc);
}

int simple__comm_test(long long *req, int *done, int *tag, size_t *bytes) {
  MPI_Request r;
  MPI_Status st;
  memcpy(&r, req, sizeof r);
  int rc = MPI_Test(&r, done, &st);
  memcpy(req, &r, sizeof r);
  if (!*done && rc == MPI_SUCCESS) return 0;
  *done = 1;
  return status_out(rc, &st, tag, bytes);
}

int simple__comm_wait(long long *req, int *tag, size_t *bytes) {
  MPI_Request r;
  MPI_Status st;
  memcpy(&r, req, sizeof r);
  int rc = SIMPLE__NET_WATCHED(MPI_Wait(&r, &st));
  memcpy(req, &r, sizeof r);
  return status_out(rc, &st, tag, bytes);
}

int simple__comm_barrier(simple__comm_t *c) {
  return simple__net_ok(SIMPLE__NET_WATCHED(MPI_Barrier(c->comm)));
}

int simple__comm_vote_start(simple__comm_t *c, int word, simple__comm_vote_t *v) {
  v->word = v->max = word;
  MPI_Request r;
  int rc = started(MPI_Iallreduce(&v->word, &v->max, 1, MPI_INT, MPI_MAX, c->comm, &r), &r, v->req);
  v->nreq = !rc;
  return rc;
}

int simple__comm_vote_wait(simple__comm_vote_t *v) {
  int rc = 0;
  for (int i = 0; i < v->nreq; i++) {
    MPI_Request r;
    memcpy(&r, &v->req[i], sizeof r);
    if (SIMPLE__NET_WATCHED(MPI_Wait(&r, MPI_STATUS_IGNORE)) != MPI_SUCCESS) rc = SIMPLE_ERR_MPI;
  }
  v->nreq = 0;
  return rc;
}

int simple__comm_bcast(simple__comm_t *c, void *buf, size_t bytes, int root) {
  /* An empty buffer still takes one (empty) broadcast, the loop's one pass. */
  for (size_t off = 0; off < bytes || (bytes == 0 && off == 0); off += SIMPLE__NET_PART_BYTES) {
    int len = (int)(bytes - off < SIMPLE__NET_PART_BYTES ? bytes - off : SIMPLE__NET_PART_BYTES);
    int rc = SIMPLE__NET_WATCHED(MPI_Bcast((char *)buf + off, len, MPI_BYTE, root, c->comm));
    if (rc != MPI_SUCCESS) return SIMPLE_ERR_MPI;
  }
  return 0;
}

int simple__comm_bcast_word(simple__comm_t *c, long long *word, void *buf, size_t bytes, int root) {
  void *tmp = NULL;
  if (bytes && !buf && !(buf = tmp = calloc(1, bytes))) return SIMPLE_ERR_NOMEM;
  int rc;
  long long st_stack[1 + WORD_COPY_BYTES / sizeof(long long)], *st = NULL;
  if (bytes == 0 || bytes > SIMPLE__NET_PART_BYTES) {
    /* Nothing to carry the word, or more than one MPI count: the word goes
     * alone first (an extra message only beyond 1 GiB). */
    rc = simple__net_ok(SIMPLE__NET_WATCHED(MPI_Bcast(word, 1, MPI_LONG_LONG, root, c->comm)));
    if (!rc && bytes && !(*word & 1)) rc = simple__comm_bcast(c, buf, bytes, root);
  } else if (bytes <= WORD_STAGE_BYTES &&
             (st = bytes <= WORD_COPY_BYTES ? st_stack : malloc(sizeof *word + bytes))) {
    /* Word and data copied into one block, one plain message. */
    st[0] = *word;
    if (c->rank == root) memcpy(st + 1, buf, bytes);
    rc = simple__net_ok(
        SIMPLE__NET_WATCHED(MPI_Bcast(st, (int)(sizeof *word + bytes), MPI_BYTE, root, c->comm)));
    if (!rc && c->rank != root) {
      *word = st[0];
      if (!(*word & 1)) memcpy(buf, st + 1, bytes);
    }
    if (st != st_stack) free(st);
  } else {
    /* One message over both places: the word, then the data (also where
     * the heap copy's block could not be had: the type signature, bytes + 8
     * bytes, matches the other processes' either way). */
    int len[2] = {(int)sizeof *word, (int)bytes};
    MPI_Aint at[2];
    MPI_Datatype t;
    MPI_Get_address(word, &at[0]);
    MPI_Get_address(buf, &at[1]);
    rc = simple__net_ok(MPI_Type_create_hindexed(2, len, at, MPI_BYTE, &t));
    if (!rc) {
      if (!(rc = simple__net_ok(MPI_Type_commit(&t))))
        rc = simple__net_ok(SIMPLE__NET_WATCHED(MPI_Bcast(MPI_BOTTOM, 1, t, root, c->comm)));
      MPI_Type_free(&t);
    }
  }
  free(tmp);
  return rc;
}

int simple__comm_allgather(simple__comm_t *c, const void *sbuf, size_t bytes, void *rbuf) {
  if (bytes > INT_MAX) return SIMPLE_ERR_COUNT;
  return simple__net_ok(SIMPLE__NET_WATCHED(
      MPI_Allgather(sbuf, (int)bytes, MPI_BYTE, rbuf, (int)bytes, MPI_BYTE, c->comm)));
}

int simple__comm_alltoall_u64(simple__comm_t *c, const uint64_t *send, uint64_t *recv, int per) {
  return simple__net_ok(
      SIMPLE__NET_WATCHED(MPI_Alltoall(send, per, MPI_UINT64_T, recv, per, MPI_UINT64_T, c->comm)));
}

/* MPI's int counts and displacements of an allgatherv (*out: counts, then
 * displacements; the caller frees it). SIMPLE_ERR_COUNT when one does not
 * fit an int: every node checks the same counts, so all go on, or none. */
static int int_counts(int P, const size_t *counts, const size_t *displs, int **out) {
  int *cn = malloc(sizeof(int) * 2 * (size_t)P);
  *out = cn;
  if (!cn) return SIMPLE_ERR_NOMEM;
  int rc = 0;
  for (int k = 0; k < P; k++) {
    if (counts[k] > INT_MAX || displs[k] > INT_MAX) rc = SIMPLE_ERR_COUNT;
    cn[k] = (int)counts[k];
    cn[P + k] = (int)displs[k];
  }
  return rc;
}

int simple__comm_allgatherv(simple__comm_t *c, const void *sbuf, const size_t *counts,
                            const size_t *displs, void *rbuf) {
  /* Equal blocks back to back (every node with as many threads and
   * elements): MPI_Allgather, which needs no int copies of the arrays (a
   * malloc) and whose schedules for equal blocks MPI tunes; ~230
   * instructions a call fewer on 2 nodes (callgrind, Open MPI 4.1). */
  int equal = 1;
  for (int k = 1; k < c->size && equal; k++)
    equal = counts[k] == counts[0] && displs[k] == displs[k - 1] + counts[0];
  if (equal && displs[0] == 0) return simple__comm_allgather(c, sbuf, counts[0], rbuf);
  int *cn, rc = int_counts(c->size, counts, displs, &cn), *d = cn ? cn + c->size : NULL;
  if (!rc)
    rc = simple__net_ok(SIMPLE__NET_WATCHED(
        MPI_Allgatherv(sbuf, cn[c->rank], MPI_BYTE, rbuf, cn, d, MPI_BYTE, c->comm)));
  free(cn);
  return rc;
}

int simple__comm_open_slot(simple__node_t *n, void **slot) {
  simple__comm_t *c = NULL;
  int rc = simple__comm_dup(n, &c);
  *slot = c;
  return rc;
}

void simple__comm_close_slot(void **slot) {
  simple__comm_t *c = *slot;
  simple__comm_free(&c);
  *slot = NULL;
}
