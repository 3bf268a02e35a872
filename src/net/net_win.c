/* Passive-target windows: see net_win.h. */
#include "net/net_win.h"

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/net_state.h"

struct simple__win {
  MPI_Comm comm; /* our own duplicate: the collective creation and free
                    never interleave with other node-level traffic */
  MPI_Win win;
};

/* A window over a duplicate of `parent` (collective over parent). */
static int create(MPI_Comm parent, size_t bytes, void **base, simple__win_t **out) {
  if (bytes < 64) bytes = 64;
  if (bytes > (size_t)PTRDIFF_MAX) return SIMPLE_ERR_COUNT;
  simple__win_t *w = calloc(1, sizeof *w);
  if (!w) return SIMPLE_ERR_NOMEM;
  if (SIMPLE__NET_WATCHED(MPI_Comm_dup(parent, &w->comm)) != MPI_SUCCESS) goto no_comm;
  MPI_Comm_set_errhandler(w->comm, MPI_ERRORS_RETURN);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "same_disp_unit", "true");
  void *b = NULL;
  int rc = SIMPLE__NET_WATCHED(MPI_Win_allocate((MPI_Aint)bytes, 1, info, w->comm, &b, &w->win));
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) goto no_win;
  MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN);
  memset(b, 0, bytes);
  /* Nobody reads the window before every node has zeroed its own. */
  if (MPI_Win_lock_all(MPI_MODE_NOCHECK, w->win) == MPI_SUCCESS &&
      MPI_Win_sync(w->win) == MPI_SUCCESS &&
      SIMPLE__NET_WATCHED(MPI_Barrier(w->comm)) == MPI_SUCCESS) {
    *base = b;
    *out = w;
    return 0;
  }
  SIMPLE__NET_WATCHED(MPI_Win_free(&w->win));
no_win:
  MPI_Comm_free(&w->comm);
no_comm:
  free(w);
  return SIMPLE_ERR_MPI;
}

int simple__win_create(simple__node_t *n, size_t bytes, void **base, simple__win_t **out) {
  return create(*(MPI_Comm *)n->comm, bytes, base, out);
}

int simple__win_create_on(simple__comm_t *c, size_t bytes, void **base, simple__win_t **out) {
  return create(c->comm, bytes, base, out);
}

void simple__win_free(simple__win_t *w) {
  if (!w) return;
  /* Every node stops reading before any frees its memory (MPI_Win_free
   * is itself collective, but unlock_all first needs every epoch closed). */
  SIMPLE__NET_WATCHED(MPI_Win_unlock_all(w->win));
  SIMPLE__NET_WATCHED(MPI_Win_free(&w->win));
  MPI_Comm_free(&w->comm);
  free(w);
}

/* A get (put 0) or a put of bytes between buf and node's window at disp,
 * in int-sized parts. */
static int move(simple__win_t *w, int node, size_t disp, void *buf, size_t bytes, int put) {
  for (size_t off = 0; off < bytes; off += SIMPLE__NET_PART_BYTES) {
    int len = (int)(bytes - off < SIMPLE__NET_PART_BYTES ? bytes - off : SIMPLE__NET_PART_BYTES);
    char *b = (char *)buf + off;
    MPI_Aint at = (MPI_Aint)(disp + off);
    if ((put ? MPI_Put(b, len, MPI_BYTE, node, at, len, MPI_BYTE, w->win)
             : MPI_Get(b, len, MPI_BYTE, node, at, len, MPI_BYTE, w->win)) != MPI_SUCCESS)
      return SIMPLE_ERR_MPI;
  }
  return 0;
}

int simple__win_get(simple__win_t *w, int node, size_t disp, void *buf, size_t bytes) {
  return move(w, node, disp, buf, bytes, 0);
}

int simple__win_put(simple__win_t *w, int node, size_t disp, const void *buf, size_t bytes) {
  return move(w, node, disp, (void *)buf, bytes, 1);
}

int simple__win_flush(simple__win_t *w, int node) {
  return simple__net_ok(node < 0 ? SIMPLE__NET_WATCHED(MPI_Win_flush_all(w->win))
                                 : SIMPLE__NET_WATCHED(MPI_Win_flush(node, w->win)));
}

int simple__win_sync(simple__win_t *w) { return simple__net_ok(MPI_Win_sync(w->win)); }

int simple__win_fetch_add(simple__win_t *w, int node, size_t disp, int64_t add, int64_t *old) {
  int rc = MPI_Fetch_and_op(&add, old, MPI_INT64_T, node, (MPI_Aint)disp, MPI_SUM, w->win);
  if (rc == MPI_SUCCESS) rc = SIMPLE__NET_WATCHED(MPI_Win_flush(node, w->win));
  return simple__net_ok(rc);
}
