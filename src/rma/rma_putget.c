/* Registration, put and get: queued during the superstep, carried out by
 * simple_rma_sync (rma_sync.c). */
#include <stdint.h>
#include <string.h>

#include "rma/rma_impl.h"

/* ------------------------------------------------------------------------
 * Registration. */

/* The slot of the caller's latest effective registration of addr, or -1. */
static int find_reg(th_t *T, const void *addr) {
  /* A superstep usually names the same few areas again and again. */
  if (T->hit_slot >= 0 && T->hit_addr == addr) return T->hit_slot;
  const reg_t *g = (const reg_t *)T->regs.p;
  for (size_t i = NITEMS(T->regs, reg_t); i-- > 0;)
    if (g[i].addr == addr) {
      T->hit_addr = addr;
      T->hit_slot = g[i].slot;
      return g[i].slot;
    }
  return -1;
}

int simple_rma_push_reg(simple_t *s, const void *addr, size_t size) {
  ENTER_ACTIVE(s, R, T, "push_reg");
  if (!addr && size)
    return simple__rma_fail(T, SIMPLE_ERR_NULL,
                            "push_reg: processor %d registered NULL with size %zu", s->pid, size);
  push_t *p = gb_add(&T->pushes, sizeof *p);
  if (!p) return SIMPLE_ERR_NOMEM;
  p->addr = (uint64_t)(uintptr_t)addr;
  p->size = size;
  return 0;
}

/* Whether the i-th push of this superstep was popped in it already: its
 * pop is recorded as slot -(1 + i). O(pops of the superstep). */
int simple__rma_push_popped(const th_t *T, size_t i) {
  const int *pops = (const int *)T->pops.p;
  for (size_t j = 0; j < NITEMS(T->pops, int); j++)
    if (pops[j] == -1 - (int)i) return 1;
  return 0;
}

int simple_rma_pop_reg(simple_t *s, const void *addr) {
  ENTER_ACTIVE(s, R, T, "pop_reg");
  /* Calls take effect at the sync in call order: a pop after a push of
   * the same address in this superstep undoes that push (the latest one),
   * so the pair leaves the registrations as they were. */
  const push_t *pu = (const push_t *)T->pushes.p;
  for (size_t i = NITEMS(T->pushes, push_t); i-- > 0;) {
    if (pu[i].addr != (uint64_t)(uintptr_t)addr || simple__rma_push_popped(T, i)) continue;
    if (i > (size_t)INT32_MAX - 1)
      return simple__rma_fail(T, SIMPLE_ERR_COUNT,
                              "pop_reg: too many registrations in one superstep");
    int *slot = gb_add(&T->pops, sizeof *slot);
    if (!slot) return SIMPLE_ERR_NOMEM;
    *slot = -1 - (int)i;
    return 0;
  }
  reg_t *g = (reg_t *)T->regs.p;
  for (size_t i = NITEMS(T->regs, reg_t); i-- > 0;) {
    if (g[i].addr != addr || g[i].popping) continue;
    int *slot = gb_add(&T->pops, sizeof *slot);
    if (!slot) return SIMPLE_ERR_NOMEM;
    *slot = g[i].slot;
    g[i].popping = 1;
    return 0;
  }
  return simple__rma_fail(T, SIMPLE_ERR_ARG,
                          "pop_reg: processor %d popped address %p, which it has not registered (or"
                          " already popped)",
                          s->pid, addr);
}

/* Checks a transfer of n bytes at offset off of pid's copy of the area
 * that the caller registered at `area`; returns the slot or -(error). */
static int check_area(simple_t *s, rma_t *R, th_t *T, const char *call, int pid, const void *area,
                      size_t off, size_t n, const void *buf) {
  if (s->pid >= R->active) return -simple__rma_idle_call(s, R, T, call);
  if (pid < 0 || pid >= R->active) {
    return -simple__rma_fail(T, SIMPLE_ERR_RANK,
                             "%s: processor %d named processor %d, outside 0..%d", call, s->pid,
                             pid, R->active - 1);
  }
  if (n && !buf)
    return -simple__rma_fail(
        T, SIMPLE_ERR_NULL, "%s: processor %d passed a NULL buffer for %zu bytes", call, s->pid, n);
  const char *dir = call[0] == 'g' || call[2] == 'g' ? "from" : "to";
  int slot = find_reg(T, area);
  if (slot < 0)
    return -simple__rma_fail(
        T, SIMPLE_ERR_ARG,
        "%s: processor %d %s processor %d: address %p is not registered on processor"
        " %d (push_reg, then sync, before use)",
        call, s->pid, dir, pid, area, s->pid);
  size_t sz = R->size[(size_t)slot * (size_t)R->nprocs + (size_t)pid];
  if (off > sz || n > sz - off)
    return -simple__rma_fail(
        T, SIMPLE_ERR_ARG,
        "%s: processor %d %s processor %d: %zu bytes at offset %zu are outside the area"
        " of %zu bytes that processor %d registered (registered at %p by processor %d)",
        call, s->pid, dir, pid, n, off, sz, pid, area, s->pid);
  return slot;
}

static int put(simple_t *s, int pid, const void *src, void *dst, size_t off, size_t n, int hp) {
  ENTER(s, R, T);
  int slot = check_area(s, R, T, hp ? "hpput" : "put", pid, dst, off, n, src);
  if (slot < 0) return -slot;
  if (n == 0) return 0;
  unsigned char *d = (unsigned char *)R->addr[(size_t)slot * (size_t)R->nprocs + (size_t)pid];
  if (hp && pid >= R->first && pid < R->first + R->r) {
    memcpy(d + off, src, n);
    return 0;
  }
  rec_t *rec = gb_add(&T->out[pid], sizeof(rec_t) + PAD8(n));
  if (!rec)
    return simple__rma_fail(T, SIMPLE_ERR_NOMEM, "put: out of memory queueing %zu bytes", n);
  *rec = (rec_t){.kind = REC_PUT, .slot = (uint64_t)slot, .off = off, .len = n};
  memcpy(rec + 1, src, n);
  T->has_out = 1;
  return 0;
}

int simple_rma_put(simple_t *s, int pid, const void *src, void *dst, size_t offset, size_t nbytes) {
  return put(s, pid, src, dst, offset, nbytes, 0);
}

int simple_rma_hpput(simple_t *s, int pid, const void *src, void *dst, size_t offset,
                     size_t nbytes) {
  return put(s, pid, src, dst, offset, nbytes, 1);
}

static int get(simple_t *s, int pid, const void *src, size_t off, void *dst, size_t n, int hp) {
  ENTER(s, R, T);
  int slot = check_area(s, R, T, hp ? "hpget" : "get", pid, src, off, n, dst);
  if (slot < 0) return -slot;
  if (n == 0) return 0;
  const unsigned char *a =
      (const unsigned char *)R->addr[(size_t)slot * (size_t)R->nprocs + (size_t)pid];
  if (pid >= R->first && pid < R->first + R->r) {
    if (hp) {
      memcpy(dst, a + off, n);
      return 0;
    }
    size_t at = T->tmp.len;
    lget_t *g = gb_add(&T->lgets, sizeof *g);
    if (!g || !gb_add(&T->tmp, PAD8(n))) {
      if (g) T->lgets.len -= sizeof *g;
      return simple__rma_fail(T, SIMPLE_ERR_NOMEM, "get: out of memory queueing %zu bytes", n);
    }
    *g = (lget_t){.src = a + off, .dst = dst, .len = n, .tmp = at};
  } else {
    int k = simple_node_of(s, pid);
    rget_t *g = gb_add(&T->rgets[k], sizeof *g);
    if (!g) return simple__rma_fail(T, SIMPLE_ERR_NOMEM, "get: out of memory");
    *g = (rget_t){.dst = dst,
                  .len = n,
                  .t = (uint32_t)(pid - s->node->first_pid[k]),
                  .slot = (uint64_t)slot,
                  .off = off};
  }
  T->has_gets = 1;
  return 0;
}

int simple_rma_get(simple_t *s, int pid, const void *src, size_t offset, void *dst, size_t nbytes) {
  return get(s, pid, src, offset, dst, nbytes, 0);
}

int simple_rma_hpget(simple_t *s, int pid, const void *src, size_t offset, void *dst,
                     size_t nbytes) {
  return get(s, pid, src, offset, dst, nbytes, 1);
}
