/* Where the windows of a 3x3 int8 depthwise convolution fall (qs8_dwconv.h), shared by the aarch64
 * and armv7 3x3 kernels: which output columns are interior (all three taps of a row inside the input
 * along W), the three input rows of an output row (NULL for a row in the padding), and the tap
 * addresses of a border pixel; plus the step's int8 taps unpacked from the packed int16 pairs. */
#ifndef LITE_KERNELS_ARM_QS8_DWCONV_3X3_GEOMETRY_H
#define LITE_KERNELS_ARM_QS8_DWCONV_3X3_GEOMETRY_H

#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lite_kernels/qs8_dwconv.h"

/* Output columns [*begin, *end): ow * stride_w - pad_left >= 0 and ... + 2 * dilation_w <= in_w - 1. */
static inline void qs8_dw3x3_interior(const lite_conv2d_params* p, size_t* begin, size_t* end) {
  const size_t sw = p->stride_w, reach = 2 * p->dilation_w;
  size_t b = (p->pad_left + sw - 1) / sw, e = 0;
  if (p->in_w + p->pad_left > reach) e = (p->in_w + p->pad_left - reach - 1) / sw + 1;
  if (e > p->out_w) e = p->out_w;
  *begin = b > e ? e : b, *end = e;
}

/* The input rows (channel 0 of column 0) of output row `row` (batch * out_h + oh); NULL: padding. */
static inline void qs8_dw3x3_input_rows(const lite_conv2d_params* p, const int8_t* input, size_t row,
                                        const int8_t** rows) {
  const size_t b = row / p->out_h, oh = row % p->out_h, c = p->in_c;
  for (size_t k = 0; k < 3; ++k) {
    const ptrdiff_t ih = (ptrdiff_t)(oh * p->stride_h + k * p->dilation_h) - (ptrdiff_t)p->pad_top;
    rows[k] = ih >= 0 && ih < (ptrdiff_t)p->in_h ? input + (b * p->in_h + (size_t)ih) * p->in_w * c : NULL;
  }
}

/* t[kh * 3 + kw] of output column ow at channel c0, each tap's column checked (zero_row: padding). */
static inline void qs8_dw3x3_border_taps(const lite_conv2d_params* p, const int8_t* const* rows, const int8_t* zero_row,
                                         size_t ow, size_t c0, const int8_t** t) {
  const ptrdiff_t c = (ptrdiff_t)p->in_c, sw = (ptrdiff_t)p->stride_w, dw = (ptrdiff_t)p->dilation_w;
  const int8_t* zero = zero_row + c0;
  for (int j = 0; j < 3; ++j) {
    const ptrdiff_t iw = (ptrdiff_t)ow * sw + j * dw - (ptrdiff_t)p->pad_left;
    const int inside = iw >= 0 && iw < (ptrdiff_t)p->in_w;
    const ptrdiff_t offset = iw * c + (ptrdiff_t)c0;
    t[j] = inside && rows[0] != NULL ? rows[0] + offset : zero;
    t[3 + j] = inside && rows[1] != NULL ? rows[1] + offset : zero;
    t[6 + j] = inside && rows[2] != NULL ? rows[2] + offset : zero;
  }
}

/* Step h's nine taps as int8 in channel order from the packed 32-channel block (accumulator position
 * i holds channel 8 * ((i % 16) / 4) + 4 * (i / 16) + i % 4, so step h's channels 0-3 / 8-11 are
 * positions 8h.. / 8h+4.., channels 4-7 / 12-15 are 16+8h.. / 16+8h+4..). Returns the smallest. */
static inline int qs8_dw3x3_unpack_taps(const uint8_t* block, size_t pairs, const int* slots, size_t h,
                                        int8_t taps[9][16]) {
  const int16_t* weights = (const int16_t*)(block + 32 * 4);
  memset(taps, 0, 9 * 16);
  for (size_t q = 0; q < pairs; ++q) {
    const int16x8x2_t ab = vld2q_s16(weights + q * 64 + 16 * h);      /* channels 0-3, 8-11 */
    const int16x8x2_t cd = vld2q_s16(weights + q * 64 + 32 + 16 * h); /* channels 4-7, 12-15 */
    for (size_t u = 0; u < 2; ++u) {
      const int tap = slots[2 * q + u];
      if (tap < 0) continue;
      const int16x8_t lo = vcombine_s16(vget_low_s16(ab.val[u]), vget_low_s16(cd.val[u]));
      const int16x8_t hi = vcombine_s16(vget_high_s16(ab.val[u]), vget_high_s16(cd.val[u]));
      vst1q_s8(taps[tap], vcombine_s8(vmovn_s16(lo), vmovn_s16(hi)));
    }
  }
  int8x16_t m = vld1q_s8(taps[0]);
  for (size_t t = 1; t < 9; ++t) m = vminq_s8(m, vld1q_s8(taps[t]));
  int8x8_t d = vmin_s8(vget_low_s8(m), vget_high_s8(m));
  d = vpmin_s8(d, d), d = vpmin_s8(d, d), d = vpmin_s8(d, d);
  return vget_lane_s8(d, 0);
}

#endif
