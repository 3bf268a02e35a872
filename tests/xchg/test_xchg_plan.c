/* The node-pair exchange plan of src/xchg, checked for every job shape up
 * to 9 nodes of 1..5 threads (even and uneven), every lane count src/net
 * may open and both answers to "do threads share cores": the properties
 * both ends of every transfer rely on, checked by counting, not by
 * recomputing the plan's formulas.
 *   - lanes: one when threads share cores; never more than the smallest
 *     node's threads or the lanes src/net opened; otherwise all of those.
 *   - split: with several nodes at least one driver, every driver a thread
 *     of every node and a lane src/net opened; a node alone has none.
 *   - schedules: at every step, the node a sends to expects a at that
 *     step; over the steps every node sends to and receives from every
 *     other node exactly once.
 *   - items: driver l takes exactly the items on lane l.
 *   - drivers with no copier: one per lane, at most one per other node.
 *   - post_driver: names the driver that posts each chunk, at both ends.
 *   - rooted: every non-root node gets a lane below `lanes`, and the lanes
 *     are loaded within one node of each other.
 * Serial: the plan is pure arithmetic on the job's shape. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg/xchg.h"

static int failures;
#define CHECK(cond, ...)                                \
  do {                                                  \
    if (!(cond)) {                                      \
      if (failures++ < 20) {                            \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                   \
        fputc('\n', stderr);                            \
      }                                                 \
    }                                                   \
  } while (0)

#define MAXP 9

static void check_schedule(simple__node_t *n, int shifted) {
  int P = n->nodes;
  int sent[MAXP][MAXP], got[MAXP][MAXP];
  memset(sent, 0, sizeof sent);
  memset(got, 0, sizeof got);
  for (int st = 1; st < P; st++)
    for (int a = 0; a < P; a++) {
      int to, from, to2, from2;
      n->node = a;
      if (shifted)
        simple__xchg_shift(n, st, &to, &from);
      else
        simple__xchg_step(n, st, &to, &from);
      CHECK(to >= 0 && to < P && to != a && from >= 0 && from < P && from != a,
            "P=%d step %d node %d: peers %d %d", P, st, a, to, from);
      if (to < 0 || to >= P || from < 0 || from >= P) continue;
      sent[a][to]++;
      got[a][from]++;
      n->node = to;
      if (shifted)
        simple__xchg_shift(n, st, &to2, &from2);
      else
        simple__xchg_step(n, st, &to2, &from2);
      CHECK(from2 == a, "P=%d step %d: %d sends to %d, which expects %d", P, st, a, to, from2);
    }
  for (int a = 0; a < P; a++)
    for (int b = 0; b < P; b++) {
      int want = a != b;
      CHECK(sent[a][b] == want && got[a][b] == want, "P=%d shifted=%d: %d->%d sent %d got %d", P,
            shifted, a, b, sent[a][b], got[a][b]);
    }
}

static void check_job(int P, const int *threads, int netlanes, int shared) {
  simple__node_t n;
  memset(&n, 0, sizeof n);
  n.nodes = P;
  n.threads_of = (int *)threads;
  n.lanes = netlanes;
  n.shared_anywhere = shared;
  int minr = threads[0];
  for (int k = 1; k < P; k++)
    if (threads[k] < minr) minr = threads[k];

  int L = simple__xchg_lanes(&n);
  CHECK(L >= 1 && L <= minr && L <= netlanes, "P=%d lanes %d (min threads %d, net %d)", P, L, minr,
        netlanes);
  if (shared) CHECK(L == 1, "shared cores but %d lanes", L);
  if (!shared) CHECK(L == (minr < netlanes ? minr : netlanes), "lanes %d not all usable", L);

  for (int want = 0; want < 2; want++) {
    simple__xchg_split_t x = simple__xchg_split(&n, want);
    if (P == 1) {
      CHECK(x.drivers == 0, "one node but %d drivers", x.drivers);
      continue;
    }
    CHECK(x.drivers >= 1 && x.drivers <= minr && x.drivers <= netlanes && x.chunks >= 1,
          "P=%d split %d drivers %d chunks", P, x.drivers, x.chunks);
    CHECK(want || x.chunks == 1, "chunks without asking");
    CHECK(x.drivers <= (P - 1) * x.chunks, "a driver with no item");
    /* Each driver takes exactly the items of its lane. */
    int items = (P - 1) * x.chunks;
    for (int l = 0; l < x.drivers; l++) {
      int mine = 0, onlane = 0;
      for (int i = l; i < items; i += x.drivers) mine++;
      for (int i = 0; i < items; i++) onlane += simple__xchg_item_lane(&x, i) == l;
      CHECK(mine == onlane, "driver %d: %d items, lane has %d", l, mine, onlane);
    }
  }
  /* Drivers with no copier: one per lane, never more than the items;
   * every driver a thread of every node and a lane src/net opened. */
  {
    int D = simple__xchg_drivers(&n);
    if (P == 1) {
      CHECK(D == 0, "one node but %d drivers", D);
    } else {
      CHECK(D >= 1 && D <= P - 1 && D <= minr && D <= netlanes, "P=%d drivers %d", P, D);
      CHECK(D == (P - 1 < L ? P - 1 : L), "P=%d drivers %d, lanes %d: a lane idle", P, D, L);
    }
  }
  /* simple__xchg_post_driver is the inverse of post's schedule: the driver
   * that takes item i, whose peers are a + st and a - st, is the one named
   * for sending that chunk to a + st and receiving it from a - st; and the
   * sender's and receiver's drivers of one message agree. */
  for (int chunks = 1; chunks <= 3 && P > 1; chunks++)
    for (int D = 1; D <= (P - 1) * chunks && D <= 5; D++) {
      simple__xchg_t x = {.n = &n, .drivers = D, .chunks = chunks};
      for (int a = 0; a < P; a++) {
        n.node = a;
        for (int i = 0; i < (P - 1) * chunks; i++) {
          int to, from, d = i % D, st = i / chunks + 1, ch = i % chunks;
          simple__xchg_shift(&n, st, &to, &from);
          CHECK(simple__xchg_post_driver(&x, to, 1, ch) == d, "P=%d D=%d C=%d item %d: send", P, D,
                chunks, i);
          CHECK(simple__xchg_post_driver(&x, from, 0, ch) == d, "P=%d D=%d C=%d item %d: recv", P,
                D, chunks, i);
          n.node = to;
          CHECK(simple__xchg_post_driver(&x, a, 0, ch) == d, "P=%d: %d->%d drivers differ", P, a,
                to);
          n.node = a;
        }
      }
    }
  check_schedule(&n, 0);
  check_schedule(&n, 1);

  for (int root = 0; root < P; root++) {
    int load[64] = {0};
    for (int k = 0; k < P; k++) {
      if (k == root) continue;
      int l = simple__xchg_rooted_lane(&n, k, root, L);
      CHECK(l >= 0 && l < L, "rooted lane %d of %d", l, L);
      if (l >= 0 && l < L) load[l]++;
    }
    int lo = P, hi = 0;
    for (int l = 0; l < L; l++) {
      if (load[l] < lo) lo = load[l];
      if (load[l] > hi) hi = load[l];
    }
    CHECK(P == 1 || hi - lo <= 1, "rooted lanes unbalanced: %d..%d", lo, hi);
  }
}

int main(void) {
  int threads[MAXP];
  long jobs = 0;
  for (int P = 1; P <= MAXP; P++)
    for (int shape = 0; shape < 4; shape++) {
      /* Even nodes of 1, 3 and 5 threads; uneven 1, 2, 3, ... (mod 5). */
      for (int k = 0; k < P; k++) threads[k] = shape < 3 ? 2 * shape + 1 : k % 5 + 1;
      for (int netlanes = 1; netlanes <= 5; netlanes++)
        for (int shared = 0; shared < 2; shared++) {
          check_job(P, threads, netlanes, shared);
          jobs++;
        }
    }
  if (failures) {
    fprintf(stderr, "test_xchg_plan: %d failures\n", failures);
    return 1;
  }
  printf("test_xchg_plan: %ld job shapes\n", jobs);
  return 0;
}
