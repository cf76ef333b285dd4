/* Vectorized layer normalization rows (the LAYER_NORM op): the semantics of lite_f32_layer_norm_ref
 * (f32_normalization.h), one variant per ISA, chosen from CPU features. */
#ifndef LITE_KERNELS_F32_LAYER_NORM_H
#define LITE_KERNELS_F32_LAYER_NORM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Rows [0, outer) of `inner` values, as lite_f32_layer_norm_ref: the mean (of x - x[0], then
 * shifted back), then the variance of the centered values, each summed in vector lanes over blocks
 * of at most 1024 values whose lane sums are added in double. The reference sums in double one
 * value at a time, so results differ from it by rounding only (bounds in
 * kernels_neon/tests/test_f32_layer_norm.c). A row's result does not depend on the other rows. */
typedef void (*lite_f32_layer_norm_fn)(size_t outer, size_t inner, const float* input, const float* scale,
                                       const float* bias, float epsilon, float* output, float* mean,
                                       float* inv_std_dev);

void lite_f32_layer_norm_portable(size_t outer, size_t inner, const float* input, const float* scale,
                                  const float* bias, float epsilon, float* output, float* mean, float* inv_std_dev);
#if defined(__x86_64__)
void lite_f32_layer_norm_avx2(size_t outer, size_t inner, const float* input, const float* scale, const float* bias,
                              float epsilon, float* output, float* mean, float* inv_std_dev);
void lite_f32_layer_norm_avx512(size_t outer, size_t inner, const float* input, const float* scale, const float* bias,
                                float epsilon, float* output, float* mean, float* inv_std_dev);
#endif
#if defined(__aarch64__)
void lite_f32_layer_norm_aarch64_neonfma(size_t outer, size_t inner, const float* input, const float* scale,
                                         const float* bias, float epsilon, float* output, float* mean,
                                         float* inv_std_dev);
#endif
#if defined(__arm__) && defined(__ARM_NEON)
void lite_f32_layer_norm_armv7_neonfma(size_t outer, size_t inner, const float* input, const float* scale,
                                       const float* bias, float epsilon, float* output, float* mean,
                                       float* inv_std_dev);
#endif

/* The widest variant `features` (lite_cpu_features() bits) allow; never NULL. */
lite_f32_layer_norm_fn lite_f32_layer_norm_select(uint32_t features);
const char* lite_f32_layer_norm_name(lite_f32_layer_norm_fn fn);

#ifdef __cplusplus
}
#endif

#endif
