/* Normalization kernels, fp32: layer norm, instance norm (NHWC), local response norm (NHWC). */
#ifndef LITE_KERNELS_NORMALIZATION_H
#define LITE_KERNELS_NORMALIZATION_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Each of `outer` rows of `inner` values: y = (x - mean) / sqrt(var + epsilon) * scale + bias.
 * scale and bias hold `inner` values or are NULL (1 and 0). mean / inv_std_dev (`outer` values,
 * the optional outputs of ONNX LayerNormalization) may be NULL. */
void lite_f32_layer_norm_ref(size_t outer, size_t inner, const float* input, const float* scale, const float* bias,
                             float epsilon, float* output, float* mean, float* inv_std_dev);

/* x [batch, pixels, channels]: normalizes every (image, channel) over its pixels, then
 * y = normalized * scale[c] + bias[c]. `scratch` holds 2 * channels doubles. */
void lite_f32_instance_norm_nhwc_ref(size_t batch, size_t pixels, size_t channels, const float* input,
                                     const float* scale, const float* bias, float epsilon, float* output,
                                     double* scratch);

/* ONNX LRN across the (innermost) channels of `pixels` rows:
 * y = x / (bias + alpha / size * sum of x^2 over channels [c - (size-1)/2, c + size/2])^beta. */
void lite_f32_lrn_nhwc_ref(size_t pixels, size_t channels, size_t size, float alpha, float beta, float bias,
                           const float* input, float* output);

#ifdef __cplusplus
}
#endif

#endif
