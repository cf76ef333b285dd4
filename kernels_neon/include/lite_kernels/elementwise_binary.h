/* Elementwise binary ops with numpy broadcasting (ADD ... PRELU), reference C loops per dtype.
 * Op values equal the schema's lite_fb::OpCode for these ops, so the runtime passes them through. */
#ifndef LITE_KERNELS_ELEMENTWISE_BINARY_H
#define LITE_KERNELS_ELEMENTWISE_BINARY_H

#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/activation.h"
#include "lite_kernels/broadcast.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  LITE_BIN_ADD = 0,
  LITE_BIN_SUB = 1,
  LITE_BIN_MUL = 2,
  LITE_BIN_DIV = 3, /* integers truncate toward zero; x / 0 gives 0 instead of a trap */
  LITE_BIN_POW = 4,
  LITE_BIN_MAXIMUM = 5,
  LITE_BIN_MINIMUM = 6,
  LITE_BIN_MOD = 7, /* fmod = 0: sign of the divisor (Python %), fmod = 1: sign of the dividend (C fmod) */
  LITE_BIN_EQUAL = 8,
  LITE_BIN_NOT_EQUAL = 9,
  LITE_BIN_LESS = 10,
  LITE_BIN_LESS_EQUAL = 11,
  LITE_BIN_GREATER = 12,
  LITE_BIN_GREATER_EQUAL = 13,
  LITE_BIN_LOGICAL_AND = 14,
  LITE_BIN_LOGICAL_OR = 15,
  LITE_BIN_LOGICAL_XOR = 16,
  LITE_BIN_PRELU = 17 /* a < 0 ? b * a : a */
} lite_binary_op;

/* True when op runs on inputs of `dtype` (lite_dtype). Both inputs share that dtype. */
int lite_binary_supported(int op, int dtype, int fmod);

/* 1 when the op writes BOOL (comparisons, logical ops), 0 when it writes the input dtype. */
int lite_binary_outputs_bool(int op);

/* out = a op b over the broadcast plan (inputs 0 and 1 are a and b). For FLOAT32 outputs the fused
 * activation `act` (may be NULL) is then applied with channel = index along the innermost output
 * dim of length `channels`. Returns 0, or -1 when the op/dtype pair is not supported. */
int lite_binary_ref(int op, int dtype, int fmod, const lite_bcast* plan, const void* a, const void* b, void* out,
                    const lite_activation* act, size_t channels);

#ifdef __cplusplus
}
#endif

#endif
