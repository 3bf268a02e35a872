#include "run/options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static int parse_count(const char **p, long *out) {
  char *end;
  errno = 0;
  if (**p < '0' || **p > '9') return -1; /* no sign, no blanks */
  long v = strtol(*p, &end, 10);
  if (errno || end == *p) return -1;
  *p = end;
  *out = v;
  return 0;
}

int simple__parse_threads(const char *spec, int node, int nodes, int *threads, char *err,
                          size_t errlen) {
  long counts_seen = 0, first = 0, mine = 0, v;
  const char *p = spec;
  for (;;) {
    if (parse_count(&p, &v) != 0 || v < 1 || v > SIMPLE__MAX_THREADS) {
      snprintf(err, errlen, "SIMPLE_THREADS='%s': each count must be an integer from 1 to %d", spec,
               SIMPLE__MAX_THREADS);
      return -1;
    }
    if (counts_seen == 0) first = v;
    if (counts_seen == node) mine = v;
    counts_seen++;
    if (*p == '\0') break;
    if (*p != ',') {
      snprintf(err, errlen, "SIMPLE_THREADS='%s': expected a count or a comma-separated list",
               spec);
      return -1;
    }
    p++;
  }
  if (counts_seen != 1 && counts_seen != nodes) {
    snprintf(err, errlen,
             "SIMPLE_THREADS='%s' gives %ld counts for %d nodes: give one count, or one "
             "per node",
             spec, counts_seen, nodes);
    return -1;
  }
  *threads = (int)(counts_seen == 1 ? first : mine);
  return 0;
}

long simple__env_long(const char *name, long dflt) {
  const char *s = getenv(name);
  if (!s || !*s) return dflt;
  long v;
  const char *p = s;
  if (parse_count(&p, &v) != 0 || *p != '\0') return -1;
  return v;
}
