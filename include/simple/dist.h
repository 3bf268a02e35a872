/* simple: data parallelism: pardo, control, distributions and redistribution (issue 5). */
#ifndef SIMPLE_DIST_H
#define SIMPLE_DIST_H

#include "simple/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* SIMPLE_DIST_H */
