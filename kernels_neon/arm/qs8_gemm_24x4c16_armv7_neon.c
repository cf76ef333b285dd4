/* int8 GEMM microkernel (qs8_gemm_packed.h) for 32-bit ARM NEON (Cortex-A7, A53 / A72 running
 * 32-bit Raspberry Pi OS): MR 24 (up to twelve 2-row tiles per call, the panel's epilogue constants
 * loaded once), NR 4, KR 16, signed A (A_OFFSET 0). 8 accumulators: armv7 has 16 q registers.
 *
 * Per row, column and 16 k: vmull.s8 (k 0-7) + vmlal.s8 (k 8-15) leave eight int16 sums of two
 * products, vpadal.s16 folds them into four int32 partial sums: 16 multiply-adds in 3 instructions.
 * The int16 pair is exact while |w| <= 127 (2 * 128 * 127 < 2^15); a panel holding a -128 weight
 * (flagged by lite_qs8_gemm_pack_shift_amounts) folds every product on its own (vmull + vpadal per
 * 8 k). The packed shift words are that pack's sqshl / srshl amounts (qs8_requantize_neon.h). */
#include <arm_neon.h>
#include <string.h>

#include "lite_kernels/qs8_gemm_packed.h"
#include "qs8_gemm_ukernels_arm.h"
#include "qs8_requantize_neon.h"

enum { MR = 24, NR = 4, KR = 16 };

/* Folding eight int16 sums into an accumulator: the first k step initializes it (vpaddl). */
#define FOLD_INIT(acc, x) ((acc) = vpaddlq_s16(x))
#define FOLD_ADD(acc, x) ((acc) = vpadalq_s16((acc), (x)))

/* One 16-k step of rows a0x / a1x against the 4 columns at wp (16 bytes per column); with
 * pairs_fit (no -128 weight) two products share an int16 sum, else each is folded on its own. */
#define QS8_STEP(FOLD, a0x, a1x, wp, pairs_fit)                                                    \
  do {                                                                                            \
    for (int j = 0; j < NR; ++j) {                                                                \
      const int8x16_t wj = vld1q_s8((wp) + 16 * j);                                               \
      const int16x8_t p0 = vmull_s8(vget_low_s8(a0x), vget_low_s8(wj));                           \
      const int16x8_t p1 = vmull_s8(vget_low_s8(a1x), vget_low_s8(wj));                           \
      if (pairs_fit) {                                                                            \
        FOLD(acc0[j], vmlal_s8(p0, vget_high_s8(a0x), vget_high_s8(wj)));                         \
        FOLD(acc1[j], vmlal_s8(p1, vget_high_s8(a1x), vget_high_s8(wj)));                         \
      } else {                                                                                    \
        FOLD(acc0[j], p0);                                                                        \
        FOLD(acc1[j], p1);                                                                        \
        FOLD_ADD(acc0[j], vmull_s8(vget_high_s8(a0x), vget_high_s8(wj)));                         \
        FOLD_ADD(acc1[j], vmull_s8(vget_high_s8(a1x), vget_high_s8(wj)));                         \
      }                                                                                           \
    }                                                                                             \
  } while (0)

/* Lane j = the sum of the four lanes of acc[j]. */
static inline int32x4_t reduce4(const int32x4_t* acc) {
  const int32x2_t p0 = vpadd_s32(vget_low_s32(acc[0]), vget_high_s32(acc[0]));
  const int32x2_t p1 = vpadd_s32(vget_low_s32(acc[1]), vget_high_s32(acc[1]));
  const int32x2_t p2 = vpadd_s32(vget_low_s32(acc[2]), vget_high_s32(acc[2]));
  const int32x2_t p3 = vpadd_s32(vget_low_s32(acc[3]), vget_high_s32(acc[3]));
  return vcombine_s32(vpadd_s32(p0, p1), vpadd_s32(p2, p3));
}

/* The int32 partial sums of rows a0 and a1 (a1 may repeat a0) against one panel's weights. */
static inline __attribute__((always_inline)) void qs8_rows2_sums(size_t k, const int8_t* a0, const int8_t* a1,
                                                                 const int8_t* weights, int pairs_fit,
                                                                 int32x4_t* acc0, int32x4_t* acc1) {
  const int8_t* wp = weights;
  size_t left = k;
  /* The packed weights are zero past k, so the zero bytes of a partial load add nothing. */
  if (left >= KR) {
    const int8x16_t va0 = vld1q_s8(a0), va1 = vld1q_s8(a1);
    QS8_STEP(FOLD_INIT, va0, va1, wp, pairs_fit);
    a0 += KR, a1 += KR, left -= KR, wp += NR * KR;
  } else {
    const int8x16_t va0 = qs8_load_tail16(a0, left, 0), va1 = qs8_load_tail16(a1, left, 0);
    QS8_STEP(FOLD_INIT, va0, va1, wp, pairs_fit);
    left = 0;
  }
  for (; left >= KR; left -= KR, wp += NR * KR) {
    const int8x16_t va0 = vld1q_s8(a0), va1 = vld1q_s8(a1);
    a0 += KR, a1 += KR;
    QS8_STEP(FOLD_ADD, va0, va1, wp, pairs_fit);
  }
  if (left != 0) {
    const int8x16_t va0 = qs8_load_tail16(a0, left, k - left), va1 = qs8_load_tail16(a1, left, k - left);
    QS8_STEP(FOLD_ADD, va0, va1, wp, pairs_fit);
  }
}

void lite_qs8_gemm_ukernel_24x4c16_armv7_neon(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                             const void* w, int8_t* c, size_t c_stride,
                                             const lite_qs8_gemm_params* params) {
  const size_t kc = (k + KR - 1) / KR * KR;
  const int8_t* weights = (const int8_t*)w + NR * sizeof(int32_t);
  const int32_t* multiplier = (const int32_t*)(weights + NR * kc);
  const int32_t* words = multiplier + NR;
  uint32_t flags;
  memcpy(&flags, words, sizeof(flags));
  const int32x4_t bias = vld1q_s32((const int32_t*)w), mult = vld1q_s32(multiplier);
  const int32x4_t left_shift = vld1q_s32(words), right_shift = vshrq_n_s32(left_shift, 8);
  const int has_left = (flags & LITE_QS8_PANEL_LEFT_SHIFT) != 0;
  const int16x8_t zero_point = vdupq_n_s16((int16_t)params->output_zero_point);
  const int8x8_t act_min = vdup_n_s8((int8_t)params->act_min), act_max = vdup_n_s8((int8_t)params->act_max);

  for (size_t i0 = 0; i0 < mr; i0 += 2) {
    const int8_t* a0 = a + i0 * a_stride;
    const int8_t* a1 = i0 + 1 < mr ? a0 + a_stride : a0; /* a lone last row is read twice */
    int32x4_t acc0[NR], acc1[NR];
    if ((flags & LITE_QS8_PANEL_WEIGHT_MIN) == 0) {
      qs8_rows2_sums(k, a0, a1, weights, 1, acc0, acc1);
    } else {
      qs8_rows2_sums(k, a0, a1, weights, 0, acc0, acc1);
    }
    int32x4_t row0 = vaddq_s32(bias, reduce4(acc0)), row1 = vaddq_s32(bias, reduce4(acc1));
    if (has_left) row0 = vqshlq_s32(row0, left_shift), row1 = vqshlq_s32(row1, left_shift);
    row0 = vrshlq_s32(vqdmulhq_s32(row0, mult), right_shift);
    row1 = vrshlq_s32(vqdmulhq_s32(row1, mult), right_shift);
    /* Both rows narrowed at once: bytes 0-3 are row 0, bytes 4-7 row 1. */
    const uint32x2_t out = vreinterpret_u32_s8(qs8_narrow8(row0, row1, zero_point, act_min, act_max));
    int8_t* c0 = c + i0 * c_stride;
    if (nc == NR) { /* fixed-size copies of a lane: one (unaligned) str each, no memcpy call */
      const uint32_t out0 = vget_lane_u32(out, 0), out1 = vget_lane_u32(out, 1);
      memcpy(c0, &out0, sizeof(out0));
      if (i0 + 1 < mr) memcpy(c0 + c_stride, &out1, sizeof(out1));
    } else {
      int8_t bytes[8];
      vst1_u8((uint8_t*)bytes, vreinterpret_u8_u32(out));
      memcpy(c0, bytes, nc);
      if (i0 + 1 < mr) memcpy(c0 + c_stride, bytes + 4, nc);
    }
  }
}
