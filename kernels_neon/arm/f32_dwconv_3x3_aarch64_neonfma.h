/* The aarch64 3x3 depthwise rows (f32_dwconv_3x3_aarch64_neonfma.c), called by the aarch64 depthwise
 * entry (f32_dwconv_nhwc_aarch64_neonfma.c) before it falls back to the shared body. Internal to the
 * aarch64 kernels: not part of the public f32_dwconv.h interface. */
#ifndef LITE_KERNELS_F32_DWCONV_3X3_AARCH64_NEONFMA_H
#define LITE_KERNELS_F32_DWCONV_3X3_AARCH64_NEONFMA_H

#include <stddef.h>

#include "lite_kernels/activation.h"
#include "lite_kernels/conv2d.h"

/* True when the layer has the shape these rows serve: 3x3, stride 1 or 2 (both axes), dilation 1,
 * channels a multiple of 4, at most one padded column on each side, and act NULL (none), Relu or
 * Clip (fused as a clamp). */
int lite_f32_dwconv_3x3_aarch64_applies(const lite_conv2d_params* params, const lite_activation* act);

/* Computes output rows from `row` on (a row index runs over batch * out_h) and returns how many it
 * did: up to 3 (stride 1) or 2 (stride 2) rows of one image within [row, row_end), or 0 when row
 * `row` touches the top/bottom padding and an input row is wider than the row of zeros read in
 * place of padded rows (in_w * in_c > 16384; the caller computes it another way). act: NULL for
 * none, else Relu or Clip. Every output sums bias + taps in (kh, kw) order whichever count is
 * returned, so any split of the rows gives bit-identical results. */
size_t lite_f32_dwconv_3x3_aarch64_rows(const lite_conv2d_params* params, const float* input,
                                        const float* packed_weight, const float* bias, const lite_activation* act,
                                        float* output, size_t row, size_t row_end);

#endif
