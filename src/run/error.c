#include "simple/core.h"

const char *simple_strerror(int code) {
  switch (code) {
#define SIMPLE__ERRNO_TEXT(name, value, text) \
  case SIMPLE_##name: return text;
    SIMPLE_ERRNO_MAP(SIMPLE__ERRNO_TEXT)
#undef SIMPLE__ERRNO_TEXT
  }
  return "unknown error";
}

const char *simple_errname(int code) {
  switch (code) {
#define SIMPLE__ERRNO_NAME(name, value, text) \
  case SIMPLE_##name: return "SIMPLE_" #name;
    SIMPLE_ERRNO_MAP(SIMPLE__ERRNO_NAME)
#undef SIMPLE__ERRNO_NAME
  }
  return "SIMPLE_ERR_UNKNOWN";
}
