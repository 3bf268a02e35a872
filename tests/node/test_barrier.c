/* simple_node_barrier: no thread leaves round k before every thread has
 * entered it, over many rounds (oversubscribed layouts included). */
#include <stdatomic.h>

#include "harness.h"

#define ROUNDS 3000

static void test(simple_t *s, void *arg) {
  (void)arg;
  atomic_int *arrived; /* the node-shared counter, from node_malloc */
  int r = simple_threads(s);
  void *p = NULL;
  CHECK_OK(simple_node_malloc(s, sizeof(atomic_int), &p));
  arrived = p;
  if (simple_thread(s) == 0) atomic_store(arrived, 0);
  CHECK_OK(simple_node_barrier(s));
  for (int k = 0; k < ROUNDS; k++) {
    atomic_fetch_add(arrived, 1);
    CHECK_OK(simple_node_barrier(s));
    /* Everyone of round k has arrived; nobody of round k+1 can have. */
    CHECK_EQ(atomic_load(arrived), (long long)r * (k + 1));
    CHECK_OK(simple_node_barrier(s));
  }
  CHECK_OK(simple_node_free(s, p));
}

TEST_MAIN(test)
