/* Checks for the BSPlib test programs, which use <simple/bsplib.h> only:
 * a failed check ends the job through bsp_abort, naming file and line. */
#ifndef TEST_BSP_CHECK_H
#define TEST_BSP_CHECK_H

/* Built by simple-cc (tests/CMakeLists.txt's simple_cc test), the program
 * sees <bsp.h> as an unmodified BSPlib program does; built as a test, it
 * has the library's include directory only. */
#if defined(__has_include)
#if __has_include(<bsp.h>)
#include <bsp.h>
#else
#include <simple/bsplib.h>
#endif
#else
#include <simple/bsplib.h>
#endif

#define BSP_CHECK(c)                                                                         \
  do {                                                                                       \
    if (!(c))                                                                                \
      bsp_abort("%s:%d: processor %d: check failed: %s", __FILE__, __LINE__, bsp_pid(), #c); \
  } while (0)

#endif
