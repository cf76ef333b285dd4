/* int8 GEMM microkernel (qs8_gemm_packed.h) for any ARMv8 NEON (Cortex-A53: no dot product):
 * MR 2, NR 8, KR 8, signed A (A_OFFSET 0). smull multiplies 8 k of one row by 8 k of one column
 * into int16 (|product| <= 2^14: no overflow, unlike an smlal pair, which -128 * -128 twice breaks),
 * sadalp folds the pairs into 4 int32 partial sums per (row, column); a pairwise-add tree reduces
 * them once at the end. 16 accumulators (2 rows x 8 columns). */
#include <arm_neon.h>

#include "lite_kernels/qs8_gemm_packed.h"
#include "qs8_gemm_ukernels_arm.h"
#include "qs8_requantize_neon.h"

enum { MR = 2, NR = 8, KR = 8 };

/* One k group of 8 against the 8 columns at wp; a0x2 / a1x2 hold the group's 8 bytes twice. */
#define QS8_MULL_GROUP(a0x2, a1x2)                                                          \
  do {                                                                                      \
    for (int m = 0; m < 4; ++m) {                                                           \
      const int8x16_t wm = vld1q_s8(wp + 16 * m); /* columns 2m, 2m + 1 */                  \
      acc[0][2 * m] = vpadalq_s16(acc[0][2 * m], vmull_s8(vget_low_s8(wm), vget_low_s8(a0x2))); \
      acc[0][2 * m + 1] = vpadalq_s16(acc[0][2 * m + 1], vmull_high_s8(wm, a0x2));           \
      acc[1][2 * m] = vpadalq_s16(acc[1][2 * m], vmull_s8(vget_low_s8(wm), vget_low_s8(a1x2))); \
      acc[1][2 * m + 1] = vpadalq_s16(acc[1][2 * m + 1], vmull_high_s8(wm, a1x2));           \
    }                                                                                       \
    wp += NR * KR;                                                                          \
  } while (0)

static inline int8x16_t low_twice(int8x16_t v) {
  return vreinterpretq_s8_s64(vdupq_laneq_s64(vreinterpretq_s64_s8(v), 0));
}

static inline int8x16_t high_twice(int8x16_t v) {
  return vreinterpretq_s8_s64(vdupq_laneq_s64(vreinterpretq_s64_s8(v), 1));
}

/* The four column sums of one row: lane j = sum of the lanes of acc_j. */
static inline int32x4_t reduce4(int32x4_t acc0, int32x4_t acc1, int32x4_t acc2, int32x4_t acc3) {
  return vpaddq_s32(vpaddq_s32(acc0, acc1), vpaddq_s32(acc2, acc3));
}

void lite_qs8_gemm_ukernel_2x8c8_aarch64_neon(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                              const void* w, int8_t* c, size_t c_stride,
                                              const lite_qs8_gemm_params* params) {
  const int8_t* a0 = a;
  const int8_t* a1 = mr > 1 ? a0 + a_stride : a0; /* row 1 of a 1-row tile re-reads row 0 */
  const int32_t* bias = (const int32_t*)w;
  const int8_t* wp = (const int8_t*)w + NR * sizeof(int32_t);
  int32x4_t acc[MR][NR];
  for (int j = 0; j < NR; ++j) acc[0][j] = acc[1][j] = vdupq_n_s32(0);

  size_t left = k;
  for (; left >= 16; left -= 16) {
    const int8x16_t va0 = vld1q_s8(a0), va1 = vld1q_s8(a1);
    a0 += 16, a1 += 16;
    QS8_MULL_GROUP(low_twice(va0), low_twice(va1));
    QS8_MULL_GROUP(high_twice(va0), high_twice(va1));
  }
  if (left != 0) {
    /* The packed weights are zero past k, so the zero bytes of the partial loads add nothing. */
    const int8x16_t va0 = qs8_load_tail16(a0, left, k - left), va1 = qs8_load_tail16(a1, left, k - left);
    QS8_MULL_GROUP(low_twice(va0), low_twice(va1));
    if (left > 8) QS8_MULL_GROUP(high_twice(va0), high_twice(va1));
  }

  const int32x4_t bias_lo = vld1q_s32(bias), bias_hi = vld1q_s32(bias + 4);
  const int32_t* multiplier = (const int32_t*)((const int8_t*)w + NR * sizeof(int32_t) + NR * ((k + KR - 1) / KR * KR));
  const int32_t* shift = multiplier + NR;
  const qs8_requant4_neon r0 = qs8_requant4_load(multiplier, shift);
  const qs8_requant4_neon r1 = qs8_requant4_load(multiplier + 4, shift + 4);
  const int16x8_t zero_point = vdupq_n_s16((int16_t)params->output_zero_point);
  const int8x8_t act_min = vdup_n_s8((int8_t)params->act_min), act_max = vdup_n_s8((int8_t)params->act_max);
  const int32x4_t row0_lo = vaddq_s32(bias_lo, reduce4(acc[0][0], acc[0][1], acc[0][2], acc[0][3]));
  const int32x4_t row0_hi = vaddq_s32(bias_hi, reduce4(acc[0][4], acc[0][5], acc[0][6], acc[0][7]));
  qs8_store_partial8(c, qs8_narrow8(qs8_requant4_apply(row0_lo, &r0),
                                    qs8_requant4_apply(row0_hi, &r1), zero_point, act_min, act_max), nc);
  if (mr > 1) {
    const int32x4_t row1_lo = vaddq_s32(bias_lo, reduce4(acc[1][0], acc[1][1], acc[1][2], acc[1][3]));
    const int32x4_t row1_hi = vaddq_s32(bias_hi, reduce4(acc[1][4], acc[1][5], acc[1][6], acc[1][7]));
    qs8_store_partial8(c + c_stride, qs8_narrow8(qs8_requant4_apply(row1_lo, &r0),
                                                 qs8_requant4_apply(row1_hi, &r1), zero_point, act_min, act_max),
                       nc);
  }
}
