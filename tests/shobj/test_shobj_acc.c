/* Accumulators: every thread of the job adds to every node's counters
 * under exclusive access; the totals are the closed form. A wide
 * accumulator whose writers always store one number in every field is
 * read meanwhile: each version read has all fields equal. */
#include "harness.h"

#define ADDS 5
#define WIDE 64

static void spmd(simple_t *s, void *arg) {
  (void)arg;
  int N = simple_nodes(s), P = simple_nprocs(s);
  simple_shobj_space_t *sp;
  CHECK_OK(simple_shobj_open(s, NULL, &sp));
  /* Thread 0 of each node makes its node's counter and wide accumulator. */
  simple_obj_t mine[2] = {SIMPLE_SHOBJ_NULL, SIMPLE_SHOBJ_NULL};
  if (simple_thread(s) == 0) {
    int64_t zero = 0;
    CHECK_OK(simple_shobj_acc(s, sp, &zero, sizeof zero, &mine[0]));
    CHECK_OK(simple_shobj_acc(s, sp, NULL, WIDE * sizeof(int64_t), &mine[1]));
    CHECK_EQ(simple_shobj_kind(mine[0]), 2);
  }
  simple_obj_t *all = malloc(sizeof mine * (size_t)P);
  CHECK(all);
  CHECK_OK(simple_allgather(s, mine, all, sizeof mine, SIMPLE_BYTE));
  simple_obj_t *cnt = malloc(sizeof *cnt * (size_t)N), *wide = malloc(sizeof *wide * (size_t)N);
  CHECK(cnt && wide);
  for (int k = 0; k < N; k++) {
    cnt[k] = all[2 * simple_pid_of(s, k, 0)];
    wide[k] = all[2 * simple_pid_of(s, k, 0) + 1];
  }
  for (int r = 0; r < ADDS; r++)
    for (int k = 0; k < N; k++) {
      int kk = (k + simple_pid(s)) % N;
      int64_t *v;
      CHECK_OK(simple_shobj_acquire(s, sp, cnt[kk], (void **)&v));
      *v += simple_pid(s) + 1;
      CHECK_OK(simple_shobj_release(s, sp, cnt[kk]));
      /* The wide one: write this thread's number everywhere, then read
       * another node's. */
      int64_t *w;
      CHECK_OK(simple_shobj_acquire(s, sp, wide[kk], (void **)&w));
      for (int i = 0; i < WIDE; i++) w[i] = simple_pid(s) * 1000 + r;
      CHECK_OK(simple_shobj_release(s, sp, wide[kk]));
      int64_t got[WIDE];
      size_t n;
      CHECK_OK(simple_shobj_get(s, sp, wide[(kk + 1) % N], got, sizeof got, &n));
      CHECK_EQ(n, sizeof got);
      for (int i = 1; i < WIDE; i++) CHECK_EQ(got[i], got[0]);
    }
  CHECK_OK(simple_barrier(s));
  /* Every thread added pid + 1 ADDS times to every counter. */
  int64_t want = (int64_t)ADDS * P * (P + 1) / 2;
  for (int k = 0; k < N; k++) {
    int64_t v;
    CHECK_OK(simple_shobj_get(s, sp, cnt[k], &v, sizeof v, NULL));
    CHECK_EQ(v, want);
  }
  /* simple_shobj_write replaces the whole contents. */
  CHECK_OK(simple_barrier(s));
  if (simple_pid(s) == P - 1) {
    int64_t nine = 9;
    CHECK_OK(simple_shobj_write(s, sp, cnt[0], &nine, sizeof nine));
  }
  CHECK_OK(simple_barrier(s));
  int64_t v;
  CHECK_OK(simple_shobj_get(s, sp, cnt[0], &v, sizeof v, NULL));
  CHECK_EQ(v, 9);
  simple_shobj_stats_t st;
  CHECK_OK(simple_shobj_stats(s, sp, &st));
  CHECK(st.acc_updates >= (uint64_t)(2 * ADDS * N));
  CHECK_OK(simple_shobj_close(s, sp));
  free(all);
  free(cnt);
  free(wide);
}

TEST_MAIN(spmd)
