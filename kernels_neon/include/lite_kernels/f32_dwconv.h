/* Depthwise 2-D convolution on channels-last (NHWC) data, fp32: groups == in_c == out_c (channel
 * multiplier 1).
 *
 * Weight layout: the .lite weight [C, KH, KW, 1] is packed once into [KH * KW, C] so the C values of
 * one tap are contiguous; every variant then vectorizes across channels (one vector = VW consecutive
 * channels of one pixel), which needs no shuffles in NHWC. That packed layout is the same as
 * lite_f32_conv2d_pack_weight_ref's for a depthwise weight, so either packer may be used.
 *
 * Variants (same signature, same result up to FMA rounding):
 *   portable   plain C, any target
 *   avx2       x86 AVX2 + FMA, 8 channels per vector
 *   avx512     x86 AVX-512F, 16 channels per vector
 *   neonfma    aarch64 NEON FMA / armv7 NEON-VFPv4, 4 channels per vector
 * Each has specialized bodies for 3x3 and 5x5 kernels with stride 1 and 2 (dilation 1), whose weights
 * stay in registers across a row and whose interior pixels run in groups sharing their input loads
 * (rows above/below the image read zeros, so the interior has no per-pixel checks), and a generic
 * body for any other kernel size, stride or dilation.
 * Padding is handled by clipping the tap range at the borders (no padded copy of the input).
 *
 * Row ranges: a call computes output rows [row_begin, row_end) where a row index runs over
 * batch * out_h (row r = image r / out_h, output row r % out_h). Every output value is computed the
 * same way whatever the range, so splitting the rows over threads gives bit-identical results. */
#ifndef LITE_KERNELS_DWCONV_H
#define LITE_KERNELS_DWCONV_H

#include <stddef.h>

#include "lite_kernels/activation.h"
#include "lite_kernels/conv2d.h"

#ifdef __cplusplus
extern "C" {
#endif

/* True when the convolution is depthwise with channel multiplier 1 (the case these kernels serve). */
int lite_f32_dwconv_applies(const lite_conv2d_params* params);

/* Number of floats of the packed weight: kernel_h * kernel_w * in_c. */
size_t lite_f32_dwconv_packed_weight_size(const lite_conv2d_params* params);

/* [C, KH, KW, 1] -> [KH * KW, C]. */
void lite_f32_dwconv_pack_weight(const lite_conv2d_params* params, const float* weight, float* packed);

/* output[n, oh, ow, c] = act(bias[c] + sum over taps of input * weight), for the rows in
 * [row_begin, row_end) of batch * out_h. bias may be NULL; act may be NULL (none). */
typedef void (*lite_f32_dwconv_fn)(const lite_conv2d_params* params, const float* input, const float* packed_weight,
                                   const float* bias, const lite_activation* act, float* output, size_t row_begin,
                                   size_t row_end);

void lite_f32_dwconv_nhwc_portable(const lite_conv2d_params* params, const float* input, const float* packed_weight,
                                   const float* bias, const lite_activation* act, float* output, size_t row_begin,
                                   size_t row_end);
#if defined(__x86_64__)
void lite_f32_dwconv_nhwc_avx2(const lite_conv2d_params* params, const float* input, const float* packed_weight,
                               const float* bias, const lite_activation* act, float* output, size_t row_begin,
                               size_t row_end);
void lite_f32_dwconv_nhwc_avx512(const lite_conv2d_params* params, const float* input, const float* packed_weight,
                                 const float* bias, const lite_activation* act, float* output, size_t row_begin,
                                 size_t row_end);
#endif
#if defined(__aarch64__)
void lite_f32_dwconv_nhwc_aarch64_neonfma(const lite_conv2d_params* params, const float* input,
                                          const float* packed_weight, const float* bias, const lite_activation* act,
                                          float* output, size_t row_begin, size_t row_end);
#endif
#if defined(__arm__)
void lite_f32_dwconv_nhwc_armv7_neonfma(const lite_conv2d_params* params, const float* input,
                                        const float* packed_weight, const float* bias, const lite_activation* act,
                                        float* output, size_t row_begin, size_t row_end);
#endif

/* The best variant this CPU runs (lite_cpu_features(), so LITE_CPU_FEATURES_MASK applies). */
lite_f32_dwconv_fn lite_f32_dwconv_select(void);

/* The variant for `channels` channels: among those this CPU runs, the one leaving the fewest
 * channels to the scalar tail (channels % lanes), the widest on a tie. (24 channels on AVX-512 would
 * leave 8 of 24 scalar: measured 6.6x slower than AVX2 at 56x56x24.) */
lite_f32_dwconv_fn lite_f32_dwconv_select_for(size_t channels);

/* Name of the variant lite_f32_dwconv_select() returns ("avx512", "avx2", "neonfma", "portable"). */
const char* lite_f32_dwconv_selected_name(void);

#ifdef __cplusplus
}
#endif

#endif
