/* Every error of the shared-object layer, by name: unknown objects (null,
 * forged, stale after clear, from a closed space), writes to values,
 * accumulator misuse, cache exhaustion, a full heap, short buffers and
 * bad arguments. Each failed call leaves the space usable. */
#include "harness.h"

static void spmd(simple_t *s, void *arg) {
  (void)arg;
  int P = simple_nprocs(s), me = simple_pid(s);
  simple_shobj_opts_t o = {.heap_bytes = 16384, .cache_bytes = 1024};
  simple_shobj_space_t *sp;
  CHECK_RC(simple_shobj_open(NULL, &o, &sp), SIMPLE_ERR_NOT_IN_JOB);
  CHECK_OK(simple_shobj_open(s, &o, &sp));

  /* One value of 100 bytes and one accumulator per thread. */
  unsigned char data[100];
  memset(data, me + 1, sizeof data);
  simple_obj_t mine[2];
  CHECK_OK(simple_shobj_value(s, sp, data, sizeof data, &mine[0]));
  CHECK_OK(simple_shobj_acc(s, sp, NULL, 8, &mine[1]));
  simple_obj_t *all = malloc(sizeof mine * (size_t)P);
  CHECK(all);
  CHECK_OK(simple_allgather(s, mine, all, sizeof mine, SIMPLE_BYTE));
  int other = (me + simple_threads(s)) % P; /* a thread of another node, if any */
  simple_obj_t val = all[2 * other], acc = all[2 * other + 1];
  const void *p;
  void *w;
  unsigned char buf[128];

  /* Unknown objects. */
  CHECK_RC(simple_shobj_read(s, sp, SIMPLE_SHOBJ_NULL, &p, NULL), SIMPLE_ERR_UNKNOWN_OBJECT);
  CHECK_EQ(simple_shobj_kind(SIMPLE_SHOBJ_NULL), 0);
  CHECK_EQ(simple_shobj_home(SIMPLE_SHOBJ_NULL), -1);
  simple_obj_t forged = val;
  forged.where += 1; /* 16 bytes further: inside the value, not a header */
  CHECK_RC(simple_shobj_read(s, sp, forged, &p, NULL), SIMPLE_ERR_UNKNOWN_OBJECT);
  CHECK_RC(simple_shobj_get(s, sp, forged, buf, sizeof buf, NULL), SIMPLE_ERR_UNKNOWN_OBJECT);
  forged = acc;
  forged.where += 1;
  CHECK_RC(simple_shobj_acquire(s, sp, forged, &w), SIMPLE_ERR_UNKNOWN_OBJECT);
  forged = val;
  forged.where = ((uint64_t)(simple_nodes(s) + 1) << 40) | (forged.where & 0xffffffffffULL);
  CHECK_RC(simple_shobj_read(s, sp, forged, &p, NULL), SIMPLE_ERR_UNKNOWN_OBJECT);
  forged = val;
  forged.where = (forged.where & ~0xffffffffffULL) | (16384 >> 4); /* beyond the heap */
  CHECK_RC(simple_shobj_read(s, sp, forged, &p, NULL), SIMPLE_ERR_UNKNOWN_OBJECT);
  forged = val;
  forged.what += 1; /* one byte longer than the object */
  CHECK_RC(simple_shobj_read(s, sp, forged, &p, NULL), SIMPLE_ERR_UNKNOWN_OBJECT);

  /* Writes to a value. */
  CHECK_RC(simple_shobj_acquire(s, sp, val, &w), SIMPLE_ERR_IMMUTABLE);
  CHECK_RC(simple_shobj_write(s, sp, val, data, sizeof data), SIMPLE_ERR_IMMUTABLE);
  CHECK_RC(simple_shobj_release(s, sp, val), SIMPLE_ERR_IMMUTABLE);

  /* Accumulator misuse. */
  CHECK_RC(simple_shobj_read(s, sp, acc, &p, NULL), SIMPLE_ERR_ACC_MISUSE);
  CHECK_RC(simple_shobj_release(s, sp, acc), SIMPLE_ERR_ACC_MISUSE);
  CHECK_RC(simple_shobj_fetch(s, sp, &acc, 1), SIMPLE_ERR_ACC_MISUSE);
  simple_obj_t acc2; /* another accumulator, never acquired */
  CHECK_OK(simple_shobj_acc(s, sp, NULL, 8, &acc2));
  CHECK_OK(simple_shobj_acquire(s, sp, mine[1], &w));
  CHECK_RC(simple_shobj_acquire(s, sp, acc2, &w), SIMPLE_ERR_ACC_MISUSE);
  CHECK_RC(simple_shobj_get(s, sp, mine[1], buf, sizeof buf, NULL), SIMPLE_ERR_ACC_MISUSE);
  CHECK_RC(simple_shobj_release(s, sp, acc2), SIMPLE_ERR_ACC_MISUSE);
  CHECK_OK(simple_shobj_release(s, sp, mine[1]));
  CHECK_RC(simple_shobj_release(s, sp, mine[1]), SIMPLE_ERR_ACC_MISUSE);
  CHECK_RC(simple_shobj_write(s, sp, acc, data, 7), SIMPLE_ERR_ARG);
  if (simple_nodes(s) > 1) CHECK_RC(simple_shobj_done(s, sp, val), SIMPLE_ERR_ACC_MISUSE);
  CHECK_RC(simple_shobj_done(s, sp, acc), SIMPLE_ERR_ACC_MISUSE);
  CHECK_OK(simple_barrier(s));

  /* A short buffer. */
  size_t n;
  CHECK_RC(simple_shobj_get(s, sp, val, buf, 99, &n), SIMPLE_ERR_TRUNCATE);
  CHECK_EQ(n, 100);
  CHECK_OK(simple_shobj_get(s, sp, val, buf, sizeof buf, &n));
  CHECK_EQ(buf[0], other + 1);

  /* Cache exhaustion: a value larger than the whole cache, and a cache
   * whose room the node's reads hold. Thread 0 of each node alone, so the
   * count of blocks held is known. */
  CHECK_OK(simple_barrier(s));
  simple_obj_t big;
  static unsigned char zeros[2048];
  CHECK_OK(simple_shobj_value(s, sp, zeros, 1500, &big));
  simple_obj_t *bigs = malloc(sizeof big * (size_t)P);
  CHECK(bigs);
  CHECK_OK(simple_allgather(s, &big, bigs, sizeof big, SIMPLE_BYTE));
  if (simple_nodes(s) > 1) {
    CHECK_RC(simple_shobj_read(s, sp, bigs[other], &p, NULL), SIMPLE_ERR_CACHE_FULL);
    CHECK_RC(simple_shobj_get(s, sp, bigs[other], zeros, sizeof zeros, NULL),
             SIMPLE_ERR_CACHE_FULL);
  }
  CHECK_OK(simple_barrier(s));
  if (simple_thread(s) == 0 && simple_nodes(s) > 1) {
    /* 100-byte values take 256-byte blocks: 4 fit in 1 KiB. */
    int held = 0, rc = 0;
    simple_obj_t h[64];
    for (int q = 0; q < P && !rc; q++) {
      if (simple_node_of(s, q) == simple_node(s)) continue;
      rc = simple_shobj_read(s, sp, all[2 * q], &p, NULL);
      if (!rc) h[held++] = all[2 * q];
    }
    if (P - simple_threads(s) > 4) {
      CHECK_RC(rc, SIMPLE_ERR_CACHE_FULL);
      CHECK_EQ(held, 4);
    }
    for (int i = 0; i < held; i++) CHECK_OK(simple_shobj_done(s, sp, h[i]));
  }
  CHECK_OK(simple_barrier(s));

  /* clear refuses while a thread holds an accumulator; the stale names
   * are unknown afterwards. */
  CHECK_OK(simple_shobj_acquire(s, sp, mine[1], &w));
  CHECK_RC(simple_shobj_clear(s, sp), SIMPLE_ERR_ACC_MISUSE);
  CHECK_OK(simple_shobj_release(s, sp, mine[1]));
  CHECK_OK(simple_shobj_clear(s, sp));
  CHECK_RC(simple_shobj_get(s, sp, val, buf, sizeof buf, NULL), SIMPLE_ERR_UNKNOWN_OBJECT);
  CHECK_RC(simple_shobj_acquire(s, sp, acc, &w), SIMPLE_ERR_UNKNOWN_OBJECT);

  /* A full heap: 16 KiB per node. */
  simple_obj_t x;
  int rc = 0, made = 0;
  while (!rc) {
    rc = simple_shobj_value(s, sp, data, sizeof data, &x);
    if (!rc) made++;
  }
  CHECK_RC(rc, SIMPLE_ERR_NOMEM);
  CHECK(made <= 16384 / 144);

  /* Bad arguments. */
  CHECK_RC(simple_shobj_value(s, sp, NULL, 5, &x), SIMPLE_ERR_NULL);
  CHECK_RC(simple_shobj_value(s, NULL, data, 5, &x), SIMPLE_ERR_ARG);
  CHECK_RC(simple_shobj_read(s, sp, val, NULL, NULL), SIMPLE_ERR_NULL);
  CHECK_RC(simple_shobj_fetch(s, sp, NULL, 3), SIMPLE_ERR_NULL);
  CHECK_RC(simple_shobj_stats(s, sp, NULL), SIMPLE_ERR_NULL);
  CHECK_OK(simple_shobj_close(s, sp));
  /* Names from a closed space mean nothing in a new one. */
  CHECK_OK(simple_shobj_open(s, &o, &sp));
  CHECK_RC(simple_shobj_read(s, sp, val, &p, NULL), SIMPLE_ERR_UNKNOWN_OBJECT);
  CHECK_OK(simple_shobj_close(s, sp));
  o.per_thread = 7;
  CHECK_RC(simple_shobj_open(s, &o, &sp), SIMPLE_ERR_ARG);
  free(all);
  free(bigs);
}

TEST_MAIN(spmd)
