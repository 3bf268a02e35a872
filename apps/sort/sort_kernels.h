/* The radix sort's two inner loops, shared by the library (sort.c) and by
 * the benchmark's flat-MPI version of the same algorithm (bench/bench_sort.c),
 * so that both sides of that comparison run the same machine code per key.
 * Not part of the public API (simple_sort.h). */
#ifndef SIMPLE_SORT_KERNELS_H
#define SIMPLE_SORT_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/* A run of output positions for one digit: len keys at dst. */
typedef struct {
  char *dst;
  size_t len;
} sort_piece_t;

/* Histogram of digit (key >> sh) & mask over a[0..n), added to h: one load
 * and one increment per key. */
#define SORT_HIST(K, SUF)                                                                 \
  static inline void sort_hist_##SUF(const K *a, size_t n, int sh, K mask, uint64_t *h) { \
    for (size_t i = 0; i < n; i++) h[(a[i] >> sh) & mask]++;                              \
  }
SORT_HIST(uint32_t, u32)
SORT_HIST(uint64_t, u64)

/* Stable scatter of a[0..n) by digit: cursor cur[v] walks through the
 * pieces of digit v (pieces[next[v]] is the next one), each write is one
 * store and one predictable compare. */
#define SORT_SCATTER(K, SUF)                                                                    \
  static inline void sort_scatter_##SUF(const K *a, size_t n, int sh, K mask, K **cur, K **end, \
                                        size_t *next, const sort_piece_t *pieces) {             \
    for (size_t i = 0; i < n; i++) {                                                            \
      K k = a[i];                                                                               \
      size_t v = (size_t)((k >> sh) & mask);                                                    \
      K *d = cur[v];                                                                            \
      *d++ = k;                                                                                 \
      if (d == end[v]) {                                                                        \
        const sort_piece_t *p = &pieces[next[v]++];                                             \
        d = (K *)(void *)p->dst;                                                                \
        end[v] = d + p->len;                                                                    \
      }                                                                                         \
      cur[v] = d;                                                                               \
    }                                                                                           \
  }
SORT_SCATTER(uint32_t, u32)
SORT_SCATTER(uint64_t, u64)

#endif
