/* Elementwise unary ops (RELU ... IDENTITY), reference C loops. Op values equal the schema's
 * lite_fb::OpCode for these ops, so the runtime passes them through. */
#ifndef LITE_KERNELS_ELEMENTWISE_UNARY_H
#define LITE_KERNELS_ELEMENTWISE_UNARY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  LITE_UN_RELU = 40, LITE_UN_RELU6, LITE_UN_CLIP, LITE_UN_SIGMOID, LITE_UN_TANH, LITE_UN_HARD_SIGMOID,
  LITE_UN_HARD_SWISH, LITE_UN_LEAKY_RELU, LITE_UN_ELU, LITE_UN_SELU, LITE_UN_SILU, LITE_UN_GELU,
  LITE_UN_SOFTPLUS, LITE_UN_SOFTSIGN, LITE_UN_EXP, LITE_UN_LOG, LITE_UN_SQRT, LITE_UN_RSQRT,
  LITE_UN_RECIPROCAL, LITE_UN_ABS, LITE_UN_NEG, LITE_UN_FLOOR, LITE_UN_CEIL, LITE_UN_ROUND, LITE_UN_SIGN,
  LITE_UN_ERF, LITE_UN_SIN, LITE_UN_COS, LITE_UN_LOGICAL_NOT, LITE_UN_IS_NAN, LITE_UN_IS_INF, LITE_UN_CELU,
  LITE_UN_THRESHOLDED_RELU, LITE_UN_TAN, LITE_UN_ASIN, LITE_UN_ACOS, LITE_UN_ATAN, LITE_UN_SINH,
  LITE_UN_COSH, LITE_UN_ASINH, LITE_UN_ACOSH, LITE_UN_ATANH, LITE_UN_MISH, LITE_UN_SHRINK, LITE_UN_IDENTITY
} lite_unary_op;

/* The ops' parameters (see docs/OPS.md): CLIP min/max = alpha/beta, HARD_SIGMOID alpha/beta,
 * LEAKY_RELU/ELU/CELU/THRESHOLDED_RELU alpha, SELU alpha/gamma, SHRINK lambd/bias = alpha/beta,
 * IS_INF detect_negative/detect_positive = alpha/beta (1 or 0), GELU approximate_tanh. */
typedef struct {
  float alpha;
  float beta;
  float gamma;
  int approximate_tanh;
} lite_unary_params;

/* True when op runs on `dtype` (lite_dtype) input. */
int lite_unary_supported(int op, int dtype);

/* 1 when the op writes BOOL (IS_NAN, IS_INF, LOGICAL_NOT), 0 when it writes the input dtype. */
int lite_unary_outputs_bool(int op);

/* y[i] = op(x[i]) for n elements. Returns 0, or -1 when the op/dtype pair is not supported. */
int lite_unary_ref(int op, int dtype, const lite_unary_params* params, const void* x, void* y, size_t n);

#ifdef __cplusplus
}
#endif

#endif
