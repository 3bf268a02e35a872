/* simple: point-to-point messages between any two threads (issue 7). */
#ifndef SIMPLE_MSG_H
#define SIMPLE_MSG_H

#include "simple/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* SIMPLE_MSG_H */
