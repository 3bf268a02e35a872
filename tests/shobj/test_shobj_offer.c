/* simple_shobj_offer: copies of values pushed by other means go into the
 * node's cache; later reads hit with no fetch at all. Each thread offers
 * the values of other nodes that it rebuilds itself from the closed form
 * they were made from (as a push would deliver them); the counts of
 * fetches and offers are exact. Refusals: an accumulator, a wrong size,
 * NULL data, a name of no object. */
#include "harness.h"

#define PER 5 /* values per thread */

static size_t vsize(int pid, int k) { return (size_t)((pid * 29 + k * 13) % 300); }
static unsigned char vbyte(int pid, int k, size_t i) {
  return (unsigned char)(pid * 71 + k * 23 + (int)i * 5 + 3);
}

static void spmd(simple_t *s, void *arg) {
  (void)arg;
  int P = simple_nprocs(s), me = simple_pid(s), T = simple_threads(s), node = simple_node(s);
  simple_obj_t *all = malloc(sizeof *all * (size_t)P * PER);
  unsigned char buf[512];
  CHECK(all);
  simple_shobj_opts_t o = {.heap_bytes = 1 << 20, .cache_bytes = 1 << 20};
  simple_shobj_space_t *sp;
  CHECK_OK(simple_shobj_open(s, &o, &sp));
  simple_obj_t mine[PER];
  for (int k = 0; k < PER; k++) {
    size_t n = vsize(me, k);
    for (size_t i = 0; i < n; i++) buf[i] = vbyte(me, k, i);
    CHECK_OK(simple_shobj_value(s, sp, buf, n, &mine[k]));
  }
  CHECK_OK(simple_allgather(s, mine, all, sizeof mine, SIMPLE_BYTE));

  /* Every thread offers every value: on its own node nothing happens,
   * elsewhere the first offer of the node fills the cache. */
  for (int q = 0; q < P; q++)
    for (int k = 0; k < PER; k++) {
      size_t n = vsize(q, k);
      for (size_t i = 0; i < n; i++) buf[i] = vbyte(q, k, i);
      CHECK_OK(simple_shobj_offer(s, sp, all[q * PER + k], buf, n));
    }
  CHECK_OK(simple_barrier(s));
  for (int q = 0; q < P; q++)
    for (int k = 0; k < PER; k++) {
      const unsigned char *p;
      size_t n;
      CHECK_OK(simple_shobj_read(s, sp, all[q * PER + k], (const void **)&p, &n));
      CHECK_EQ(n, vsize(q, k));
      for (size_t i = 0; i < n; i++)
        if (p[i] != vbyte(q, k, i))
          simple_abort(s, "value %d/%d byte %zu: %u, expected %u", q, k, i, p[i], vbyte(q, k, i));
      CHECK_OK(simple_shobj_done(s, sp, all[q * PER + k]));
    }
  CHECK_OK(simple_barrier(s));
  simple_shobj_stats_t st;
  CHECK_OK(simple_shobj_stats(s, sp, &st));
  long remote = (long)(P - T) * PER;
  CHECK_EQ(st.fetches, 0);
  CHECK_EQ(st.offers, remote);
  CHECK_EQ(st.hits, (long)T * remote);

  /* Refusals. */
  simple_obj_t acc;
  int64_t zero = 0;
  CHECK_OK(simple_shobj_acc(s, sp, &zero, sizeof zero, &acc));
  CHECK_RC(simple_shobj_offer(s, sp, acc, &zero, sizeof zero), SIMPLE_ERR_ACC_MISUSE);
  simple_obj_t other = all[((me + T) % P) * PER + 1];
  size_t n1 = vsize((me + T) % P, 1);
  CHECK_RC(simple_shobj_offer(s, sp, other, buf, n1 + 1), SIMPLE_ERR_ARG);
  if (n1) CHECK_RC(simple_shobj_offer(s, sp, other, NULL, n1), SIMPLE_ERR_NULL);
  simple_obj_t bogus = {0, 0};
  CHECK_RC(simple_shobj_offer(s, sp, bogus, buf, 0), SIMPLE_ERR_UNKNOWN_OBJECT);
  CHECK_RC(simple_shobj_offer(NULL, sp, other, buf, n1), SIMPLE_ERR_NOT_IN_JOB);
  (void)node;
  CHECK_OK(simple_barrier(s));
  CHECK_OK(simple_shobj_close(s, sp));
  free(all);
}

TEST_MAIN(spmd)
