/* Shared by the message tests: payloads derived from (source, destination,
 * sequence number), so every received byte can be checked without the
 * sender's help. */
#ifndef SIMPLE_TEST_MSG_CHECK_H
#define SIMPLE_TEST_MSG_CHECK_H

#include <stdint.h>

static inline uint8_t msg_byte(int src, int dst, long seq, size_t i) {
  uint64_t x = ((uint64_t)(unsigned)src * 1000003u) ^ ((uint64_t)(unsigned)dst * 7919u) ^
               ((uint64_t)seq * 104729u) ^ (uint64_t)i * 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  return (uint8_t)(x ^ (x >> 8));
}

static inline void msg_fill(void *buf, size_t n, int src, int dst, long seq) {
  uint8_t *b = buf;
  for (size_t i = 0; i < n; i++) b[i] = msg_byte(src, dst, seq, i);
}

/* Index of the first wrong byte, or -1. */
static inline long msg_bad(const void *buf, size_t n, int src, int dst, long seq) {
  const uint8_t *b = buf;
  for (size_t i = 0; i < n; i++)
    if (b[i] != msg_byte(src, dst, seq, i)) return (long)i;
  return -1;
}

#endif
