/* simple: one-sided communication: registration, put/get, BSP supersteps, BSMP (issue 6). */
#ifndef SIMPLE_RMA_H
#define SIMPLE_RMA_H

#include "simple/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* SIMPLE_RMA_H */
