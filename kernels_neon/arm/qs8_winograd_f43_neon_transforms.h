/* The input and output transforms of the int8 F(4,3) Winograd convolution (qs8_winograd.h) in NEON
 * intrinsics common to aarch64 and armv7 (the product kernel is F(2,3)'s, over 36 points). Eight
 * channels per vector: int16 for the input transform (|V| <= 25500), int32 halves for the output
 * transform, whose adds and multiplies wrap modulo 2^32 like the products' sums (exact, see
 * qs8_winograd.h). */
#ifndef LITE_KERNELS_ARM_QS8_WINOGRAD_F43_NEON_TRANSFORMS_H
#define LITE_KERNELS_ARM_QS8_WINOGRAD_F43_NEON_TRANSFORMS_H

#include <arm_neon.h>
#include <string.h>

#include "lite_kernels/qs8_winograd.h"
#include "qs8_winograd_epilogue_neon.h"

/* B^T applied to six vectors d[0], d[s], ..., d[5 s]; results to r[0], r[s], ... */
static inline void qs8_wg43_bt(const int16x8_t* d, size_t s, int16x8_t* r, size_t rs) {
  const int16x8_t d0 = d[0], d1 = d[s], d2 = d[2 * s], d3 = d[3 * s], d4 = d[4 * s], d5 = d[5 * s];
  const int16x8_t p12 = vaddq_s16(d1, d2), n12 = vsubq_s16(d1, d2), q42 = vsubq_s16(d4, d2);
  const int16x8_t e31 = vshlq_n_s16(vsubq_s16(d3, d1), 1);
  r[0] = vmlsq_n_s16(vaddq_s16(vshlq_n_s16(d0, 2), d4), d2, 5);
  r[rs] = vsubq_s16(vaddq_s16(d3, d4), vshlq_n_s16(p12, 2));
  r[2 * rs] = vaddq_s16(vsubq_s16(d4, d3), vshlq_n_s16(n12, 2));
  r[3 * rs] = vaddq_s16(q42, e31);
  r[4 * rs] = vsubq_s16(q42, e31);
  r[5 * rs] = vmlsq_n_s16(vaddq_s16(vshlq_n_s16(d1, 2), d5), d3, 5);
}

static void qs8_wg43_input_neon(const int8_t* const* px, size_t in_c, size_t cb, int32_t input_zero_point,
                                int16_t* v) {
  const int8x8_t zp = vdup_n_s8((int8_t)input_zero_point);
  const size_t full = in_c / 8, t_stride = cb * 64;
  int8_t tail[36][8]; /* the last, partial block: channels past in_c read as the zero point (d = 0) */
  const int8_t* tail_px[36];
  for (size_t b = 0; b < cb; ++b) {
    const int8_t* const* src = px;
    size_t offset = b * 8;
    if (b >= full) {
      memset(tail, (int8_t)input_zero_point, sizeof(tail));
      for (size_t k = 0; k < 36; ++k) memcpy(tail[k], px[k] + b * 8, in_c - b * 8), tail_px[k] = tail[k];
      src = tail_px;
      offset = 0;
    }
    int16x8_t t[36];
    for (size_t j = 0; j < 6; ++j) { /* B^T d, column j, straight from the pixels */
      int16x8_t d[6];
      for (size_t i = 0; i < 6; ++i) d[i] = vsubl_s8(vld1_s8(src[6 * i + j] + offset), zp);
      qs8_wg43_bt(d, 1, t + j, 6);
    }
    int16_t* out = v + b * 64;
    for (size_t i = 0; i < 6; ++i) { /* (B^T d) B, row i */
      int16x8_t r[6];
      qs8_wg43_bt(t + 6 * i, 1, r, 1);
      for (size_t j = 0; j < 6; ++j) vst1q_s16(out + (6 * i + j) * t_stride, r[j]);
    }
  }
}

/* A'^T applied to six vectors m[0], m[s], ..., m[5 s]; results to r[0], r[rs], r[2 rs], r[3 rs]. */
static inline void qs8_wg43_at(const int32x4_t* m, size_t s, int32x4_t* r, size_t rs) {
  const int32x4_t p12 = vaddq_s32(m[s], m[2 * s]), n12 = vsubq_s32(m[s], m[2 * s]);
  const int32x4_t p34 = vaddq_s32(m[3 * s], m[4 * s]), n34 = vsubq_s32(m[3 * s], m[4 * s]);
  const int32x4_t p12x4 = vshlq_n_s32(p12, 2), n12x4 = vshlq_n_s32(n12, 2);
  r[0] = vmlaq_n_s32(vaddq_s32(p12x4, p34), m[0], 6);
  r[rs] = vaddq_s32(n12x4, vshlq_n_s32(n34, 1));
  r[2 * rs] = vshlq_n_s32(vaddq_s32(p12, p34), 2);
  r[3 * rs] = vmlaq_n_s32(vaddq_s32(n12x4, vshlq_n_s32(n34, 3)), m[5 * s], 24);
}

/* Adds (first: stores) the exact sums of one input-channel part to sums[pixel][8] for four output
 * channels of one tile, from A'^T M A' = 576 * sum (modulo 2^32). */
static inline void qs8_wg43_part_sums4(const int32_t* m, int first, int32_t* sums) {
  int32x4_t col[6], s[24];
  for (size_t j = 0; j < 6; ++j) {
    for (size_t k = 0; k < 6; ++k) col[k] = vld1q_s32(m + (6 * k + j) * 64);
    qs8_wg43_at(col, 1, s + j, 6); /* s[r * 6 + j] */
  }
  const int32x4_t inv9 = vdupq_n_s32((int32_t)0x38E38E39);
  for (size_t r = 0; r < 4; ++r) {
    int32x4_t y[4];
    qs8_wg43_at(s + 6 * r, 1, y, 1);
    for (size_t c = 0; c < 4; ++c) {
      const int32x4_t exact = vshrq_n_s32(vmulq_s32(y[c], inv9), 6);
      int32_t* dst = sums + (4 * r + c) * 8;
      vst1q_s32(dst, first ? exact : vaddq_s32(vld1q_s32(dst), exact));
    }
  }
}

static void qs8_wg43_output_neon(const int32_t* m, size_t parts, size_t nc, const int32_t* epilogue, size_t co_pad,
                                 const lite_qs8_gemm_params* params, int8_t* const dst[8], const uint8_t shape[8],
                                 size_t row_stride, size_t pixel_stride) {
  const qs8_wg_epilogue_neon e = qs8_wg_epilogue_load(epilogue, co_pad, params);
  for (size_t tile = 0; tile < 8; ++tile) {
    if (dst[tile] == NULL) continue;
    int32_t sums[16 * 8]; /* the exact direct sums, [pixel][channel] */
    for (size_t k = 0; k < parts; ++k)
      for (size_t h = 0; h < 2; ++h) qs8_wg43_part_sums4(m + k * 36 * 64 + tile * 8 + h * 4, k == 0, sums + h * 4);
    const size_t rows = shape[tile] >> 4, cols = shape[tile] & 15;
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c) {
        const int32_t* y = sums + (4 * r + c) * 8;
        qs8_wg_store8(&e, vld1q_s32(y), vld1q_s32(y + 4), dst[tile] + r * row_stride + c * pixel_stride, nc);
      }
  }
}

#endif
