#include "net/net.h"

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "net/net_state.h"
#include "simple/core.h"

/* MPI counts are ints: larger messages go in pieces of this many bytes. */
#define PART_BYTES ((size_t)1 << 30)
/* simple__net_bcast_word: up to this many bytes go through a stack copy. */
#define WORD_COPY_BYTES 1024

int simple__net_open(simple__node_t *n) {
  simple__net_t *t = calloc(1, sizeof *t);
  if (!t) return SIMPLE_ERR_NOMEM;
  MPI_Comm base = *(MPI_Comm *)n->comm;
  int maxthreads = 1;
  for (int k = 0; k < n->nodes; k++)
    if (n->threads_of[k] > maxthreads) maxthreads = n->threads_of[k];
  t->nlanes = maxthreads < SIMPLE__NET_MAX_LANES ? maxthreads : SIMPLE__NET_MAX_LANES;
  int rc = MPI_Comm_dup(base, &t->coll);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_dup(base, &t->msg);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_dup(base, &t->rma);
  for (int l = 0; l < t->nlanes && rc == MPI_SUCCESS; l++) {
    rc = MPI_Comm_dup(base, &t->lane[l]);
    if (rc == MPI_SUCCESS) MPI_Comm_set_errhandler(t->lane[l], MPI_ERRORS_RETURN);
  }
  MPI_Comm_set_errhandler(t->coll, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(t->msg, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(t->rma, MPI_ERRORS_RETURN);
  n->net = t;
  n->lanes = t->nlanes;
  return simple__net_ok(rc);
}

void simple__net_close(simple__node_t *n) {
  simple__net_t *t = simple__net(n);
  if (!t) return;
  for (int l = 0; l < t->nlanes; l++) MPI_Comm_free(&t->lane[l]);
  MPI_Comm_free(&t->rma);
  MPI_Comm_free(&t->msg);
  MPI_Comm_free(&t->coll);
  free(t);
  n->net = NULL;
}

static MPI_Comm lane_comm(simple__node_t *n, int lane) {
  simple__net_t *t = simple__net(n);
  return t->lane[lane % t->nlanes];
}

/* Splits a transfer into int-sized parts; each part gets its own request. */
static int post(simple__node_t *n, int lane, void *buf, size_t bytes, int peer, int tag,
                simple__net_req_t *req, int is_send) {
  MPI_Comm c = lane_comm(n, lane);
  size_t parts = bytes == 0 ? 1 : (bytes + PART_BYTES - 1) / PART_BYTES;
  if (parts > SIMPLE__NET_REQ_PARTS) return SIMPLE_ERR_COUNT;
  req->nparts = (int)parts;
  req->markable = !is_send && bytes > 0;
  for (size_t p = 0; p < parts; p++) {
    size_t off = p * PART_BYTES;
    int len = (int)(bytes - off < PART_BYTES ? bytes - off : PART_BYTES);
    MPI_Request r;
    int rc = is_send ? MPI_Isend((char *)buf + off, len, MPI_BYTE, peer, tag, c, &r)
                     : MPI_Irecv((char *)buf + off, len, MPI_BYTE, peer, tag, c, &r);
    if (rc != MPI_SUCCESS) return SIMPLE_ERR_MPI;
    _Static_assert(sizeof(MPI_Request) <= sizeof(long long), "MPI_Request fits the slot");
    memcpy(&req->part[p], &r, sizeof r);
  }
  return 0;
}

int simple__net_isend(simple__node_t *n, int lane, const void *buf, size_t bytes, int dest, int tag,
                      simple__net_req_t *req) {
  return post(n, lane, (void *)buf, bytes, dest, tag, req, 1);
}

int simple__net_irecv(simple__node_t *n, int lane, void *buf, size_t bytes, int src, int tag,
                      simple__net_req_t *req) {
  return post(n, lane, buf, bytes, src, tag, req, 0);
}

/* Whether a completed receive of a non-empty message got an error mark
 * (nothing of it was written: it was empty). */
static int is_mark(const MPI_Status *st) {
  int count = 0;
  MPI_Get_count(st, MPI_BYTE, &count);
  return count == 0;
}

int simple__net_waitall(simple__net_req_t *reqs, int count) {
  int rc = 0;
  for (int i = 0; i < count; i++)
    for (int p = 0; p < reqs[i].nparts; p++) {
      MPI_Request r;
      MPI_Status st;
      memcpy(&r, &reqs[i].part[p], sizeof r);
      /* A request that simple__net_testall completed is MPI_REQUEST_NULL,
       * whose wait returns an empty status: no mark. */
      int live = r != MPI_REQUEST_NULL;
      if (SIMPLE__NET_WATCHED(MPI_Wait(&r, &st)) != MPI_SUCCESS) {
        rc = SIMPLE_ERR_MPI;
      } else if (live && p == 0 && reqs[i].markable && is_mark(&st)) {
        /* A mark came instead of the first part: the message's other
         * parts will never come, so their receives are taken back. */
        for (int q = 1; q < reqs[i].nparts; q++) {
          memcpy(&r, &reqs[i].part[q], sizeof r);
          MPI_Cancel(&r);
          MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        if (!rc) rc = SIMPLE__NET_MARK;
        break;
      }
    }
  return rc;
}

int simple__net_testall(simple__net_req_t *reqs, int count, int *done) {
  int rc = 0, all = 1;
  for (int i = 0; i < count; i++)
    for (int p = 0; p < reqs[i].nparts; p++) {
      MPI_Request r;
      memcpy(&r, &reqs[i].part[p], sizeof r);
      if (r == MPI_REQUEST_NULL) continue;
      int flag = 0;
      if (MPI_Test(&r, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        rc = SIMPLE_ERR_MPI;
        flag = 1;
        r = MPI_REQUEST_NULL; /* not waited for again */
      }
      /* MPI_Test released a completed request (MPI_REQUEST_NULL): keep
       * that, so that nobody tests or waits on a freed handle. */
      memcpy(&reqs[i].part[p], &r, sizeof r);
      if (!flag) all = 0;
    }
  *done = all;
  return rc;
}

int simple__net_mark(simple__node_t *n, int lane, int dest, int tag, simple__net_req_t *req) {
  return post(n, lane, NULL, 0, dest, tag, req, 1);
}

int simple__net_drain(simple__node_t *n, int lane, int src, int tag) {
  MPI_Message m;
  MPI_Status st;
  if (SIMPLE__NET_WATCHED(MPI_Mprobe(src, tag, lane_comm(n, lane), &m, &st)) != MPI_SUCCESS)
    return SIMPLE_ERR_MPI;
  int count = 0;
  MPI_Get_count(&st, MPI_BYTE, &count);
  void *tmp = count ? malloc((size_t)count) : NULL;
  if (count && !tmp) return SIMPLE_ERR_NOMEM;
  int rc = simple__net_ok(MPI_Mrecv(tmp, count, MPI_BYTE, &m, MPI_STATUS_IGNORE));
  free(tmp);
  return rc;
}

int simple__net_send(simple__node_t *n, int lane, const void *buf, size_t bytes, int dest,
                     int tag) {
  if (bytes <= PART_BYTES)
    return simple__net_ok(
        SIMPLE__NET_WATCHED(MPI_Send(buf, (int)bytes, MPI_BYTE, dest, tag, lane_comm(n, lane))));
  simple__net_req_t r;
  int rc = simple__net_isend(n, lane, buf, bytes, dest, tag, &r);
  return rc ? rc : simple__net_waitall(&r, 1);
}

int simple__net_recv(simple__node_t *n, int lane, void *buf, size_t bytes, int src, int tag) {
  if (bytes <= PART_BYTES) {
    MPI_Status st;
    int rc = simple__net_ok(SIMPLE__NET_WATCHED(
        MPI_Recv(buf, (int)bytes, MPI_BYTE, src, tag, lane_comm(n, lane), &st)));
    return !rc && bytes && is_mark(&st) ? SIMPLE__NET_MARK : rc;
  }
  simple__net_req_t r;
  int rc = simple__net_irecv(n, lane, buf, bytes, src, tag, &r);
  return rc ? rc : simple__net_waitall(&r, 1);
}

int simple__net_sendrecv(simple__node_t *n, int lane, const void *sbuf, size_t sbytes, int dest,
                         void *rbuf, size_t rbytes, int src, int tag) {
  if (sbytes <= PART_BYTES && rbytes <= PART_BYTES && dest >= 0 && src >= 0) {
    MPI_Status st;
    int rc = simple__net_ok(
        SIMPLE__NET_WATCHED(MPI_Sendrecv(sbuf, (int)sbytes, MPI_BYTE, dest, tag, rbuf, (int)rbytes,
                                         MPI_BYTE, src, tag, lane_comm(n, lane), &st)));
    return !rc && rbytes && is_mark(&st) ? SIMPLE__NET_MARK : rc;
  }
  simple__net_req_t r[2];
  int k = 0, rc = 0;
  if (src >= 0) rc = simple__net_irecv(n, lane, rbuf, rbytes, src, tag, &r[k++]);
  if (!rc && dest >= 0) rc = simple__net_isend(n, lane, sbuf, sbytes, dest, tag, &r[k++]);
  int rc2 = simple__net_waitall(r, k);
  return rc ? rc : rc2;
}

int simple__net_barrier(simple__node_t *n) {
  return simple__net_ok(SIMPLE__NET_WATCHED(MPI_Barrier(simple__net(n)->coll)));
}

int simple__net_bcast(simple__node_t *n, void *buf, size_t bytes, int root) {
  for (size_t off = 0; off < bytes || (bytes == 0 && off == 0); off += PART_BYTES) {
    int len = (int)(bytes - off < PART_BYTES ? bytes - off : PART_BYTES);
    if (SIMPLE__NET_WATCHED(
            MPI_Bcast((char *)buf + off, len, MPI_BYTE, root, simple__net(n)->coll)) != MPI_SUCCESS)
      return SIMPLE_ERR_MPI;
    if (bytes == 0) break;
  }
  return 0;
}

int simple__net_bcast_word(simple__node_t *n, long long *word, void *buf, size_t bytes, int root) {
  MPI_Comm c = simple__net(n)->coll;
  void *tmp = NULL;
  if (bytes && !buf && !(buf = tmp = calloc(1, bytes))) return SIMPLE_ERR_NOMEM;
  int rc;
  if (bytes == 0 || bytes > PART_BYTES) {
    /* Nothing to carry the word, or more than one MPI count: the word goes
     * alone first (an extra message only beyond 1 GiB). */
    rc = simple__net_ok(SIMPLE__NET_WATCHED(MPI_Bcast(word, 1, MPI_LONG_LONG, root, c)));
    if (!rc && bytes && !(*word & 1)) rc = simple__net_bcast(n, buf, bytes, root);
  } else if (bytes <= WORD_COPY_BYTES) {
    /* Small: word and data copied through the stack, one plain message
     * (cheaper than building a datatype, ~1 us). */
    long long st[1 + WORD_COPY_BYTES / sizeof(long long)];
    st[0] = *word;
    if (n->node == root) memcpy(st + 1, buf, bytes);
    rc = simple__net_ok(
        SIMPLE__NET_WATCHED(MPI_Bcast(st, (int)(sizeof *word + bytes), MPI_BYTE, root, c)));
    if (!rc && n->node != root) {
      *word = st[0];
      if (!(*word & 1)) memcpy(buf, st + 1, bytes);
    }
  } else {
    /* One message over both places: the word, then the data. */
    int len[2] = {(int)sizeof *word, (int)bytes};
    MPI_Aint at[2];
    MPI_Datatype t;
    MPI_Get_address(word, &at[0]);
    MPI_Get_address(buf, &at[1]);
    rc = simple__net_ok(MPI_Type_create_hindexed(2, len, at, MPI_BYTE, &t));
    if (!rc) {
      if (!(rc = simple__net_ok(MPI_Type_commit(&t))))
        rc = simple__net_ok(SIMPLE__NET_WATCHED(MPI_Bcast(MPI_BOTTOM, 1, t, root, c)));
      MPI_Type_free(&t);
    }
  }
  free(tmp);
  return rc;
}

int simple__net_allgather(simple__node_t *n, const void *sbuf, size_t bytes, void *rbuf) {
  if (bytes > INT_MAX) return SIMPLE_ERR_COUNT;
  return simple__net_ok(SIMPLE__NET_WATCHED(
      MPI_Allgather(sbuf, (int)bytes, MPI_BYTE, rbuf, (int)bytes, MPI_BYTE, simple__net(n)->coll)));
}

int simple__net_allgatherv(simple__node_t *n, const void *sbuf, const size_t *counts,
                           const size_t *displs, void *rbuf) {
  int P = n->nodes;
  int *c = malloc(sizeof(int) * 2 * (size_t)P);
  if (!c) return SIMPLE_ERR_NOMEM;
  int *d = c + P, rc = 0;
  for (int k = 0; k < P; k++) {
    if (counts[k] > INT_MAX || displs[k] > INT_MAX) rc = SIMPLE_ERR_COUNT;
    c[k] = (int)counts[k];
    d[k] = (int)displs[k];
  }
  if (!rc)
    rc = simple__net_ok(SIMPLE__NET_WATCHED(
        MPI_Allgatherv(sbuf, c[n->node], MPI_BYTE, rbuf, c, d, MPI_BYTE, simple__net(n)->coll)));
  free(c);
  return rc;
}
