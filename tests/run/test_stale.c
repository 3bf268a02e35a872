/* Calls with a context that is not the calling thread's live one: NULL
 * inside the job, and a handle kept after simple_run returned (its memory
 * freed). Every public call that takes a context answers without touching
 * it: SIMPLE_ERR_NOT_IN_JOB for the calls that return a code, -1 for the
 * queries that return a number, 0 for simple_rma_procs (no processors),
 * "" for simple_rma_error. A crash here is a
 * failure of the test (the job's exit status). */
#include "harness.h"

static simple_t *kept; /* node's thread 0's context, kept past simple_run */

/* Every call that returns an error code, with arguments that would be valid
 * for a live context; rc[i] gets call i's result, name[i] its text. */
#define MAX_CALLS 96
static int codes(simple_t *s, int *rc, const char **name) {
  int n = 0;
#define CALL(expr)    \
  do {                \
    name[n] = #expr;  \
    rc[n++] = (expr); \
  } while (0)
  int32_t x = 1, y = 0;
  size_t one = 1, zero = 0, tagsize = 4, nm = 0, nb = 0;
  simple_request_t r = SIMPLE_REQUEST_NULL;
  simple_status_t st;
  simple_buf_t id = SIMPLE_BUF_NULL;
  void *p = NULL;
  const void *cp = NULL, *cq = NULL;
  int flag = 0, part = 0, count = 0;
  long li = 0, lj = 0;
  ptrdiff_t status = 0;
  simple_range_t range;
  simple_domain_t dom;
  simple_dist_t d = simple_dist_1d(16, SIMPLE_BLOCK, 0, SIMPLE_OVER_THREADS);
  size_t received = 0;
  int dest = 0;
  CALL(simple_barrier(s));
  CALL(simple_bcast(s, &x, 1, SIMPLE_INT32, 0));
  CALL(simple_reduce(s, &x, &y, 1, SIMPLE_INT32, SIMPLE_SUM, 0));
  CALL(simple_allreduce(s, &x, &y, 1, SIMPLE_INT32, SIMPLE_SUM));
  CALL(simple_scan(s, &x, &y, 1, SIMPLE_INT32, SIMPLE_SUM));
  CALL(simple_exscan(s, &x, &y, 1, SIMPLE_INT32, SIMPLE_SUM));
  CALL(simple_gather(s, &x, &y, 1, SIMPLE_INT32, 0));
  CALL(simple_gatherv(s, &x, 1, &y, &one, &zero, SIMPLE_INT32, 0));
  CALL(simple_scatter(s, &x, &y, 1, SIMPLE_INT32, 0));
  CALL(simple_scatterv(s, &x, &one, &zero, &y, 1, SIMPLE_INT32, 0));
  CALL(simple_allgather(s, &x, &y, 1, SIMPLE_INT32));
  CALL(simple_allgatherv(s, &x, 1, &y, &one, &zero, SIMPLE_INT32));
  CALL(simple_alltoall(s, &x, &y, 1, SIMPLE_INT32));
  CALL(simple_alltoallv(s, &x, &one, &zero, &y, &one, &zero, SIMPLE_INT32));
  CALL(simple_pardo_range(s, 0, 16, SIMPLE_OVER_THREADS, SIMPLE_BLOCK, 0, &range));
  CALL(simple_dist_domain(s, &d, 0, &dom));
  CALL(simple_dist_owner(s, &d, 0, 0, &part, &li, &lj));
  CALL(simple_dist_owners(s, &d, 0, 1, 0, 1, &part, 1, &count));
  CALL(simple_redistribute(s, &x, &d, &y, &d, sizeof x));
  CALL(simple_transpose(s, &x, &d, &y, &d, sizeof x));
  CALL(simple_shift(s, &x, &d, &y, &d, 1, sizeof x));
  CALL(simple_hrelation(s, &x, 1, sizeof x, &dest, NULL, &y, 1, &received));
  CALL(simple_send(s, &x, 1, SIMPLE_INT32, 0, 0));
  CALL(simple_recv(s, &y, 1, SIMPLE_INT32, 0, 0, &st));
  CALL(simple_isend(s, &x, 1, SIMPLE_INT32, 0, 0, &r));
  CALL(simple_irecv(s, &y, 1, SIMPLE_INT32, 0, 0, &r));
  CALL(simple_wait(s, &r, &st));
  CALL(simple_waitall(s, 1, &r, &st));
  CALL(simple_test(s, &r, &flag, &st));
  CALL(simple_probe(s, 0, 0, &st));
  CALL(simple_iprobe(s, 0, 0, &flag, &st));
  CALL(simple_buf_create(s, 16, &id));
  CALL(simple_buf_free(s, id));
  CALL(simple_buf_pack(s, id, &x, 1, SIMPLE_INT32));
  CALL(simple_buf_extend(s, id, 4, &p));
  CALL(simple_buf_unpack(s, id, &y, 1, SIMPLE_INT32));
  CALL(simple_buf_data(s, id, &p, &nb));
  CALL(simple_buf_send(s, id, 0, 0));
  CALL(simple_buf_recv(s, 0, 0, &id, &st));
  CALL(simple_node_barrier(s));
  CALL(simple_node_bcast(s, &x, 1, SIMPLE_INT32, 0));
  CALL(simple_node_share(s, &p, 0));
  CALL(simple_node_reduce(s, &x, &y, 1, SIMPLE_INT32, SIMPLE_SUM, 0));
  CALL(simple_node_allreduce(s, &x, &y, 1, SIMPLE_INT32, SIMPLE_SUM));
  CALL(simple_node_scan(s, &x, &y, 1, SIMPLE_INT32, SIMPLE_SUM));
  CALL(simple_node_exscan(s, &x, &y, 1, SIMPLE_INT32, SIMPLE_SUM));
  CALL(simple_node_malloc(s, 64, &p));
  CALL(simple_node_free(s, p));
  CALL(simple_rma_backend(s));
  CALL(simple_rma_set_backend(s, 0));
  CALL(simple_rma_push_reg(s, &x, sizeof x));
  CALL(simple_rma_pop_reg(s, &x));
  CALL(simple_rma_put(s, 0, &x, &y, 0, sizeof x));
  CALL(simple_rma_hpput(s, 0, &x, &y, 0, sizeof x));
  CALL(simple_rma_get(s, 0, &x, 0, &y, sizeof x));
  CALL(simple_rma_hpget(s, 0, &x, 0, &y, sizeof x));
  CALL(simple_rma_sync(s));
  CALL(simple_bsmp_set_tagsize(s, &tagsize));
  CALL(simple_bsmp_send(s, 0, &x, &y, sizeof y));
  CALL(simple_bsmp_qsize(s, &nm, &nb));
  CALL(simple_bsmp_get_tag(s, &status, &x));
  CALL(simple_bsmp_move(s, &y, sizeof y));
  CALL(simple_bsmp_hpmove(s, &cp, &cq, &status));
  CALL(simple_rma_set_procs(s, 1));
  simple_shobj_space_t *sp = NULL;
  simple_obj_t obj;
  memset(&obj, 0, sizeof obj);
  simple_shobj_stats_t stats;
  CALL(simple_shobj_open(s, NULL, &sp));
  CALL(simple_shobj_close(s, sp));
  CALL(simple_shobj_clear(s, sp));
  CALL(simple_shobj_value(s, sp, &x, sizeof x, &obj));
  CALL(simple_shobj_acc(s, sp, &x, sizeof x, &obj));
  CALL(simple_shobj_read(s, sp, obj, &cp, &nb));
  CALL(simple_shobj_done(s, sp, obj));
  CALL(simple_shobj_fetch(s, sp, &obj, 1));
  CALL(simple_shobj_get(s, sp, obj, &y, sizeof y, &nb));
  CALL(simple_shobj_acquire(s, sp, obj, &p));
  CALL(simple_shobj_release(s, sp, obj));
  CALL(simple_shobj_write(s, sp, obj, &x, sizeof x));
  CALL(simple_shobj_stats(s, sp, &stats));
  CALL(simple_shobj_stats_reset(s, sp));
#undef CALL
  return n;
}

/* The queries that return a number: -1 for a context not in the job. */
static int queries(simple_t *s, int *v, const char **name) {
  int n = 0;
  simple_dist_t d = simple_dist_1d(16, SIMPLE_BLOCK, 0, SIMPLE_OVER_THREADS);
#define QUERY(expr)  \
  do {               \
    name[n] = #expr; \
    v[n++] = (expr); \
  } while (0)
  QUERY(simple_nodes(s));
  QUERY(simple_node(s));
  QUERY(simple_threads(s));
  QUERY(simple_thread(s));
  QUERY(simple_nprocs(s));
  QUERY(simple_pid(s));
  QUERY(simple_threads_on(s, 0));
  QUERY(simple_node_of(s, 0));
  QUERY(simple_pid_of(s, 0, 0));
  QUERY(simple_cores_shared(s));
  QUERY(simple_dist_parts(s, &d));
  QUERY(simple_dist_my_part(s, &d));
  QUERY(simple_tag_ub(s));
#undef QUERY
  return n;
}

/* Returns the number of calls that answered wrongly, each printed. */
static int check_all(simple_t *bad, const char *what) {
  int rc[MAX_CALLS], wrong = 0;
  const char *name[MAX_CALLS];
  int n = codes(bad, rc, name);
  for (int i = 0; i < n; i++)
    if (rc[i] != SIMPLE_ERR_NOT_IN_JOB) {
      fprintf(stderr, "%s: %s returned %s, expected SIMPLE_ERR_NOT_IN_JOB\n", what, name[i],
              simple_errname(rc[i]));
      wrong++;
    }
  n = queries(bad, rc, name);
  for (int i = 0; i < n; i++)
    if (rc[i] != -1) {
      fprintf(stderr, "%s: %s returned %d, expected -1\n", what, name[i], rc[i]);
      wrong++;
    }
  if (simple_rma_procs(bad) != 0) {
    fprintf(stderr, "%s: simple_rma_procs returned %d, expected 0\n", what, simple_rma_procs(bad));
    wrong++;
  }
  const char *e = simple_rma_error(bad);
  if (!e || e[0]) {
    fprintf(stderr, "%s: simple_rma_error returned %s, expected \"\"\n", what, e ? e : "NULL");
    wrong++;
  }
  return wrong;
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  /* NULL inside the job: nothing happens, so the job's own calls still match. */
  CHECK_EQ(check_all(NULL, "NULL context"), 0);
  int32_t x = 1, sum = 0;
  CHECK_OK(simple_allreduce(s, &x, &sum, 1, SIMPLE_INT32, SIMPLE_SUM));
  CHECK_EQ(sum, simple_nprocs(s));
  if (simple_thread(s) == 0) kept = s;
}

int main(int argc, char **argv) {
  int rc = simple_run(&argc, &argv, test, NULL);
  if (rc != 0) {
    fprintf(stderr, "simple_run: %s\n", simple_strerror(rc));
    return 1;
  }
  if (!kept) {
    fprintf(stderr, "no context was kept\n");
    return 1;
  }
  return check_all(kept, "context after simple_run returned") == 0 ? 0 : 1;
}
