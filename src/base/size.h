/* Internal: overflow-checked size arithmetic, the one copy for the whole
 * library. Each check is a compare and a branch (~1 ns); every size a
 * caller gives passes through here before it reaches memcpy or malloc. */
#ifndef SIMPLE_BASE_SIZE_H
#define SIMPLE_BASE_SIZE_H

#include <stddef.h>
#include <stdint.h>

#include "simple/core.h"

/* a * b into *out: 0, or SIMPLE_ERR_COUNT (and *out untouched) on overflow. */
static inline int simple__size_mul(size_t a, size_t b, size_t *out) {
  if (a && b > SIZE_MAX / a) return SIMPLE_ERR_COUNT;
  *out = a * b;
  return 0;
}

/* *acc += x: 0, or SIMPLE_ERR_COUNT on overflow. */
static inline int simple__size_add(size_t *acc, size_t x) {
  if (x > SIZE_MAX - *acc) return SIMPLE_ERR_COUNT;
  *acc += x;
  return 0;
}

/* *x rounded up to a multiple of align (a power of two): 0, or
 * SIMPLE_ERR_COUNT on overflow. */
static inline int simple__size_align(size_t *x, size_t align) {
  if (*x > SIZE_MAX - (align - 1)) return SIMPLE_ERR_COUNT;
  *x = (*x + align - 1) & ~(align - 1);
  return 0;
}

/* Elements needed to hold blocks [first, last) of a v-layout:
 * max(displs[i] + counts[i]) over the non-empty blocks, overflow-checked
 * (SIMPLE_ERR_COUNT); SIMPLE_ERR_NULL if counts or displs is NULL with a
 * non-empty range. O(last - first). */
int simple__size_extent(const size_t *counts, const size_t *displs, int first, int last,
                        size_t *out);

/* Sum of counts[first..last), overflow-checked. O(last - first). */
int simple__size_sum(const size_t *counts, int first, int last, size_t *out);

#endif
