/* Small pieces the applications' commands (apps/<name>/main.c) share:
 * whole-number arguments and a job-wide maximum of a time. Header-only,
 * not installed: the commands are its only users. */
#ifndef SIMPLE_APP_CLI_H
#define SIMPLE_APP_CLI_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simple.h>

/* A whole number, all of v (no sign games beyond strtol's): 0, or -1 when v
 * is empty, not a number or out of long's range. */
static inline int app_parse_long(const char *v, long *out) {
  char *end;
  errno = 0;
  if (!v || !v[0]) return -1;
  long x = strtol(v, &end, 10);
  if (errno || *end) return -1;
  *out = x;
  return 0;
}

/* `PROG --version` anywhere among the arguments: prints one line with
 * simple's version and exits 0, before any job starts (so it answers
 * outside a launcher too). Call first in main. */
static inline void app_version(int argc, char **argv, const char *prog) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--version") == 0) {
      printf("%s (simple) %s\n", prog, simple_version_string());
      exit(0);
    }
}

/* Whether this is the job's first process, the one that reports an
 * argument error found before the job starts (every process parses the
 * same arguments alike). */
static inline int app_first_process(void) { return simple_launch_node() == 0; }

/* The exit status of a process that found an argument error before the
 * job started: 2 in the first process, which reports it, and 0 in the
 * others, which say nothing. A launcher ends the whole job as soon as one
 * process exits non-zero (Open MPI's mpiexec kills the rest), so a silent
 * process exiting 2 could take the first one down before it had printed
 * its message (seen: `simplerun -N 2 -t 2 simple-sort --n 10 --algo
 * bogus` ended with status 2 and no message); exiting 0 the others leave
 * the job's status to the first process, which the launcher returns. */
static inline int app_arg_status(void) { return app_first_process() ? 2 : 0; }

/* The largest v over every thread of the job (an allreduce: collective).
 * A failed allreduce ends the job with prog's name. */
static inline double app_max_over(simple_t *s, double v, const char *prog) {
  double m = v;
  if (simple_allreduce(s, &v, &m, 1, SIMPLE_DOUBLE, SIMPLE_MAX))
    simple_abort(s, "%s: allreduce failed", prog);
  return m;
}

#endif
