/* Vectorized fp32 activations applied in place over contiguous values: what an op applies to its
 * whole output (a unary activation op, a binary op's or CONV_TRANSPOSE_2D's fused activation) in
 * one pass, instead of lite_activate's per-value switch and libm expf.
 *
 * Kinds: RELU, CLIP, HARD_SIGMOID, HARD_SWISH, LEAKY_RELU, SIGMOID, SILU, TANH (PRELU needs a
 * channel index: callers keep lite_activate_rows for it). Results equal
 * lite_activate for the piecewise-linear kinds (same comparisons, NaN handling and operation
 * order) and are within a few ulp of it for SIGMOID/SILU/TANH (exp from a degree-6 polynomial after
 * range reduction by ln 2, computed on -|x| so nothing overflows). Every value is computed the same
 * way wherever it sits in the array (the tail goes through the vector code too), so splitting an
 * array across threads never changes a result. */
#ifndef LITE_KERNELS_F32_VACTIVATION_H
#define LITE_KERNELS_F32_VACTIVATION_H

#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/activation.h"

#ifdef __cplusplus
extern "C" {
#endif

/* y[i] = act(x[i]) for i in [0, n); x == y (in place) is allowed. A kind the variants do not
 * handle (never PRELU here) goes through lite_activate. */
typedef void (*lite_f32_vactivation_fn)(const lite_activation* act, const float* x, float* y, size_t n);

/* 1 when the vector kernels handle act->kind (NONE included: they leave the data alone). */
int lite_f32_vactivation_supports(int kind);

/* The variant for `features` (lite_cpu_features() bits); never NULL (portable C needs nothing). */
lite_f32_vactivation_fn lite_f32_vactivation_select(uint32_t features);
const char* lite_f32_vactivation_name(lite_f32_vactivation_fn fn);

/* Applies act (may be NULL) in place to rows x channels contiguous values: the vector variant for
 * lite_cpu_features() when it handles act->kind, lite_activate_rows otherwise (PRELU). The
 * one entry point ops call. */
void lite_f32_activate(const lite_activation* act, float* data, size_t rows, size_t channels);

/* y = act(x) over n values (x == y allowed) when lite_f32_vactivation_supports(act->kind); returns
 * 0 and writes nothing otherwise. */
int lite_f32_activate_copy(const lite_activation* act, const float* x, float* y, size_t n);

/* Softmax's inner step: y[i] = exp(x[i] - shift) for shift >= max x (the row maximum), returning
 * the sum of y; the same exp as SIGMOID above (relative error ~1e-7). */
typedef float (*lite_f32_vexp_sum_fn)(const float* x, float shift, float* y, size_t n);
lite_f32_vexp_sum_fn lite_f32_vexp_sum_select(uint32_t features);

float lite_f32_vexp_sum_portable(const float* x, float shift, float* y, size_t n);
float lite_f32_vexp_sum_avx2(const float* x, float shift, float* y, size_t n);
float lite_f32_vexp_sum_avx512(const float* x, float shift, float* y, size_t n);
float lite_f32_vexp_sum_aarch64_neonfma(const float* x, float shift, float* y, size_t n);
float lite_f32_vexp_sum_armv7_neonfma(const float* x, float shift, float* y, size_t n);

/* Softmax of one contiguous row (the SOFTMAX op over the innermost axis): its maximum, the exp and
 * sum above, then each value divided by the sum; the reference's steps (lite_f32_softmax_ref). */
typedef void (*lite_f32_vsoftmax_row_fn)(const float* x, float* y, size_t n);
lite_f32_vsoftmax_row_fn lite_f32_vsoftmax_row_select(uint32_t features);

void lite_f32_vsoftmax_row_portable(const float* x, float* y, size_t n);
void lite_f32_vsoftmax_row_avx2(const float* x, float* y, size_t n);
void lite_f32_vsoftmax_row_avx512(const float* x, float* y, size_t n);
void lite_f32_vsoftmax_row_aarch64_neonfma(const float* x, float* y, size_t n);
void lite_f32_vsoftmax_row_armv7_neonfma(const float* x, float* y, size_t n);

void lite_f32_vactivation_portable(const lite_activation* act, const float* x, float* y, size_t n);
void lite_f32_vactivation_avx2(const lite_activation* act, const float* x, float* y, size_t n);
void lite_f32_vactivation_avx512(const lite_activation* act, const float* x, float* y, size_t n);
void lite_f32_vactivation_aarch64_neonfma(const lite_activation* act, const float* x, float* y, size_t n);
void lite_f32_vactivation_armv7_neonfma(const lite_activation* act, const float* x, float* y, size_t n);

#ifdef __cplusplus
}
#endif

#endif
