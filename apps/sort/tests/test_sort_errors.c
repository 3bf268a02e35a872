/* Refused arguments of simple_sort_*: the failing thread gets its code,
 * every other thread SIMPLE_ERR_PEER, nothing is returned; the job goes on
 * (a good sort afterwards works). Also the local helpers. */
#include "harness.h"
#include "simple_sort.h"

static void body(simple_t *s, void *arg) {
  (void)arg;
  int me = simple_pid(s), P = simple_nprocs(s);
  uint32_t k32[4] = {4, 3, 2, 1}, *o32 = (uint32_t *)1;
  uint64_t k64[4] = {4, 3, 2, 1}, *o64 = (uint64_t *)1;
  size_t n_out = 99;

  /* Local helpers. */
  size_t lo, cnt;
  CHECK_RC(simple_sort_slice(10, 0, 0, &lo, &cnt), SIMPLE_ERR_ARG);
  CHECK_RC(simple_sort_slice(10, 3, 3, &lo, &cnt), SIMPLE_ERR_ARG);
  CHECK_RC(simple_sort_slice(10, 3, -1, &lo, &cnt), SIMPLE_ERR_ARG);
  CHECK_RC(simple_sort_slice(10, 3, 0, NULL, &cnt), SIMPLE_ERR_NULL);
  CHECK_OK(simple_sort_slice(10, 3, 0, &lo, &cnt));
  CHECK(lo == 0 && cnt == 4);
  CHECK_OK(simple_sort_slice(10, 3, 2, &lo, &cnt));
  CHECK(lo == 7 && cnt == 3);
  simple_sort_algo_t a;
  simple_sort_dist_t d;
  CHECK_RC(simple_sort_algo_parse("quick", &a), SIMPLE_ERR_ARG);
  CHECK_OK(simple_sort_algo_parse("rdxopt", &a));
  CHECK(a == SIMPLE_SORT_RDXOPT);
  CHECK_RC(simple_sort_dist_parse("gauss", &d), SIMPLE_ERR_ARG);
  CHECK_RC(simple_sort_gen_u32((simple_sort_dist_t)99, 1, 4, 0, 4, k32), SIMPLE_ERR_ARG);
  CHECK_RC(simple_sort_gen_u64(SIMPLE_SORT_UNIFORM, 1, 4, 0, 4, NULL), SIMPLE_ERR_NULL);
  CHECK_RC(simple_sort_u32(NULL, k32, 4, &o32, &n_out, NULL), SIMPLE_ERR_NOT_IN_JOB);
  CHECK(simple_sort_hash_u32(k32, 4) == simple_sort_hash_u32((uint32_t[]){1, 2, 3, 4}, 4));
  CHECK(simple_sort_hash_u64(k64, 4) != simple_sort_hash_u64((uint64_t[]){1, 2, 3, 3}, 4));

  /* One bad thread at a time (the last one): it gets the code, the others
   * SIMPLE_ERR_PEER; outputs are cleared everywhere. */
  int bad = P - 1, i_am = me == bad;
  simple_sort_opts_t bad_algo = {(simple_sort_algo_t)7, 0, NULL};
  simple_sort_opts_t bad_bits = {SIMPLE_SORT_SIMPLE, 17, NULL};
  simple_sort_opts_t neg_bits = {SIMPLE_SORT_RDX, -1, NULL};
  CHECK_RC(simple_sort_u32(s, i_am ? NULL : k32, 4, &o32, &n_out, NULL),
           i_am ? SIMPLE_ERR_NULL : SIMPLE_ERR_PEER);
  CHECK(o32 == NULL && n_out == 0);
  CHECK_RC(simple_sort_u64(s, k64, 4, i_am ? NULL : &o64, &n_out, NULL),
           i_am ? SIMPLE_ERR_NULL : SIMPLE_ERR_PEER);
  CHECK_RC(simple_sort_u64(s, k64, 4, &o64, i_am ? NULL : &n_out, NULL),
           i_am ? SIMPLE_ERR_NULL : SIMPLE_ERR_PEER);
  CHECK_RC(simple_sort_u32(s, k32, 4, &o32, &n_out, i_am ? &bad_algo : NULL),
           i_am ? SIMPLE_ERR_ARG : SIMPLE_ERR_PEER);
  CHECK_RC(simple_sort_u32(s, k32, 4, &o32, &n_out, i_am ? &bad_bits : NULL),
           i_am ? SIMPLE_ERR_ARG : SIMPLE_ERR_PEER);
  CHECK_RC(simple_sort_u64(s, k64, 4, &o64, &n_out, i_am ? &neg_bits : NULL),
           i_am ? SIMPLE_ERR_ARG : SIMPLE_ERR_PEER);
  CHECK_RC(simple_sort_u64(s, k64, i_am ? SIZE_MAX / 2 : 4, &o64, &n_out, NULL),
           i_am ? SIMPLE_ERR_COUNT : SIMPLE_ERR_PEER);
  /* Valid but different options on different threads: SIMPLE_ERR_ARG
   * everywhere (only when there is more than one thread to disagree). */
  if (P > 1) {
    simple_sort_opts_t mine = {i_am ? SIMPLE_SORT_RDX : SIMPLE_SORT_SIMPLE, 0, NULL};
    CHECK_RC(simple_sort_u32(s, k32, 4, &o32, &n_out, &mine), SIMPLE_ERR_ARG);
    simple_sort_opts_t digits = {SIMPLE_SORT_SIMPLE, i_am ? 4 : 8, NULL};
    CHECK_RC(simple_sort_u32(s, k32, 4, &o32, &n_out, &digits), SIMPLE_ERR_ARG);
  }
  /* Into a caller's buffer too small for the slice (4 keys per thread). */
  uint32_t room[4];
  CHECK_RC(simple_sort_into_u32(s, k32, 4, room, i_am ? 3 : 4, &n_out, NULL),
           i_am ? SIMPLE_ERR_COUNT : SIMPLE_ERR_PEER);
  CHECK_RC(simple_sort_into_u32(s, k32, 4, i_am ? NULL : room, 4, &n_out, NULL),
           i_am ? SIMPLE_ERR_NULL : SIMPLE_ERR_PEER);
  CHECK_RC(simple_sort_into_u32(s, k32, 4, i_am ? k32 + 1 : room, 4, &n_out, NULL),
           i_am ? SIMPLE_ERR_ARG : SIMPLE_ERR_PEER);
  CHECK_OK(simple_sort_into_u32(s, k32, 4, room, 4, &n_out, NULL));
  CHECK_EQ(n_out, 4);
  int ok = 5;
  CHECK_RC(simple_sort_verify_u32(s, k32, 4, i_am ? NULL : k32, 4, &ok),
           i_am ? SIMPLE_ERR_NULL : SIMPLE_ERR_PEER);
  CHECK_RC(simple_sort_verify_u64(s, k64, 4, k64, 4, i_am ? NULL : &ok),
           i_am ? SIMPLE_ERR_NULL : SIMPLE_ERR_PEER);

  /* The job still works: 4 keys per thread, all sorted. */
  CHECK_OK(simple_sort_u32(s, k32, 4, &o32, &n_out, NULL));
  CHECK_EQ(n_out, 4);
  CHECK_OK(simple_sort_verify_u32(s, k32, 4, o32, n_out, &ok));
  CHECK_EQ(ok, 1);
  CHECK(o32[0] == 1 + (uint32_t)(4 * me / P) || P > 1);
  simple_sort_free(o32);
}

TEST_MAIN(body)
