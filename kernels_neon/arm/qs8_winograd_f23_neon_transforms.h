/* The input and output transforms of the int8 F(2,3) Winograd convolution (qs8_winograd.h) in NEON
 * intrinsics common to aarch64 and armv7; each ISA's file adds its product kernel. Eight channels per
 * vector: int16 for the input transform, int32 halves for the output transform (whose int32 adds wrap
 * modulo 2^32 like the products' sums: exact, see qs8_winograd.h). */
#ifndef LITE_KERNELS_ARM_QS8_WINOGRAD_F23_NEON_TRANSFORMS_H
#define LITE_KERNELS_ARM_QS8_WINOGRAD_F23_NEON_TRANSFORMS_H

#include <arm_neon.h>
#include <string.h>

#include "lite_kernels/qs8_winograd.h"
#include "qs8_winograd_epilogue_neon.h"

static void qs8_wg_input_neon(const int8_t* const* px, size_t in_c, size_t cb, int32_t input_zero_point,
                              int16_t* v) {
  const int8x8_t zp = vdup_n_s8((int8_t)input_zero_point);
  const size_t full = in_c / 8;
  for (size_t b = 0; b < cb; ++b) {
    int16x8_t d[16], t[16];
    if (b < full) {
      for (size_t k = 0; k < 16; ++k) d[k] = vsubl_s8(vld1_s8(px[k] + b * 8), zp);
    } else { /* channels past in_c read as the zero point: d = 0 */
      for (size_t k = 0; k < 16; ++k) {
        int8_t tmp[8];
        memset(tmp, (int8_t)input_zero_point, sizeof(tmp));
        memcpy(tmp, px[k] + b * 8, in_c - b * 8);
        d[k] = vsubl_s8(vld1_s8(tmp), zp);
      }
    }
    for (size_t j = 0; j < 4; ++j) { /* B^T d */
      t[0 + j] = vsubq_s16(d[0 + j], d[8 + j]);
      t[4 + j] = vaddq_s16(d[4 + j], d[8 + j]);
      t[8 + j] = vsubq_s16(d[8 + j], d[4 + j]);
      t[12 + j] = vsubq_s16(d[4 + j], d[12 + j]);
    }
    int16_t* out = v + b * 64;
    const size_t t_stride = cb * 64;
    for (size_t i = 0; i < 4; ++i) { /* (B^T d) B */
      const int16x8_t* r = t + 4 * i;
      vst1q_s16(out + (4 * i + 0) * t_stride, vsubq_s16(r[0], r[2]));
      vst1q_s16(out + (4 * i + 1) * t_stride, vaddq_s16(r[1], r[2]));
      vst1q_s16(out + (4 * i + 2) * t_stride, vsubq_s16(r[2], r[1]));
      vst1q_s16(out + (4 * i + 3) * t_stride, vsubq_s16(r[1], r[3]));
    }
  }
}

/* A^T M A / 4 of four output channels of one tile: y[0..3] = pixels (0,0), (0,1), (1,0), (1,1). */
static inline void qs8_wg_output4(const int32_t* m, int32x4_t y[4]) {
  int32x4_t s[8];
  for (size_t j = 0; j < 4; ++j) {
    const int32x4_t m0 = vld1q_s32(m + (0 + j) * 64), m1 = vld1q_s32(m + (4 + j) * 64);
    const int32x4_t m2 = vld1q_s32(m + (8 + j) * 64), m3 = vld1q_s32(m + (12 + j) * 64);
    s[j] = vaddq_s32(vaddq_s32(m0, m1), m2);
    s[4 + j] = vsubq_s32(vsubq_s32(m1, m2), m3);
  }
  for (size_t r = 0; r < 2; ++r) {
    const int32x4_t* q = s + 4 * r;
    y[2 * r] = vshrq_n_s32(vaddq_s32(vaddq_s32(q[0], q[1]), q[2]), 2);
    y[2 * r + 1] = vshrq_n_s32(vsubq_s32(vsubq_s32(q[1], q[2]), q[3]), 2);
  }
}

static void qs8_wg_output_neon(const int32_t* m, size_t parts, size_t nc, const int32_t* epilogue, size_t co_pad,
                               const lite_qs8_gemm_params* params, int8_t* const dst[8], const uint8_t shape[8],
                               size_t row_stride, size_t pixel_stride) {
  const qs8_wg_epilogue_neon e = qs8_wg_epilogue_load(epilogue, co_pad, params);
  for (size_t tile = 0; tile < 8; ++tile) {
    if (dst[tile] == NULL) continue;
    int32x4_t y0[4], y1[4];
    qs8_wg_output4(m + tile * 8, y0);
    qs8_wg_output4(m + tile * 8 + 4, y1);
    for (size_t part = 1; part < parts; ++part) { /* exact sums of the other input-channel parts */
      int32x4_t z0[4], z1[4];
      qs8_wg_output4(m + part * 16 * 64 + tile * 8, z0);
      qs8_wg_output4(m + part * 16 * 64 + tile * 8 + 4, z1);
      for (size_t k = 0; k < 4; ++k) y0[k] = vaddq_s32(y0[k], z0[k]), y1[k] = vaddq_s32(y1[k], z1[k]);
    }
    for (size_t k = 0; k < 4; ++k) {
      if ((k & 1) >= (shape[tile] & 15) || (k >> 1) >= (shape[tile] >> 4)) continue; /* rows << 4 | columns */
      qs8_wg_store8(&e, y0[k], y1[k], dst[tile] + (k >> 1) * row_stride + (k & 1) * pixel_stride, nc);
    }
  }
}

#endif
