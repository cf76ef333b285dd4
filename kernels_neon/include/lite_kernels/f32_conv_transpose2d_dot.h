/* CONV_TRANSPOSE_2D as one dot product per output value, for the shapes where a GEMM wastes its tile:
 * kernel == stride (no overlap), dilation 1, no crop, no output padding, groups 1, and at most 4 output
 * values per input pixel (T = kernel_h * kernel_w * out_c <= 4), e.g. the 24 -> 1 channel 2x2
 * stride-2 head of PP-OCR's DB detector. There every output value is the dot product of one input
 * pixel's channels with one weight column plus a bias; a GEMM with N = T columns would run a 16- or
 * 32-wide microkernel tile for T useful columns. These kernels vectorize along the input channels
 * instead and reduce each dot product across the vector lanes.
 *
 * Each output value is computed from its own input pixel only, in an order fixed by in_c (per-lane
 * sums over channel blocks, then a fixed lane reduction, then the bias), so any split of the input
 * rows across threads gives bit-identical results. */
#ifndef LITE_KERNELS_CONV_TRANSPOSE2D_DOT_H
#define LITE_KERNELS_CONV_TRANSPOSE2D_DOT_H

#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/conv_transpose2d.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Input channels are padded to a multiple of this in the packed weight (zeros). */
#define LITE_CONV_TRANSPOSE2D_DOT_CHANNEL_BLOCK 16

/* Computes the kernel_h output rows [ih * kernel_h, (ih + 1) * kernel_h) of one image that input row
 * x_row ([in_w, in_c]) reaches; y_rows points at the first of them (consecutive rows of
 * out_w * out_c floats). No activation: the caller applies it to the rows afterwards. */
typedef void (*lite_f32_conv_transpose2d_dot_fn)(const lite_conv_transpose2d_params* params, const float* packed,
                                                 const float* x_row, float* y_rows);

/* The variant for these parameters on `features` (lite_cpu_features() bits), or NULL when the
 * shape is not one these kernels serve or no variant runs here (callers then use the GEMM path). */
lite_f32_conv_transpose2d_dot_fn lite_f32_conv_transpose2d_dot_select(const lite_conv_transpose2d_params* params,
                                                                       uint32_t features);

/* Floats of the packed weight: T weight columns of in_c rounded up to the channel block, then T biases. */
size_t lite_f32_conv_transpose2d_dot_packed_size(const lite_conv_transpose2d_params* params);

/* Packs the .lite weight [in_c, kernel_h, kernel_w, out_c] and bias [out_c] (may be NULL: zeros) as
 * column t = (kh * kernel_w + kw) * out_c + co: weight[ci, kh, kw, co] at t * padded_c + ci. */
void lite_f32_conv_transpose2d_dot_pack(const lite_conv_transpose2d_params* params, const float* weight,
                                        const float* bias, float* packed);

#if defined(__x86_64__)
void lite_f32_conv_transpose2d_dot_avx512(const lite_conv_transpose2d_params* params, const float* packed,
                                          const float* x_row, float* y_rows);
#endif

#ifdef __cplusplus
}
#endif

#endif
