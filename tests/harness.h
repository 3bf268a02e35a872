/* The test harness: each test is an SPMD program run by simplerun under
 * several node x thread layouts (tests/CMakeLists.txt). A failed check
 * ends the whole job through simple_abort with file, line, node and thread,
 * so CTest sees a non-zero exit and the message. The handle must be named
 * `s` where the checks are used. */
#ifndef SIMPLE_TEST_HARNESS_H
#define SIMPLE_TEST_HARNESS_H

#include <complex.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simple.h>

#define CHECK(cond)                                                                     \
  do {                                                                                  \
    if (!(cond)) simple_abort(s, "%s:%d: check failed: %s", __FILE__, __LINE__, #cond); \
  } while (0)

#define CHECK_EQ(a, b)                                                                          \
  do {                                                                                          \
    long long a_ = (long long)(a), b_ = (long long)(b);                                         \
    if (a_ != b_)                                                                               \
      simple_abort(s, "%s:%d: %s == %lld, expected %s == %lld", __FILE__, __LINE__, #a, a_, #b, \
                   b_);                                                                         \
  } while (0)

/* A call that must succeed. */
#define CHECK_OK(call)                                                         \
  do {                                                                         \
    int rc_ = (call);                                                          \
    if (rc_ != 0)                                                              \
      simple_abort(s, "%s:%d: %s returned %s (%s)", __FILE__, __LINE__, #call, \
                   simple_errname(rc_), simple_strerror(rc_));                 \
  } while (0)

/* A call that must fail with a given code. */
#define CHECK_RC(call, want)                                                           \
  do {                                                                                 \
    int rc_ = (call), want_ = (want);                                                  \
    if (rc_ != want_)                                                                  \
      simple_abort(s, "%s:%d: %s returned %s, expected %s", __FILE__, __LINE__, #call, \
                   simple_errname(rc_), simple_errname(want_));                        \
  } while (0)

#define TEST_MAIN(fn)                                                        \
  int main(int argc, char **argv) {                                          \
    int rc_ = simple_run(&argc, &argv, fn, NULL);                            \
    if (rc_ != 0) fprintf(stderr, "simple_run: %s\n", simple_strerror(rc_)); \
    return rc_ == 0 ? 0 : 1;                                                 \
  }

/* Every datatype, for loops over types. */
static const simple_type_t test_types[] = {
    SIMPLE_INT8,          SIMPLE_INT16,          SIMPLE_INT32,  SIMPLE_INT64, SIMPLE_UINT8,
    SIMPLE_UINT16,        SIMPLE_UINT32,         SIMPLE_UINT64, SIMPLE_FLOAT, SIMPLE_DOUBLE,
    SIMPLE_FLOAT_COMPLEX, SIMPLE_DOUBLE_COMPLEX, SIMPLE_BYTE};
#define TEST_NTYPES (sizeof test_types / sizeof test_types[0])

static const simple_op_t test_ops[] = {SIMPLE_SUM,  SIMPLE_PROD, SIMPLE_MIN,
                                       SIMPLE_MAX,  SIMPLE_BAND, SIMPLE_BOR,
                                       SIMPLE_BXOR, SIMPLE_LAND, SIMPLE_LOR};
#define TEST_NOPS (sizeof test_ops / sizeof test_ops[0])

/* Which ops MPI defines for which types, written out here from the MPI
 * standard's table rather than asked of the library. */
static inline int test_op_valid(simple_op_t op, simple_type_t t) {
  int is_int = t <= SIMPLE_UINT64, is_real = t == SIMPLE_FLOAT || t == SIMPLE_DOUBLE;
  int is_cplx = t == SIMPLE_FLOAT_COMPLEX || t == SIMPLE_DOUBLE_COMPLEX;
  switch (op) {
    case SIMPLE_SUM:
    case SIMPLE_PROD: return is_int || is_real || is_cplx;
    case SIMPLE_MIN:
    case SIMPLE_MAX: return is_int || is_real;
    case SIMPLE_BAND:
    case SIMPLE_BOR:
    case SIMPLE_BXOR: return is_int || t == SIMPLE_BYTE;
    case SIMPLE_LAND:
    case SIMPLE_LOR: return is_int;
    default: return 0;
  }
}

/* A deterministic input value for element i of processor p under op:
 * small enough that sums and products of up to 16 processors are exact in
 * every floating type, with some wrap-around for narrow integers (which
 * both sides must then agree on). Returned as (re, im); im is used by
 * complex types only. */
static inline void test_value(simple_op_t op, simple_type_t t, int p, size_t i, long long *re,
                              long long *im) {
  long long k = (long long)(i % 1009);
  int is_signed = t <= SIMPLE_INT64 || t >= SIMPLE_FLOAT;
  switch (op) {
    case SIMPLE_PROD:
      *re = ((p + k) % 3 == 0) ? 2 : 1;
      if (is_signed && (p + k) % 4 == 1) *re = -*re;
      *im = (t >= SIMPLE_FLOAT_COMPLEX) ? ((p + k) % 2) : 0;
      break;
    case SIMPLE_MIN:
    case SIMPLE_MAX:
      *re = (p * 7 + k * 13) % 17 + (is_signed ? -8 : 0);
      *im = 0;
      break;
    case SIMPLE_BAND:
    case SIMPLE_BOR:
    case SIMPLE_BXOR:
      *re = (long long)(((unsigned long long)(p * 37 + k * 11 + 5) * 0x9E3779B97F4A7C15ull) >> 1);
      *im = 0;
      break;
    case SIMPLE_LAND:
      *re = (p + k) % 5 != 0 ? (p + 1) : 0;
      *im = 0;
      break;
    case SIMPLE_LOR:
      *re = (p + 2 * k) % 7 == 0 ? 3 : 0;
      *im = 0;
      break;
    default: /* SUM and user ops */
      *re = (p * 3 + k) % 11 + (is_signed ? -5 : 0);
      *im = (p + 2 * k) % 5 - 2;
      break;
  }
}

/* Stores (re, im) as element i of a typed array (narrowing integers wrap,
 * as GCC and Clang define the conversion). */
static inline void test_store(simple_type_t t, void *buf, size_t i, long long re, long long im) {
  switch (t) {
    case SIMPLE_INT8: ((int8_t *)buf)[i] = (int8_t)re; break;
    case SIMPLE_INT16: ((int16_t *)buf)[i] = (int16_t)re; break;
    case SIMPLE_INT32: ((int32_t *)buf)[i] = (int32_t)re; break;
    case SIMPLE_INT64: ((int64_t *)buf)[i] = (int64_t)re; break;
    case SIMPLE_UINT8: ((uint8_t *)buf)[i] = (uint8_t)re; break;
    case SIMPLE_UINT16: ((uint16_t *)buf)[i] = (uint16_t)re; break;
    case SIMPLE_UINT32: ((uint32_t *)buf)[i] = (uint32_t)re; break;
    case SIMPLE_UINT64: ((uint64_t *)buf)[i] = (uint64_t)re; break;
    case SIMPLE_FLOAT: ((float *)buf)[i] = (float)re; break;
    case SIMPLE_DOUBLE: ((double *)buf)[i] = (double)re; break;
    case SIMPLE_FLOAT_COMPLEX: ((float _Complex *)buf)[i] = (float)re + (float)im * I; break;
    case SIMPLE_DOUBLE_COMPLEX: ((double _Complex *)buf)[i] = (double)re + (double)im * I; break;
    case SIMPLE_BYTE: ((uint8_t *)buf)[i] = (uint8_t)re; break;
    default: break;
  }
}

/* Fills n elements with processor p's inputs for op. */
static inline void test_fill(simple_op_t op, simple_type_t t, void *buf, size_t n, int p) {
  for (size_t i = 0; i < n; i++) {
    long long re, im;
    test_value(op, t, p, i, &re, &im);
    test_store(t, buf, i, re, im);
  }
}

/* The reference combination, written with the plain C operators of each
 * type: acc[i] = acc[i] op in[i]. Independent of the library's kernels. */
#define TEST_INT_COMBINE(T)                                          \
  {                                                                  \
    T *a = acc;                                                      \
    const T *b = in;                                                 \
    for (size_t i = 0; i < n; i++) switch (op) {                     \
        case SIMPLE_SUM: a[i] = (T)(a[i] + b[i]); break;             \
        case SIMPLE_PROD: a[i] = (T)(a[i] * b[i]); break;            \
        case SIMPLE_MIN:                                             \
          if (b[i] < a[i]) a[i] = b[i];                              \
          break;                                                     \
        case SIMPLE_MAX:                                             \
          if (b[i] > a[i]) a[i] = b[i];                              \
          break;                                                     \
        case SIMPLE_BAND: a[i] = (T)(a[i] & b[i]); break;            \
        case SIMPLE_BOR: a[i] = (T)(a[i] | b[i]); break;             \
        case SIMPLE_BXOR: a[i] = (T)(a[i] ^ b[i]); break;            \
        case SIMPLE_LAND: a[i] = (T)(a[i] != 0 && b[i] != 0); break; \
        case SIMPLE_LOR: a[i] = (T)(a[i] != 0 || b[i] != 0); break;  \
        default: break;                                              \
      }                                                              \
  }                                                                  \
  break;

#define TEST_FLT_COMBINE(T)                          \
  {                                                  \
    T *a = acc;                                      \
    const T *b = in;                                 \
    for (size_t i = 0; i < n; i++) switch (op) {     \
        case SIMPLE_SUM: a[i] = a[i] + b[i]; break;  \
        case SIMPLE_PROD: a[i] = a[i] * b[i]; break; \
        case SIMPLE_MIN:                             \
          if (b[i] < a[i]) a[i] = b[i];              \
          break;                                     \
        case SIMPLE_MAX:                             \
          if (b[i] > a[i]) a[i] = b[i];              \
          break;                                     \
        default: break;                              \
      }                                              \
  }                                                  \
  break;

#define TEST_CPLX_COMBINE(T)                                                            \
  {                                                                                     \
    T *a = acc;                                                                         \
    const T *b = in;                                                                    \
    for (size_t i = 0; i < n; i++) a[i] = op == SIMPLE_SUM ? a[i] + b[i] : a[i] * b[i]; \
  }                                                                                     \
  break;

static inline void test_combine(simple_op_t op, simple_type_t t, void *acc, const void *in,
                                size_t n) {
  switch (t) {
    case SIMPLE_INT8: TEST_INT_COMBINE(int8_t)
    case SIMPLE_INT16: TEST_INT_COMBINE(int16_t)
    case SIMPLE_INT32: TEST_INT_COMBINE(int32_t)
    case SIMPLE_INT64: TEST_INT_COMBINE(int64_t)
    case SIMPLE_UINT8: TEST_INT_COMBINE(uint8_t)
    case SIMPLE_UINT16: TEST_INT_COMBINE(uint16_t)
    case SIMPLE_UINT32: TEST_INT_COMBINE(uint32_t)
    case SIMPLE_UINT64: TEST_INT_COMBINE(uint64_t)
    case SIMPLE_BYTE: TEST_INT_COMBINE(uint8_t)
    case SIMPLE_FLOAT: TEST_FLT_COMBINE(float)
    case SIMPLE_DOUBLE: TEST_FLT_COMBINE(double)
    case SIMPLE_FLOAT_COMPLEX: TEST_CPLX_COMBINE(float _Complex)
    case SIMPLE_DOUBLE_COMPLEX: TEST_CPLX_COMBINE(double _Complex)
    default: break;
  }
}

/* Expected combination of processors [first, last] (in order) of op's
 * inputs, computed serially into out (n elements). */
static inline void test_expect(simple_op_t op, simple_type_t t, void *out, size_t n, int first,
                               int last) {
  size_t es = simple_type_size(t);
  void *tmp = malloc(n * es + 1);
  test_fill(op, t, out, n, first);
  for (int p = first + 1; p <= last; p++) {
    test_fill(op, t, tmp, n, p);
    test_combine(op, t, out, tmp, n);
  }
  free(tmp);
}

/* Index of the first differing element, or -1. Exact comparison: every
 * value the tests produce is exactly representable. */
static inline long test_diff(simple_type_t t, const void *a, const void *b, size_t n) {
  size_t es = simple_type_size(t);
  for (size_t i = 0; i < n; i++)
    if (memcmp((const char *)a + i * es, (const char *)b + i * es, es) != 0) return (long)i;
  return -1;
}

#endif
