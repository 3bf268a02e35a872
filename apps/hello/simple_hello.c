/* simple-hello: every thread of the job says where it is.
 *   simplerun -N 3 -t 1,2,3 build/bin/simple-hello   prints 6 lines. */
#include <stdio.h>

#include <simple.h>

static void hello(simple_t *s, void *arg) {
  (void)arg;
  /* One printf per line: stdio locks the stream, so lines never interleave. */
  printf("node=%d nodes=%d thread=%d threads=%d pid=%d nprocs=%d\n", simple_node(s),
         simple_nodes(s), simple_thread(s), simple_threads(s), simple_pid(s), simple_nprocs(s));
  fflush(stdout);
}

int main(int argc, char **argv) { return simple_run(&argc, &argv, hello, NULL); }
