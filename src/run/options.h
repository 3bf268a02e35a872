/* Internal: the job's options, read from the environment (set by simplerun,
 * or by hand). Parsing never aborts: errors come back as text so that the
 * caller decides which node prints them. */
#ifndef SIMPLE_RUN_OPTIONS_H
#define SIMPLE_RUN_OPTIONS_H

#include <stddef.h>

#define SIMPLE__MAX_THREADS 4096

/* Parses a thread-count spec, "R" (every node) or "R0,R1,...,R(P-1)" (one
 * per node, exactly `nodes` of them), and stores node `node`'s count in
 * *threads. Returns 0, or -1 with a message in err. */
int simple__parse_threads(const char *spec, int node, int nodes, int *threads, char *err,
                          size_t errlen);

/* Parses a non-negative integer environment variable; returns dflt when it
 * is unset or empty, -1 when it is set but not a number. */
long simple__env_long(const char *name, long dflt);

#endif
