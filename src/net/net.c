#include "net/net.h"

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "net/net_state.h"
#include "simple/core.h"

int simple__comm_init(simple__comm_t *c, MPI_Comm base) {
  c->comm = MPI_COMM_NULL;
  if (SIMPLE__NET_WATCHED(MPI_Comm_dup(base, &c->comm)) != MPI_SUCCESS) return SIMPLE_ERR_MPI;
  MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(c->comm, &c->rank);
  MPI_Comm_size(c->comm, &c->size);
  return 0;
}

int simple__comm_dup(simple__node_t *n, simple__comm_t **out) {
  *out = NULL;
  /* The duplicate first, so that every node makes the same collective
   * calls whatever fails locally. From the job's communicator, which
   * nothing else uses once the job runs, so that making a duplicate never
   * interleaves with any layer's traffic. */
  simple__comm_t tmp;
  int rc = simple__comm_init(&tmp, *(MPI_Comm *)n->comm);
  if (rc) return rc;
  if (!(*out = malloc(sizeof tmp))) {
    MPI_Comm_free(&tmp.comm);
    return SIMPLE_ERR_NOMEM;
  }
  **out = tmp;
  return 0;
}

void simple__comm_free(simple__comm_t **c) {
  if (!*c) return;
  MPI_Comm_free(&(*c)->comm);
  free(*c);
  *c = NULL;
}

/* Splits a transfer into int-sized parts; each part gets its own request. */
static int post(simple__comm_t *comm, void *buf, size_t bytes, int peer, int tag,
                simple__net_req_t *req, int is_send) {
  MPI_Comm c = comm->comm;
  size_t parts = bytes == 0 ? 1 : (bytes + SIMPLE__NET_PART_BYTES - 1) / SIMPLE__NET_PART_BYTES;
  if (parts > SIMPLE__NET_REQ_PARTS) return SIMPLE_ERR_COUNT;
  req->nparts = (int)parts;
  req->markable = !is_send && bytes > 0;
  for (size_t p = 0; p < parts; p++) {
    size_t off = p * SIMPLE__NET_PART_BYTES;
    int len = (int)(bytes - off < SIMPLE__NET_PART_BYTES ? bytes - off : SIMPLE__NET_PART_BYTES);
    MPI_Request r;
    int rc = is_send ? MPI_Isend((char *)buf + off, len, MPI_BYTE, peer, tag, c, &r)
                     : MPI_Irecv((char *)buf + off, len, MPI_BYTE, peer,
                                 tag < 0 ? MPI_ANY_TAG : tag, c, &r);
    if (rc != MPI_SUCCESS) return SIMPLE_ERR_MPI;
    memcpy(&req->part[p], &r, sizeof r);
  }
  return 0;
}

int simple__net_isend(simple__comm_t *c, const void *buf, size_t bytes, int dest, int tag,
                      simple__net_req_t *req) {
  return post(c, (void *)buf, bytes, dest, tag, req, 1);
}

int simple__net_irecv(simple__comm_t *c, void *buf, size_t bytes, int src, int tag,
                      simple__net_req_t *req) {
  return post(c, buf, bytes, src, tag, req, 0);
}

/* Entries on the stack; more take an allocation. */
#define ENTRIES_ON_STACK 16

/* One entry of a transfer's datatype: len bytes at `at`, or (count > 0)
 * count lines of len bytes, stride apart. */
typedef struct {
  MPI_Aint at, stride;
  int len, count;
} entry_t;

/* Appends an entry; -1 when `most` are there already. */
static int add_entry(entry_t *e, int *m, int most, const char *at, size_t len, size_t count,
                     size_t stride) {
  if (*m == most) return -1;
  entry_t *x = &e[(*m)++];
  MPI_Get_address(at, &x->at);
  x->len = (int)len;
  x->count = (int)count;
  x->stride = (MPI_Aint)stride;
  return 0;
}

/* The entries of piece p for its bytes [off, off + take): one for a
 * stretch; for lines, a partial first line, the whole lines as one
 * vector (or a plain entry where there is one), a partial last line. */
static int cover_piece(const simple__net_piece_t *p, size_t off, size_t take, entry_t *e, int *m,
                       int most) {
  if (p->lines <= 1) return add_entry(e, m, most, (char *)p->buf + off, take, 0, 0);
  size_t line = p->bytes, k = off / line, in = off % line;
  const char *at = (char *)p->buf + k * p->stride;
  if (in) {
    size_t head = line - in < take ? line - in : take;
    if (add_entry(e, m, most, at + in, head, 0, 0)) return -1;
    take -= head;
    at += p->stride;
  }
  size_t whole = take / line;
  if (whole && add_entry(e, m, most, at, line, whole > 1 ? whole : 0, p->stride)) return -1;
  take -= whole * line;
  at += whole * p->stride;
  return take ? add_entry(e, m, most, at, take, 0, 0) : 0;
}

/* The pieces' entries for bytes [off, off + bytes): at most `most` of
 * them. Returns how many, or -1 when more than `most` are needed. */
static int cover(const simple__net_piece_t *pc, int np, size_t off, size_t bytes, entry_t *e,
                 int most) {
  int m = 0;
  for (int i = 0; i < np && bytes; i++) {
    size_t total = simple__net_piece_bytes(&pc[i]);
    if (off >= total) {
      off -= total;
      continue;
    }
    size_t take = total - off < bytes ? total - off : bytes;
    if (cover_piece(&pc[i], off, take, e, &m, most)) return -1;
    bytes -= take;
    off = 0;
  }
  return m;
}

/* The datatype of m entries: indexed where every entry is one stretch,
 * else a struct of stretches and vectors of lines. MPI_SUCCESS or its
 * error, *t committed on success. */
static int entries_type(const entry_t *e, int m, MPI_Datatype *t) {
  int lines = 0, rc = MPI_SUCCESS;
  for (int i = 0; i < m; i++) lines |= e[i].count > 0;
  int len_s[ENTRIES_ON_STACK], *len = len_s;
  MPI_Aint at_s[ENTRIES_ON_STACK], *at = at_s;
  MPI_Datatype ty_s[ENTRIES_ON_STACK], *ty = ty_s;
  if (m > ENTRIES_ON_STACK) {
    len = malloc((size_t)m * sizeof *len);
    at = malloc((size_t)m * sizeof *at);
    if (lines) ty = malloc((size_t)m * sizeof *ty);
  }
  int made = 0; /* the entries before this one have their types (to free) */
  if (!len || !at || !ty) rc = MPI_ERR_NO_MEM;
  for (; rc == MPI_SUCCESS && made < m; made += rc == MPI_SUCCESS) {
    const entry_t *x = &e[made];
    at[made] = x->at;
    len[made] = x->count ? 1 : x->len;
    if (!lines) continue;
    ty[made] = MPI_BYTE;
    if (x->count) rc = MPI_Type_create_hvector(x->count, x->len, x->stride, MPI_BYTE, &ty[made]);
  }
  if (rc == MPI_SUCCESS)
    rc = lines ? MPI_Type_create_struct(m, len, at, ty, t)
               : MPI_Type_create_hindexed(m, len, at, MPI_BYTE, t);
  if (rc == MPI_SUCCESS && (rc = MPI_Type_commit(t)) != MPI_SUCCESS) MPI_Type_free(t);
  /* The struct keeps what it needs of its vectors. */
  for (int i = 0; lines && i < made; i++)
    if (e[i].count) MPI_Type_free(&ty[i]);
  if (len != len_s) free(len);
  if (at != at_s) free(at);
  if (ty != ty_s) free(ty);
  return rc;
}

/* simple__net_isend_pieces or simple__net_irecv_pieces. */
static int post_pieces(simple__comm_t *c, const simple__net_piece_t *pieces, int np, size_t off,
                       size_t bytes, int peer, int tag, simple__net_req_t *req, int is_send) {
  if (bytes > SIMPLE__NET_PART_BYTES) return SIMPLE_ERR_COUNT;
  /* Within one stretch (a piece, or one line of it): a plain transfer, no
   * datatype to build, and one MPI sees as contiguous (the TCP transport
   * lands a rendezvous message in place only then). */
  for (size_t i = 0, o = off; i < (size_t)np && bytes;
       o -= simple__net_piece_bytes(&pieces[i]), i++) {
    const simple__net_piece_t *p = &pieces[i];
    if (o >= simple__net_piece_bytes(p)) continue;
    /* Byte o lies in line o / bytes (a stretch: line 0, o itself). */
    size_t in = o % p->bytes;
    if (p->bytes - in >= bytes)
      return post(c, (char *)p->buf + o / p->bytes * p->stride + in, bytes, peer, tag, req,
                  is_send);
    break;
  }
  entry_t e_s[ENTRIES_ON_STACK], *e = e_s;
  int m = cover(pieces, np, off, bytes, e, ENTRIES_ON_STACK);
  if (m < 0) {
    /* At most three entries a piece (cover_piece). */
    if (!(e = malloc(3 * (size_t)np * sizeof *e))) return SIMPLE_ERR_NOMEM;
    m = cover(pieces, np, off, bytes, e, 3 * np);
  }
  MPI_Datatype t;
  int rc = entries_type(e, m, &t);
  if (e != e_s) free(e);
  if (rc == MPI_ERR_NO_MEM) return SIMPLE_ERR_NOMEM;
  if (rc != MPI_SUCCESS) return SIMPLE_ERR_MPI;
  MPI_Request r;
  /* The type may go at once: MPI keeps it until the transfer completes. */
  int n = m ? 1 : 0;
  rc = is_send ? MPI_Isend(MPI_BOTTOM, n, t, peer, tag, c->comm, &r)
               : MPI_Irecv(MPI_BOTTOM, n, t, peer, tag < 0 ? MPI_ANY_TAG : tag, c->comm, &r);
  MPI_Type_free(&t);
  if (rc != MPI_SUCCESS) return SIMPLE_ERR_MPI;
  req->nparts = 1;
  req->markable = !is_send && bytes > 0;
  memcpy(&req->part[0], &r, sizeof r);
  return 0;
}

int simple__net_isend_pieces(simple__comm_t *c, const simple__net_piece_t *pieces, int np,
                             size_t off, size_t bytes, int dest, int tag, simple__net_req_t *req) {
  return post_pieces(c, pieces, np, off, bytes, dest, tag, req, 1);
}

int simple__net_irecv_pieces(simple__comm_t *c, const simple__net_piece_t *pieces, int np,
                             size_t off, size_t bytes, int src, int tag, simple__net_req_t *req) {
  return post_pieces(c, pieces, np, off, bytes, src, tag, req, 0);
}

/* Whether a completed receive of a non-empty message got an error mark
 * (nothing of it was written: it was empty). Counted in bytes also for a
 * receive through a datatype of pieces (simple__net_irecv_pieces): Open
 * MPI and MPICH keep the byte count in the status, and an empty message
 * counts 0 in any type. */
static int is_mark(const MPI_Status *st) {
  int count = 0;
  MPI_Get_count(st, MPI_BYTE, &count);
  return count == 0;
}

/* Takes back one part's receive (MPI_Cancel, then its wait) unless it has
 * completed already; a receive that matched a message completes as usual.
 * 0 or SIMPLE_ERR_MPI. */
static int take_back(long long *part) {
  MPI_Request r;
  memcpy(&r, part, sizeof r);
  if (r == MPI_REQUEST_NULL) return 0;
  int rc = MPI_Cancel(&r);
  if (rc == MPI_SUCCESS) rc = SIMPLE__NET_WATCHED(MPI_Wait(&r, MPI_STATUS_IGNORE));
  memcpy(part, &r, sizeof r);
  return simple__net_ok(rc);
}

/* One request's parts waited for; *tag (when not NULL) the tag its first
 * part came with, -1 where simple__net_testall completed it. */
static int wait_one(simple__net_req_t *q, int *tag) {
  int rc = 0;
  if (tag) *tag = -1;
  for (int p = 0; p < q->nparts; p++) {
    MPI_Request r;
    MPI_Status st;
    memcpy(&r, &q->part[p], sizeof r);
    /* A request that simple__net_testall completed is MPI_REQUEST_NULL,
     * whose wait returns an empty status: no mark. */
    int live = r != MPI_REQUEST_NULL;
    int w = SIMPLE__NET_WATCHED(MPI_Wait(&r, &st));
    /* Released (MPI_REQUEST_NULL, also after an error): a later wait or
     * test of the same request returns at once. */
    r = MPI_REQUEST_NULL;
    memcpy(&q->part[p], &r, sizeof r);
    if (w != MPI_SUCCESS) {
      rc = SIMPLE_ERR_MPI;
      continue;
    }
    if (live && p == 0 && tag) *tag = st.MPI_TAG;
    if (live && p == 0 && q->markable && is_mark(&st)) {
      /* A mark came instead of the first part: the message's other
       * parts will never come, so their receives are taken back. */
      for (int k = 1; k < q->nparts; k++) take_back(&q->part[k]);
      return rc ? rc : SIMPLE__NET_MARK;
    }
  }
  return rc;
}

int simple__net_waitall(simple__net_req_t *reqs, int count) {
  int rc = 0;
  for (int i = 0; i < count; i++) {
    int r = wait_one(&reqs[i], NULL);
    if (r == SIMPLE_ERR_MPI || !rc) rc = r;
  }
  return rc;
}

int simple__net_wait_tag(simple__net_req_t *req, int *tag) { return wait_one(req, tag); }

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

int simple__net_mark(simple__comm_t *c, int dest, int tag, simple__net_req_t *req) {
  return post(c, NULL, 0, dest, tag, req, 1);
}

int simple__net_cancel(simple__net_req_t *reqs, int count) {
  int rc = 0;
  for (int i = 0; i < count; i++)
    for (int p = 0; p < reqs[i].nparts; p++)
      if (take_back(&reqs[i].part[p])) rc = SIMPLE_ERR_MPI;
  return rc;
}

int simple__net_drain(simple__comm_t *c, int src, int tag, int *was_mark, int *got) {
  MPI_Message m;
  MPI_Status st;
  if (SIMPLE__NET_WATCHED(MPI_Mprobe(src, tag < 0 ? MPI_ANY_TAG : tag, c->comm, &m, &st)) !=
      MPI_SUCCESS)
    return SIMPLE_ERR_MPI;
  int count = 0;
  MPI_Get_count(&st, MPI_BYTE, &count);
  if (was_mark) *was_mark = count == 0;
  if (got) *got = st.MPI_TAG;
  void *tmp = count ? malloc((size_t)count) : NULL;
  if (count && !tmp) return SIMPLE_ERR_NOMEM;
  int rc =
      simple__net_ok(SIMPLE__NET_WATCHED(MPI_Mrecv(tmp, count, MPI_BYTE, &m, MPI_STATUS_IGNORE)));
  free(tmp);
  return rc;
}
