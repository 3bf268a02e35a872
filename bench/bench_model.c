/* simple-bench model: placeholder until the model lands. */
#include <stdio.h>

#include "bench.h"

int bench_model_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "simple-bench model: not built yet\n");
  return 2;
}
