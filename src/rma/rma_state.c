/* The node's one-sided state: made on first use, freed at the job's end;
 * the backend and the processors that take part. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rma/rma_impl.h"

/* The node's state lives in its layer slot (src/base/sync.h). */
static simple__layer_key_t rma_key;
static void **rma_slot(simple__node_t *n) { return simple__layer_slot(n, &rma_key); }

static void free_state(simple__node_t *n) {
  rma_t *R = *rma_slot(n);
  if (!R) return;
  for (int t = 0; R->th && t < R->r; t++) {
    th_t *T = &R->th[t];
    for (int q = 0; q < R->nprocs && T->out; q++) free(T->out[q].p);
    for (int k = 0; k < R->P && T->rgets; k++) free(T->rgets[k].p);
    void *b[] = {T->out,      T->rgets,  T->rgoff,  T->lgets.p, T->tmp.p,  T->regs.p,
                 T->pushes.p, T->pops.p, T->reqs.p, T->inbox.p, T->inidx.p};
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) free(b[i]);
  }
  void *b[] = {R->th,     R->addr,  R->size,          R->used,      R->newregs.p, R->a2a,
               R->sendsz, R->ready, R->stage_local.p, R->sendbuf.p, R->replybuf.p};
  for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) free(b[i]);
  simple__win_free(R->win);
  simple__comm_free(&R->comm);
  free(R);
  *rma_slot(n) = NULL;
}

static int env_backend(void) {
  const char *e = getenv("SIMPLE_RMA");
  if (!e || !*e || strcmp(e, "twosided") == 0) return SIMPLE_RMA_TWOSIDED;
  if (strcmp(e, "onesided") == 0) return SIMPLE_RMA_ONESIDED;
  static atomic_flag warned = ATOMIC_FLAG_INIT;
  if (!atomic_flag_test_and_set(&warned))
    fprintf(stderr, "simple: SIMPLE_RMA='%s' is neither onesided nor twosided; using twosided\n",
            e);
  return SIMPLE_RMA_TWOSIDED;
}

/* The node's state, made by the first thread that needs it (calls that are
 * not collective, such as a first bsmp_send, may come first). */
static void *create_state(simple__node_t *n) {
  rma_t *R = calloc(1, sizeof *R);
  if (!R) return NULL;
  R->r = n->threads;
  R->P = n->nodes;
  R->n = n;
  R->me = n->node;
  R->nprocs = n->nprocs;
  R->first = n->first_pid[n->node];
  R->backend = env_backend();
  R->active = R->nprocs;
  R->cap = 8;
  R->addr = calloc((size_t)R->cap * (size_t)R->nprocs, sizeof *R->addr);
  R->size = calloc((size_t)R->cap * (size_t)R->nprocs, sizeof *R->size);
  R->used = calloc((size_t)R->cap, 1);
  R->a2a = calloc(2 * (size_t)R->P * F, sizeof *R->a2a);
  R->sendsz = calloc(6 * (size_t)R->P, sizeof(size_t));
  R->ready = calloc((size_t)R->P, sizeof *R->ready);
  /* Zeroed at once: the failure path frees what the threads' states hold. */
  R->th = aligned_alloc(SIMPLE__CACHE_LINE, sizeof(th_t) * (size_t)R->r);
  if (R->th) memset(R->th, 0, sizeof(th_t) * (size_t)R->r);
  if (!R->addr || !R->size || !R->used || !R->a2a || !R->sendsz || !R->ready || !R->th) goto fail;
  /* The other [P] arrays follow sendsz in its block of 6 * P. */
  size_t **rest[] = {&R->sendoff, &R->insz, &R->owe, &R->oweoff, &R->want};
  for (int i = 0; i < 5; i++) *rest[i] = R->sendsz + (size_t)(i + 1) * (size_t)R->P;
  for (int t = 0; t < R->r; t++) {
    R->th[t].out = calloc((size_t)R->nprocs, sizeof(gbuf_t));
    R->th[t].rgets = calloc((size_t)R->P, sizeof(gbuf_t));
    R->th[t].rgoff = calloc((size_t)R->P, sizeof(size_t));
    R->th[t].hit_slot = -1;
    if (!R->th[t].out || !R->th[t].rgets || !R->th[t].rgoff) goto fail;
  }
  return R;
fail:
  *rma_slot(n) = R;
  free_state(n);
  return NULL;
}

rma_t *simple__rma_state(simple_t *s) {
  return simple__layer_state(s->node, rma_slot(s->node), create_state, free_state);
}

int simple__rma_fail(th_t *T, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(T->err, sizeof T->err, fmt, ap);
  va_end(ap);
  return code;
}

const char *simple_rma_error(simple_t *s) {
  if (!SIMPLE__IN_JOB(s)) return "";
  rma_t *R = __atomic_load_n((rma_t **)rma_slot(s->node), __ATOMIC_ACQUIRE);
  return R ? R->th[s->thread].err : "";
}

int simple_rma_backend(simple_t *s) {
  if (!SIMPLE__IN_JOB(s)) return SIMPLE_ERR_NOT_IN_JOB;
  rma_t *R = simple__rma_state(s);
  return R ? R->backend : env_backend();
}

int simple_rma_set_backend(simple_t *s, int backend) {
  ENTER(s, R, T);
  int bad = backend != SIMPLE_RMA_ONESIDED && backend != SIMPLE_RMA_TWOSIDED;
  int rc = simple__sync_rc(s, bad ? SIMPLE_ERR_ARG : 0);
  if (rc == SIMPLE_ERR_ARG)
    return simple__rma_fail(T, rc, "simple_rma_set_backend: unknown backend %d", backend);
  if (rc) return rc;
  if (s->thread == 0) R->backend = backend;
  return simple__sync_rc(s, 0);
}

int simple_rma_procs(simple_t *s) {
  if (!SIMPLE__IN_JOB(s)) return 0;
  rma_t *R = simple__rma_state(s);
  return R ? R->active : 0;
}

/* A processor left out by simple_rma_set_procs makes no call but sync. */
int simple__rma_idle_call(simple_t *s, const rma_t *R, th_t *T, const char *call) {
  if (s->pid < R->active) return 0;
  return simple__rma_fail(
      T, SIMPLE_ERR_RANK,
      "%s: processor %d does not take part in the supersteps (only processors 0..%d do)", call,
      s->pid, R->active - 1);
}

int simple_rma_set_procs(simple_t *s, int nprocs) {
  ENTER_ACTIVE(s, R, T, "set_procs");
  if (nprocs < 1 || nprocs > R->nprocs)
    return simple__rma_fail(T, SIMPLE_ERR_RANK,
                            "set_procs: processor %d asked for %d processors, the job has %d",
                            s->pid, nprocs, R->nprocs);
  T->procs_pending = nprocs;
  return 0;
}
