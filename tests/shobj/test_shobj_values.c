/* Values: every thread creates values, every thread reads every value of
 * the job; contents checked against the closed form they were made from.
 * The node-shared cache fetches each remote value exactly once per node,
 * a cache per thread once per thread (T times as many with T threads):
 * counted, so the check is deterministic. Group fetch, eviction under a
 * small cache, zero-byte values, and clear. */
#include "harness.h"

#define PER 7 /* values per thread */

static size_t vsize(int pid, int k) { return (size_t)((pid * 37 + k * 11) % 200); }
static unsigned char vbyte(int pid, int k, size_t i) {
  return (unsigned char)(pid * 131 + k * 17 + (int)i * 7 + 1);
}

static void make(simple_t *s, simple_shobj_space_t *sp, simple_obj_t *all) {
  int P = simple_nprocs(s), me = simple_pid(s);
  simple_obj_t mine[PER];
  unsigned char buf[256];
  for (int k = 0; k < PER; k++) {
    size_t n = vsize(me, k);
    for (size_t i = 0; i < n; i++) buf[i] = vbyte(me, k, i);
    CHECK_OK(simple_shobj_value(s, sp, buf, n, &mine[k]));
    CHECK_EQ(simple_shobj_kind(mine[k]), 1);
    CHECK_EQ(simple_shobj_size(mine[k]), n);
    CHECK_EQ(simple_shobj_home(mine[k]), simple_node(s));
  }
  CHECK_OK(simple_allgather(s, mine, all, sizeof mine, SIMPLE_BYTE));
  (void)P;
}

static void read_all(simple_t *s, simple_shobj_space_t *sp, const simple_obj_t *all) {
  int P = simple_nprocs(s);
  for (int q = 0; q < P; q++)
    for (int k = 0; k < PER; k++) {
      /* Each thread starts at a different place, so threads of a node ask
       * for the same value at different times as well as at once. */
      int qq = (q + simple_pid(s)) % P;
      const unsigned char *p;
      size_t n;
      CHECK_OK(simple_shobj_read(s, sp, all[qq * PER + k], (const void **)&p, &n));
      CHECK_EQ(n, vsize(qq, k));
      for (size_t i = 0; i < n; i++)
        if (p[i] != vbyte(qq, k, i))
          simple_abort(s, "value %d/%d byte %zu: %u, expected %u", qq, k, i, p[i], vbyte(qq, k, i));
      CHECK_OK(simple_shobj_done(s, sp, all[qq * PER + k]));
    }
}

/* Values homed on other nodes than this one. */
static long remote_values(simple_t *s) {
  return (long)(simple_nprocs(s) - simple_threads(s)) * PER;
}

static void spmd(simple_t *s, void *arg) {
  (void)arg;
  int P = simple_nprocs(s), T = simple_threads(s);
  simple_obj_t *all = malloc(sizeof *all * (size_t)P * PER);
  CHECK(all);
  simple_shobj_opts_t o = {.heap_bytes = 1 << 20, .cache_bytes = 1 << 20};

  /* The node-shared cache: one fetch per remote value per node. */
  simple_shobj_space_t *sp;
  CHECK_OK(simple_shobj_open(s, &o, &sp));
  make(s, sp, all);
  read_all(s, sp, all);
  read_all(s, sp, all); /* all hits the second time */
  CHECK_OK(simple_barrier(s));
  simple_shobj_stats_t st;
  CHECK_OK(simple_shobj_stats(s, sp, &st));
  CHECK_EQ(st.fetches, remote_values(s));
  CHECK_EQ(st.local, 2L * T * T * PER);
  CHECK_EQ(st.hits + st.waits + st.fetches, 2L * T * remote_values(s));
  CHECK_EQ(st.evictions, 0);
  uint64_t shared_fetches = st.fetches;

  /* A cache per thread: T times as many fetches. */
  o.per_thread = 1;
  simple_shobj_space_t *pt;
  CHECK_OK(simple_shobj_open(s, &o, &pt));
  make(s, pt, all);
  read_all(s, pt, all);
  CHECK_OK(simple_barrier(s));
  CHECK_OK(simple_shobj_stats(s, pt, &st));
  CHECK_EQ(st.fetches, (long)T * remote_values(s));
  CHECK(shared_fetches * (uint64_t)T <= st.fetches);
  CHECK_OK(simple_shobj_close(s, pt));

  /* Group fetch after clear: the old names are unknown, the new ones come
   * in groups, and the reads after them fetch nothing more. */
  simple_obj_t old = all[((simple_pid(s) + T) % P) * PER];
  CHECK_OK(simple_shobj_clear(s, sp));
  CHECK_OK(simple_shobj_stats_reset(s, sp));
  const void *p;
  CHECK_RC(simple_shobj_read(s, sp, old, &p, NULL), SIMPLE_ERR_UNKNOWN_OBJECT);
  make(s, sp, all);
  CHECK_OK(simple_shobj_fetch(s, sp, all, (size_t)P * PER));
  read_all(s, sp, all);
  CHECK_OK(simple_barrier(s));
  CHECK_OK(simple_shobj_stats(s, sp, &st));
  CHECK_EQ(st.fetches, remote_values(s));
  CHECK(st.groups <= (uint64_t)T);
  if (remote_values(s)) CHECK(st.groups >= 1);
  CHECK_OK(simple_shobj_close(s, sp));

  /* A cache of 1 KiB for 200-byte values: evictions, same contents. */
  o.per_thread = 0;
  o.cache_bytes = 1024;
  CHECK_OK(simple_shobj_open(s, &o, &sp));
  make(s, sp, all);
  read_all(s, sp, all);
  read_all(s, sp, all);
  CHECK_OK(simple_barrier(s));
  CHECK_OK(simple_shobj_stats(s, sp, &st));
  if (simple_nodes(s) > 2) CHECK(st.evictions > 0);
  CHECK(st.fetches >= (uint64_t)remote_values(s));
  CHECK_OK(simple_shobj_close(s, sp));
  free(all);
}

TEST_MAIN(spmd)
