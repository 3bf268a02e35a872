/* The verdict rules of docs/api.md that several tests replay, written
 * from the documented schedules (not from src/coll). */
#ifndef SIMPLE_TEST_VERDICT_RULES_H
#define SIMPLE_TEST_VERDICT_RULES_H

/* Whether node a lies on node b's way up the binomial tree rooted at node
 * rn of P (b included), the nodes a reduce's failure on node b reaches:
 * b's rank relative to rn with its lowest set bits cleared one by one
 * passes through a's. */
static inline int verdict_on_way_up(int a, int b, int rn, int P) {
  int ra = (a - rn + P) % P, rb = (b - rn + P) % P;
  for (;; rb &= rb - 1) {
    if (rb == ra) return 1;
    if (rb == 0) return 0;
  }
}

/* Whether node a's parent in that tree is the root's node rn: a's rank
 * relative to rn is a power of two. A bcast's tree passes a failure on
 * down (a node that fails sends marks to its children), so below the
 * root's children only marks arrive. */
static inline int verdict_child_of_root(int a, int rn, int P) {
  int ra = (a - rn + P) % P;
  return ra != 0 && (ra & (ra - 1)) == 0;
}

#endif
