/* simple: fast parallel programs on clusters of multicore nodes.
 * The one public header; see docs/ and README.md. */
#ifndef SIMPLE_H
#define SIMPLE_H

#include "simple/coll.h"
#include "simple/core.h"
#include "simple/dist.h"
#include "simple/msg.h"
#include "simple/node.h"
#include "simple/rma.h"
#include "simple/shobj.h"

#endif
