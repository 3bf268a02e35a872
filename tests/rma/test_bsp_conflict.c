/* Conflicting puts and gets in one superstep, BSPlib style, checked
 * against a serial model of the documented rule (docs/rma.md):
 *   1. every get reads the source as the superstep's computation left it
 *      (before any put of the superstep lands);
 *   2. puts land in the order of their source's pid, in program order for
 *      one source (the highest pid's last put to a place wins);
 *   3. then each get's result lands in its destination, so a get's result
 *      wins over a put to the same local place.
 * Every processor registers K ints and makes random puts and gets, aimed
 * at random processors and places, several of them at the same places; the
 * gets land in the registered array itself, where others' puts also land.
 * Every processor replays every processor's choices (the random streams
 * are seeded by superstep and pid), so the model is computed without the
 * library. Runs with the backend SIMPLE_RMA names (tests/CMakeLists.txt
 * registers it for both). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bsp_check.h"

enum { K = 8, OPS = 6, STEPS = 8 };

typedef struct {
  int get;   /* 1: get, 0: put */
  int pid;   /* the other processor */
  int at;    /* index on the other processor */
  int local; /* get: destination index here */
  int value; /* put: the value */
} op_t;

static unsigned next(unsigned *x) {
  *x = *x * 1103515245u + 12345u;
  return (*x >> 16) & 0x7fff;
}

/* Processor q's operations of superstep step. Gets land at distinct local
 * indices (two gets into one place are left unordered by the rule). */
static int ops_of(int step, int q, int p, op_t *op) {
  unsigned x = (unsigned)(step * 7919 + q * 104729 + 1);
  int used[K] = {0}, n = 0;
  int count = 1 + (int)(next(&x) % OPS);
  for (int i = 0; i < count; i++) {
    op_t o = {.get = (int)(next(&x) % 2),
              .pid = (int)(next(&x) % (unsigned)p),
              .at = (int)(next(&x) % K)};
    if (o.get) {
      int l = (int)(next(&x) % K);
      if (used[l]) continue;
      used[l] = 1;
      o.local = l;
    } else {
      o.value = 100000 * (step + 1) + 1000 * q + i;
    }
    op[n++] = o;
  }
  return n;
}

int main(void) {
  bsp_begin(bsp_nprocs());
  int p = bsp_nprocs(), s = bsp_pid();
  int *a = malloc(sizeof(int) * K);
  int *model = malloc(sizeof(int) * (size_t)p * K); /* every processor's array */
  int *snap = malloc(sizeof(int) * (size_t)p * K);
  op_t *op = malloc(sizeof(op_t) * OPS);
  BSP_CHECK(a && model && snap && op);
  for (int q = 0; q < p; q++)
    for (int i = 0; i < K; i++) model[q * K + i] = q * 1000 + i;
  memcpy(a, model + s * K, sizeof(int) * K);
  bsp_push_reg(a, K * (int)sizeof(int));
  bsp_sync();
  for (int step = 0; step < STEPS; step++) {
    /* The library: this processor's operations. */
    int n = ops_of(step, s, p, op);
    for (int i = 0; i < n; i++) {
      if (op[i].get)
        bsp_get(op[i].pid, a, op[i].at * (int)sizeof(int), &a[op[i].local], sizeof(int));
      else
        bsp_put(op[i].pid, &op[i].value, a, op[i].at * (int)sizeof(int), sizeof(int));
    }
    bsp_sync();
    /* The model: every processor's operations, by the rule. */
    memcpy(snap, model, sizeof(int) * (size_t)p * K);
    for (int q = 0; q < p; q++) {
      int m = ops_of(step, q, p, op);
      for (int i = 0; i < m; i++)
        if (!op[i].get) model[op[i].pid * K + op[i].at] = op[i].value;
    }
    for (int q = 0; q < p; q++) {
      int m = ops_of(step, q, p, op);
      for (int i = 0; i < m; i++)
        if (op[i].get) model[q * K + op[i].local] = snap[op[i].pid * K + op[i].at];
    }
    for (int i = 0; i < K; i++) {
      if (a[i] != model[s * K + i])
        bsp_abort("superstep %d: processor %d holds %d at %d, the rule gives %d", step, s, a[i], i,
                  model[s * K + i]);
    }
  }
  bsp_pop_reg(a);
  bsp_sync();
  free(a);
  free(model);
  free(snap);
  free(op);
  if (s == 0) printf("conflicting puts and gets: %d processors, %d supersteps agree\n", p, STEPS);
  bsp_end();
  return 0;
}
