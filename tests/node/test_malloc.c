/* simple_node_malloc / simple_node_free: one block seen by every thread,
 * written by slices and read back whole; sizes that differ are refused. */
#include <stdint.h>

#include "harness.h"

static void test(simple_t *s, void *arg) {
  (void)arg;
  int me = simple_thread(s), r = simple_threads(s);
  for (size_t n = 1; n <= (1u << 20); n *= 32) {
    void *p = NULL;
    CHECK_OK(simple_node_malloc(s, n * sizeof(int64_t), &p));
    CHECK(p != NULL);
    CHECK(((uintptr_t)p % 64) == 0);
    void *q = p;
    CHECK_OK(simple_node_share(s, &q, 0));
    CHECK(q == p); /* the same block everywhere */
    int64_t *a = p;
    for (size_t i = (size_t)me; i < n; i += (size_t)r) a[i] = (int64_t)(i * 3 + 1);
    CHECK_OK(simple_node_barrier(s));
    for (size_t i = 0; i < n; i++) CHECK_EQ(a[i], (long long)(i * 3 + 1));
    CHECK_OK(simple_node_free(s, p));
  }
  void *p = (void *)1;
  if (r > 1) {
    CHECK_RC(simple_node_malloc(s, me == 0 ? 64 : 128, &p), SIMPLE_ERR_ARG);
    CHECK(p == NULL);
  }
  CHECK_RC(simple_node_malloc(s, 64, me == 0 ? NULL : &p),
           r == 1 || me == 0 ? SIMPLE_ERR_ARG : SIMPLE_ERR_PEER);
  /* The node still works after refused calls. */
  CHECK_OK(simple_node_malloc(s, 0, &p));
  CHECK_OK(simple_node_free(s, p));
}

TEST_MAIN(test)
