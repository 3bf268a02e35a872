/* Internal: the one growable buffer of the library. Layers keep their work
 * space across calls in these (no allocation once a size has been seen):
 * a buffer only grows, geometrically, so a sweep of growing sizes
 * reallocates O(log size) times. A leaf header: it depends on nothing of
 * the library, so every layer (src/run included) may hold one. */
#ifndef SIMPLE_BASE_BUF_H
#define SIMPLE_BASE_BUF_H

#include <stddef.h>

typedef struct {
  void *p;    /* cache-line aligned, NULL until the first grow */
  size_t cap; /* bytes at p */
} simple__buf_t;

/* Grows b to at least `bytes` (at least twice its old size when it grows
 * at all), cache-line aligned; the contents are NOT kept. 0 or
 * SIMPLE_ERR_NOMEM (b unchanged). Cost: nothing when it fits, else one
 * posix_memalign and one free. */
int simple__buf_grow(simple__buf_t *b, size_t bytes);

/* simple__buf_grow that hands the old block (NULL if none, or if b did
 * not grow) to the caller in *old instead of freeing it: for a buffer that
 * other threads may still be reading when it grows (src/xchg's room). */
int simple__buf_grow_keep(simple__buf_t *b, size_t bytes, void **old);

/* Releases b's memory; b is empty afterwards. */
void simple__buf_free(simple__buf_t *b);

/* An array of elements of `elem` bytes at *arr with room for *cap of
 * them: when it is full (n == *cap), doubles the room (at least `first`
 * elements), keeping the contents (realloc). 0 or SIMPLE_ERR_NOMEM (the
 * array unchanged). Amortized O(1) per element added. */
int simple__array_grow(void *arr, int *cap, int n, size_t elem, int first);

#endif
