/* Built against the installed component simple::nqueens: counts the
 * solutions of 8 queens over the whole job and checks the known count, 92
 * (OEIS A000170). */
#include <simple.h>
#include <simple_nqueens.h>
#include <stdio.h>

static int failed;

static void body(simple_t *s, void *arg) {
  (void)arg;
  uint64_t n = 0;
  if (simple_nqueens(s, 8, NULL, &n) != 0 || n != 92) failed = 1;
  if (simple_pid(s) == 0 && !failed)
    printf("consumer_nqueens: 8 queens, %llu solutions\n", (unsigned long long)n);
}

int main(int argc, char **argv) {
  int rc = simple_run(&argc, &argv, body, NULL);
  return rc || failed;
}
