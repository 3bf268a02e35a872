/* <bsp.h> for BSPlib programs: the BSPlib API of simple. simple-cc puts
 * this folder on the include path, so that `#include <bsp.h>` and
 * `#include "bsp.h"` in an unmodified BSPlib program find it. */
#ifndef SIMPLE_BSP_BSP_H
#define SIMPLE_BSP_BSP_H

#include <simple/bsplib.h>

#endif
