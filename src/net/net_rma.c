/* The MPI side of src/rma: see net_rma.h. */
#include "net/net_rma.h"

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>

#include "net/net_state.h"

#define PART_BYTES ((size_t)1 << 30)

struct simple__net_rma {
  MPI_Comm comm; /* a duplicate of simple__net(n)->rma, owned here */
  int nodes;
  MPI_Win win;
  int have_win;
  void *base;
  size_t bytes;
};

int simple__net_rma_open(simple__node_t *n, simple__net_rma_t **out) {
  simple__net_rma_t *r = calloc(1, sizeof *r);
  if (!r) return SIMPLE_ERR_NOMEM;
  /* Our own communicator, so that the window's collective creation and
   * the per-sync alltoall can never interleave with anything else on
   * ->rma. */
  int rc = MPI_Comm_dup(simple__net(n)->rma, &r->comm);
  if (rc != MPI_SUCCESS) {
    free(r);
    return SIMPLE_ERR_MPI;
  }
  MPI_Comm_set_errhandler(r->comm, MPI_ERRORS_RETURN);
  r->nodes = n->nodes;
  *out = r;
  return 0;
}

static void free_win(simple__net_rma_t *r) {
  if (!r->have_win) return;
  MPI_Win_unlock_all(r->win);
  MPI_Win_free(&r->win);
  r->have_win = 0;
  r->base = NULL;
  r->bytes = 0;
}

void simple__net_rma_close(simple__net_rma_t *r) {
  if (!r) return;
  free_win(r);
  MPI_Comm_free(&r->comm);
  free(r);
}

int simple__net_rma_alltoall(simple__net_rma_t *r, const uint64_t *send, uint64_t *recv, int per) {
  return simple__net_ok(
      SIMPLE__NET_WATCHED(MPI_Alltoall(send, per, MPI_UINT64_T, recv, per, MPI_UINT64_T, r->comm)));
}

int simple__net_rma_allgatherv(simple__net_rma_t *r, int me, const void *sbuf, const size_t *counts,
                               void *rbuf) {
  int P = r->nodes;
  int *c = malloc(sizeof(int) * 2 * (size_t)P);
  if (!c) return SIMPLE_ERR_NOMEM;
  int *d = c + P, rc = 0;
  size_t at = 0;
  for (int k = 0; k < P; k++) {
    if (counts[k] > INT_MAX || at > INT_MAX) rc = SIMPLE_ERR_COUNT;
    c[k] = (int)counts[k];
    d[k] = (int)at;
    at += counts[k];
  }
  if (!rc)
    rc = simple__net_ok(
        SIMPLE__NET_WATCHED(MPI_Allgatherv(sbuf, c[me], MPI_BYTE, rbuf, c, d, MPI_BYTE, r->comm)));
  free(c);
  return rc;
}

int simple__net_rma_barrier(simple__net_rma_t *r) {
  int rc = SIMPLE__NET_WATCHED(MPI_Barrier(r->comm));
  if (rc == MPI_SUCCESS && r->have_win) rc = MPI_Win_sync(r->win);
  return simple__net_ok(rc);
}

int simple__net_rma_win_ensure(simple__net_rma_t *r, size_t bytes, void **base) {
  if (r->have_win && r->bytes >= bytes) {
    *base = r->base;
    return 0;
  }
  free_win(r);
  if (bytes < 64) bytes = 64;
  if (bytes > (size_t)PTRDIFF_MAX) return SIMPLE_ERR_COUNT;
  MPI_Info info;
  MPI_Info_create(&info);
  /* We never use accumulates: let MPI skip their ordering. */
  MPI_Info_set(info, "accumulate_ordering", "none");
  MPI_Info_set(info, "same_disp_unit", "true");
  int rc =
      SIMPLE__NET_WATCHED(MPI_Win_allocate((MPI_Aint)bytes, 1, info, r->comm, &r->base, &r->win));
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) return SIMPLE_ERR_MPI;
  MPI_Win_set_errhandler(r->win, MPI_ERRORS_RETURN);
  /* One passive-target epoch for the window's whole life: puts are
   * completed by MPI_Win_flush, and the sync's own barrier tells the
   * target that they are. */
  if (MPI_Win_lock_all(MPI_MODE_NOCHECK, r->win) != MPI_SUCCESS) {
    MPI_Win_free(&r->win);
    return SIMPLE_ERR_MPI;
  }
  r->have_win = 1;
  r->bytes = bytes;
  *base = r->base;
  return 0;
}

int simple__net_rma_put(simple__net_rma_t *r, int node, const void *buf, size_t bytes,
                        size_t disp) {
  if (!r->have_win) return SIMPLE_ERR_ARG;
  for (size_t off = 0; off < bytes; off += PART_BYTES) {
    int len = (int)(bytes - off < PART_BYTES ? bytes - off : PART_BYTES);
    if (MPI_Put((const char *)buf + off, len, MPI_BYTE, node, (MPI_Aint)(disp + off), len, MPI_BYTE,
                r->win) != MPI_SUCCESS)
      return SIMPLE_ERR_MPI;
  }
  return simple__net_ok(SIMPLE__NET_WATCHED(MPI_Win_flush(node, r->win)));
}
