/* The driver shared by the fuzz targets: a one-thread job (simplerun -N 1
 * -t 1) whose SPMD function hands control to libFuzzer
 * (LLVMFuzzerRunDriver), so that MPI and the job start once and every input
 * runs against the live library. libFuzzer's options (-runs=N,
 * -max_total_time=S, a corpus directory) follow the program's name.
 *
 * A target defines fuzz_one(s, data, size) and FUZZ_MAIN(). Every call's
 * return value must be one of the documented codes; anything else, and
 * any sanitizer report, is a finding. */
#ifndef SIMPLE_FUZZ_DRIVER_H
#define SIMPLE_FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simple.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*cb)(const uint8_t *data, size_t size));

static void fuzz_one(simple_t *s, const uint8_t *data, size_t size);

static simple_t *fuzz_self;
static int fuzz_argc;
static char **fuzz_argv;

/* A code outside the documented list means a call returned garbage. */
static void fuzz_rc(int rc, const char *call) {
  if (rc >= SIMPLE_SUCCESS && rc <= SIMPLE_ERR_TRUNCATE) return;
  fprintf(stderr, "fuzz: %s returned %d, not a simple error code\n", call, rc);
  abort();
}

/* Reads input bytes as parameters; past the end, zeros. */
typedef struct {
  const uint8_t *p;
  size_t n;
} fuzz_in_t;

static inline uint8_t fuzz_u8(fuzz_in_t *in) {
  if (!in->n) return 0;
  in->n--;
  return *in->p++;
}

static inline uint32_t fuzz_u32(fuzz_in_t *in) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v = v << 8 | fuzz_u8(in);
  return v;
}

static int fuzz_callback(const uint8_t *data, size_t size) {
  fuzz_one(fuzz_self, data, size);
  return 0;
}

/* libFuzzer ends the process with exit() when its run is over: the
 * library's exit handler then ends the job on the main thread (thread 0 of
 * this one-thread job) and finalizes MPI, as for any program that exits from
 * its SPMD part. */
static void fuzz_spmd(simple_t *s, void *arg) {
  (void)arg;
  fuzz_self = s;
  if (simple_nprocs(s) != 1) {
    fprintf(stderr, "fuzz: run on one thread (simplerun -N 1 -t 1)\n");
    return;
  }
  LLVMFuzzerRunDriver(&fuzz_argc, &fuzz_argv, fuzz_callback);
}

#define FUZZ_MAIN()                                   \
  int main(int argc, char **argv) {                   \
    fuzz_argc = argc;                                 \
    fuzz_argv = argv;                                 \
    return simple_run(&argc, &argv, fuzz_spmd, NULL); \
  }

#endif
