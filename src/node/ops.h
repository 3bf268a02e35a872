/* Internal: typed element-wise combination, shared by every layer that
 * reduces (node, coll, rma). */
#ifndef SIMPLE_NODE_OPS_H
#define SIMPLE_NODE_OPS_H

#include <stddef.h>

#include "simple/core.h"

/* Validates an array argument the same way for every layer: returns 0,
 * SIMPLE_ERR_TYPE, SIMPLE_ERR_COUNT (size in bytes overflows) or
 * SIMPLE_ERR_NULL (NULL with count > 0). */
int simple__check_buffer(const void *buf, size_t count, simple_type_t type);

/* 0 if op is defined for type, else SIMPLE_ERR_TYPE or SIMPLE_ERR_OP. */
int simple__op_check(simple_op_t op, simple_type_t type);

/* acc[i] = acc[i] (op) in[i] for i < count; acc and in must not overlap.
 * op and type must have passed simple__op_check. Built-in ops are simple
 * loops the compiler vectorizes (~1 element per cycle or better). */
void simple__op_apply(simple_op_t op, simple_type_t type, void *acc, const void *in, size_t count);

#endif
