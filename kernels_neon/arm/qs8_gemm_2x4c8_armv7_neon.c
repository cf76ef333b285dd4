/* int8 GEMM microkernel (qs8_gemm_packed.h) for 32-bit ARM NEON (Cortex-A7, Raspberry Pi 2/3):
 * MR 2, NR 4, KR 8, signed A (A_OFFSET 0). vmull.s8 multiplies 8 k of one row by 8 k of one column
 * into int16 (|product| <= 2^14, no overflow), vpadal.s16 folds the pairs into 4 int32 partial sums
 * per (row, column), reduced by vpadd at the end. 8 accumulators: armv7 has 16 q registers. */
#include <arm_neon.h>

#include "lite_kernels/qs8_gemm_packed.h"
#include "qs8_gemm_ukernels_arm.h"
#include "qs8_requantize_neon.h"

enum { MR = 2, NR = 4, KR = 8 };

/* The four column sums of one row: lane j = sum of the lanes of acc_j. */
static inline int32x4_t reduce4(int32x4_t acc0, int32x4_t acc1, int32x4_t acc2, int32x4_t acc3) {
  const int32x2_t p0 = vpadd_s32(vget_low_s32(acc0), vget_high_s32(acc0));
  const int32x2_t p1 = vpadd_s32(vget_low_s32(acc1), vget_high_s32(acc1));
  const int32x2_t p2 = vpadd_s32(vget_low_s32(acc2), vget_high_s32(acc2));
  const int32x2_t p3 = vpadd_s32(vget_low_s32(acc3), vget_high_s32(acc3));
  return vcombine_s32(vpadd_s32(p0, p1), vpadd_s32(p2, p3));
}

void lite_qs8_gemm_ukernel_2x4c8_armv7_neon(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                            const void* w, int8_t* c, size_t c_stride,
                                            const lite_qs8_gemm_params* params) {
  const int8_t* a0 = a;
  const int8_t* a1 = mr > 1 ? a0 + a_stride : a0; /* row 1 of a 1-row tile re-reads row 0 */
  const int8_t* wp = (const int8_t*)w + NR * sizeof(int32_t);
  int32x4_t acc00 = vdupq_n_s32(0), acc01 = acc00, acc02 = acc00, acc03 = acc00;
  int32x4_t acc10 = acc00, acc11 = acc00, acc12 = acc00, acc13 = acc00;
  for (size_t left = k; left != 0;) {
    int8x8_t va0, va1;
    if (left >= 8) {
      va0 = vld1_s8(a0), va1 = vld1_s8(a1);
      a0 += 8, a1 += 8, left -= 8;
    } else { /* the packed weights are zero past k: the zero bytes add nothing */
      va0 = qs8_load_tail8(a0, left, k - left), va1 = qs8_load_tail8(a1, left, k - left);
      left = 0;
    }
    const int8x16_t w01 = vld1q_s8(wp), w23 = vld1q_s8(wp + 16); /* columns 0,1 and 2,3 */
    wp += NR * KR;
    acc00 = vpadalq_s16(acc00, vmull_s8(vget_low_s8(w01), va0));
    acc01 = vpadalq_s16(acc01, vmull_s8(vget_high_s8(w01), va0));
    acc02 = vpadalq_s16(acc02, vmull_s8(vget_low_s8(w23), va0));
    acc03 = vpadalq_s16(acc03, vmull_s8(vget_high_s8(w23), va0));
    acc10 = vpadalq_s16(acc10, vmull_s8(vget_low_s8(w01), va1));
    acc11 = vpadalq_s16(acc11, vmull_s8(vget_high_s8(w01), va1));
    acc12 = vpadalq_s16(acc12, vmull_s8(vget_low_s8(w23), va1));
    acc13 = vpadalq_s16(acc13, vmull_s8(vget_high_s8(w23), va1));
  }

  const int32x4_t bias = vld1q_s32((const int32_t*)w);
  const int32_t* multiplier = (const int32_t*)((const int8_t*)w + NR * sizeof(int32_t) + NR * ((k + KR - 1) / KR * KR));
  const qs8_requant4_neon r = qs8_requant4_load(multiplier, multiplier + NR);
  const int16x8_t zero_point = vdupq_n_s16((int16_t)params->output_zero_point);
  const int8x8_t act_min = vdup_n_s8((int8_t)params->act_min), act_max = vdup_n_s8((int8_t)params->act_max);
  const int32x4_t row0 = qs8_requant4_apply(vaddq_s32(bias, reduce4(acc00, acc01, acc02, acc03)), &r);
  const int32x4_t row1 = qs8_requant4_apply(vaddq_s32(bias, reduce4(acc10, acc11, acc12, acc13)), &r);
  /* Both rows narrowed at once: bytes 0-3 are row 0, bytes 4-7 row 1. */
  int8_t out[8];
  vst1_s8(out, qs8_narrow8(row0, row1, zero_point, act_min, act_max));
  memcpy(c, out, nc);
  if (mr > 1) memcpy(c + c_stride, out + 4, nc);
}
