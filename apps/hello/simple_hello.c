#define _POSIX_C_SOURCE 200809L
/* simple-hello: every thread of the job says where it is, on which host.
 *   simplerun -N 3 -t 1,2,3 build/bin/simple-hello   prints 6 lines. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <simple.h>

static void hello(simple_t *s, void *arg) {
  (void)arg;
  char host[256] = "?";
  if (gethostname(host, sizeof host - 1) != 0) strcpy(host, "?");
  host[sizeof host - 1] = '\0';
  /* One printf per line: stdio locks the stream, so lines never interleave. */
  printf("node=%d nodes=%d thread=%d threads=%d pid=%d nprocs=%d host=%s\n", simple_node(s),
         simple_nodes(s), simple_thread(s), simple_threads(s), simple_pid(s), simple_nprocs(s),
         host);
  fflush(stdout);
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--version") == 0) {
      printf("simple-hello (simple) %s\n", simple_version_string());
      return 0;
    }
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf(
          "usage: simplerun [-N NODES] [-t THREADS] simple-hello\n"
          "Every thread of the job prints one line: its node, thread, global rank and "
          "host.\n");
      return 0;
    }
  }
  return simple_run(&argc, &argv, hello, NULL);
}
