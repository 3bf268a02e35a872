/* The error convention: every code has a distinct name and message,
 * unknown codes are named as such; types and ops have names and sizes. */
#include "harness.h"

static void test(simple_t *s, void *arg) {
  (void)arg;
  static const int codes[] = {
#define CODE(name, value, text) SIMPLE_##name,
      SIMPLE_ERRNO_MAP(CODE)
#undef CODE
  };
  size_t n = sizeof codes / sizeof codes[0];
  CHECK_EQ(codes[0], 0);
  CHECK(strcmp(simple_strerror(0), "success") == 0);
  for (size_t i = 0; i < n; i++) {
    CHECK(strlen(simple_strerror(codes[i])) > 0);
    CHECK(strncmp(simple_errname(codes[i]), "SIMPLE_", 7) == 0);
    for (size_t j = 0; j < i; j++) {
      CHECK(codes[i] != codes[j]);
      CHECK(strcmp(simple_strerror(codes[i]), simple_strerror(codes[j])) != 0);
    }
  }
  CHECK(strcmp(simple_errname(SIMPLE_ERR_NULL), "SIMPLE_ERR_NULL") == 0);
  CHECK(strcmp(simple_strerror(-7), "unknown error") == 0);
  CHECK(strcmp(simple_strerror(12345), "unknown error") == 0);

  CHECK_EQ(simple_type_size(SIMPLE_INT8), 1);
  CHECK_EQ(simple_type_size(SIMPLE_UINT16), 2);
  CHECK_EQ(simple_type_size(SIMPLE_INT32), 4);
  CHECK_EQ(simple_type_size(SIMPLE_UINT64), 8);
  CHECK_EQ(simple_type_size(SIMPLE_FLOAT), 4);
  CHECK_EQ(simple_type_size(SIMPLE_DOUBLE), 8);
  CHECK_EQ(simple_type_size(SIMPLE_FLOAT_COMPLEX), 8);
  CHECK_EQ(simple_type_size(SIMPLE_DOUBLE_COMPLEX), 16);
  CHECK_EQ(simple_type_size(SIMPLE_BYTE), 1);
  CHECK_EQ(simple_type_size((simple_type_t)-1), 0);
  CHECK_EQ(simple_type_size(SIMPLE_TYPE_COUNT__), 0);
  CHECK(strcmp(simple_type_name(SIMPLE_DOUBLE_COMPLEX), "double_complex") == 0);
  CHECK(strcmp(simple_type_name((simple_type_t)77), "unknown") == 0);
  CHECK(strcmp(simple_op_name(SIMPLE_BXOR), "bxor") == 0);
  CHECK(strcmp(simple_op_name((simple_op_t)(SIMPLE_OP_USER_FIRST + 200)), "unknown") == 0);
}

TEST_MAIN(test)
