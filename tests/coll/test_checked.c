/* Checked mode (SIMPLE_CHECK=1): collectives called alike work as usual;
 * a thread that calls another collective, or the same one with another
 * count, type, op or root, gets SIMPLE_ERR_ARG and every other thread
 * SIMPLE_ERR_PEER, with nothing written, and the job stays usable. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "harness.h"

static void expect(simple_t *s, int offender, int rc) {
  CHECK_EQ(rc, offender ? SIMPLE_ERR_ARG : SIMPLE_ERR_PEER);
}

static void test(simple_t *s, void *arg) {
  (void)arg;
  int p = simple_nprocs(s), me = simple_pid(s);
  long long x = me + 1, sum = 0;
  CHECK_OK(simple_allreduce(s, &x, &sum, 1, SIMPLE_INT64, SIMPLE_SUM));
  CHECK_EQ(sum, (long long)p * (p + 1) / 2);
  CHECK_OK(simple_barrier(s));
  if (p == 1) return;

  /* Each case's offender: the last thread of the job (alone on its node in
   * some layouts, beside others in the rest), then thread 0 of node 0's
   * neighbour, so both the node and the job-level comparisons are hit. */
  int offenders[2] = {p - 1, simple_pid_of(s, simple_nodes(s) > 1 ? 1 : 0, 0)};
  /* Two threads in all: a mismatch is a tie, which the check settles for
   * node 0's first thread, so only the last thread can be the offender. */
  int cases = p > 2 ? 2 : 1;
  for (int k = 0; k < cases; k++) {
    int bad = me == offenders[k];
    long long y = 7, got = -1;
    /* Another collective. */
    int rc = bad ? simple_bcast(s, &y, 1, SIMPLE_INT64, 0)
                 : simple_allreduce(s, &x, &got, 1, SIMPLE_INT64, SIMPLE_SUM);
    expect(s, bad, rc);
    CHECK_EQ(got, -1);
    CHECK_EQ(y, 7);
    /* Another count. */
    long long two[2] = {1, 2}, out[2] = {-1, -1};
    rc = simple_allreduce(s, two, out, bad ? 2 : 1, SIMPLE_INT64, SIMPLE_SUM);
    expect(s, bad, rc);
    CHECK_EQ(out[0], -1);
    /* Another op, another root. */
    rc = simple_allreduce(s, &x, &got, 1, SIMPLE_INT64, bad ? SIMPLE_MAX : SIMPLE_SUM);
    expect(s, bad, rc);
    rc = simple_bcast(s, &y, 1, SIMPLE_INT64, bad ? p - 1 : 0);
    expect(s, bad, rc);
    CHECK_EQ(y, 7);
  }
  /* Still in step. */
  CHECK_OK(simple_allreduce(s, &x, &sum, 1, SIMPLE_INT64, SIMPLE_SUM));
  CHECK_EQ(sum, (long long)p * (p + 1) / 2);
}

int main(int argc, char **argv) {
  setenv("SIMPLE_CHECK", "1", 1); /* every node's process runs this main */
  return simple_run(&argc, &argv, test, NULL);
}
