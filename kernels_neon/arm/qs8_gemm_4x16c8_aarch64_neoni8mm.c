/* int8 GEMM microkernel (qs8_gemm_packed.h) for aarch64 with the int8 matrix multiply extension:
 * MR 4, NR 16, KR 8, signed A (A_OFFSET 0). One smmla multiplies a 2x8 block of A (two rows, eight
 * k) by an 8x2 block of weights (two adjacent columns: 16 contiguous packed bytes) into a 2x2 int32
 * block [r0c0 r0c1 r1c0 r1c1]: 16 accumulators hold 2 row pairs x 8 column pairs. A rows are loaded
 * 16 bytes at a time and paired by 64-bit zips (zip1: k 0-7, zip2: k 8-15). */
#include <arm_neon.h>

#include "lite_kernels/qs8_gemm_packed.h"
#include "qs8_gemm_ukernels_arm.h"
#include "qs8_requantize_neon.h"

enum { MR = 4, NR = 16, KR = 8 };

static inline int8x16_t zip_rows_lo(int8x16_t x, int8x16_t y) {
  return vreinterpretq_s8_s64(vzip1q_s64(vreinterpretq_s64_s8(x), vreinterpretq_s64_s8(y)));
}

static inline int8x16_t zip_rows_hi(int8x16_t x, int8x16_t y) {
  return vreinterpretq_s8_s64(vzip2q_s64(vreinterpretq_s64_s8(x), vreinterpretq_s64_s8(y)));
}

/* One k group of 8 (the k % 16 tail): row pairs a01, a23 against the 8 column pairs at wp, on the
 * accumulators the assembly loop stored. */
#define QS8_MMLA_GROUP(a01, a23)                                                          \
  do {                                                                                    \
    for (int j = 0; j < 8; ++j) {                                                         \
      const int8x16_t wj = vld1q_s8(wp + 16 * j);                                         \
      vst1q_s32(stored[0][j], vmmlaq_s32(vld1q_s32(stored[0][j]), a01, wj));              \
      vst1q_s32(stored[1][j], vmmlaq_s32(vld1q_s32(stored[1][j]), a23, wj));              \
    }                                                                                     \
    wp += NR * KR;                                                                        \
  } while (0)

static inline int32x4_t row_lo(int32x4_t pair01, int32x4_t pair23) {
  return vreinterpretq_s32_s64(vzip1q_s64(vreinterpretq_s64_s32(pair01), vreinterpretq_s64_s32(pair23)));
}

static inline int32x4_t row_hi(int32x4_t pair01, int32x4_t pair23) {
  return vreinterpretq_s32_s64(vzip2q_s64(vreinterpretq_s64_s32(pair01), vreinterpretq_s64_s32(pair23)));
}

/* Requantizes and stores the top-left mr x nc corner of the tile held in `stored`. */
static inline __attribute__((always_inline)) void store_tile(const int32_t (*stored)[8][4], size_t mr, size_t nc,
                                                             const int32_t* multiplier, const int32_t* shift,
                                                             const lite_qs8_gemm_params* params, int8_t* c,
                                                             size_t c_stride) {
  const int16x8_t zero_point = vdupq_n_s16((int16_t)params->output_zero_point);
  const int8x8_t act_min = vdup_n_s8((int8_t)params->act_min), act_max = vdup_n_s8((int8_t)params->act_max);
  /* Columns 8H..8H+7 (column pairs 4H..4H+3) of row pair P. */
#define QS8_STORE_ROWS(H, P, COUNT)                                                                           \
  do {                                                                                                        \
    const int32x4_t p0 = vld1q_s32(stored[P][4 * H]), p1 = vld1q_s32(stored[P][4 * H + 1]);       \
    const int32x4_t p2 = vld1q_s32(stored[P][4 * H + 2]), p3 = vld1q_s32(stored[P][4 * H + 3]);   \
    if (mr > 2 * P)                                                                                           \
      qs8_store_partial8(c + (2 * P) * c_stride + 8 * H,                                                      \
                         qs8_narrow8(qs8_requant4_apply(row_lo(p0, p1), &r0), qs8_requant4_apply(row_lo(p2, p3), &r1), \
                                     zero_point, act_min, act_max),                                           \
                         COUNT);                                                                              \
    if (mr > 2 * P + 1)                                                                                       \
      qs8_store_partial8(c + (2 * P + 1) * c_stride + 8 * H,                                                  \
                         qs8_narrow8(qs8_requant4_apply(row_hi(p0, p1), &r0), qs8_requant4_apply(row_hi(p2, p3), &r1), \
                                     zero_point, act_min, act_max),                                           \
                         COUNT);                                                                              \
  } while (0)
  {
    const qs8_requant4_neon r0 = qs8_requant4_load(multiplier, shift);
    const qs8_requant4_neon r1 = qs8_requant4_load(multiplier + 4, shift + 4);
    const size_t count = nc < 8 ? nc : 8;
    QS8_STORE_ROWS(0, 0, count);
    QS8_STORE_ROWS(0, 1, count);
  }
  if (nc > 8) {
    const qs8_requant4_neon r0 = qs8_requant4_load(multiplier + 8, shift + 8);
    const qs8_requant4_neon r1 = qs8_requant4_load(multiplier + 12, shift + 12);
    QS8_STORE_ROWS(1, 0, nc - 8);
    QS8_STORE_ROWS(1, 1, nc - 8);
  }
#undef QS8_STORE_ROWS
}

void lite_qs8_gemm_ukernel_4x16c8_aarch64_neoni8mm(size_t mr, size_t nc, size_t k, const int8_t* a,
                                                   size_t a_stride, const void* w, int8_t* c, size_t c_stride,
                                                   const lite_qs8_gemm_params* params) {
  /* Rows past mr re-read row mr - 1 (valid memory); their results are never stored. */
  const int8_t* a0 = a;
  const int8_t* a1 = mr > 1 ? a0 + a_stride : a0;
  const int8_t* a2 = mr > 2 ? a1 + a_stride : a1;
  const int8_t* a3 = mr > 3 ? a2 + a_stride : a2;
  const int32_t* bias = (const int32_t*)w;
  const int8_t* wp = (const int8_t*)w + NR * sizeof(int32_t);
  /* Bias, then 16 k per iteration, in assembly with the 16 accumulators in v0-v15: the compiler's
   * allocation of 16 accumulators, 8 weight and 8 A registers spilled and copied (68 instructions
   * per 32 smmla; 50 here). The accumulators leave through `stored` (16 stores and loads per call, fewer than the spills they replace). */
  size_t blocks = k / 16;
  const size_t left = k % 16;
  int32_t stored[2][8][4];
  __asm__ volatile(
      "ldr d0, [%[bias], #0]\n"
      "ldr d1, [%[bias], #8]\n"
      "ldr d2, [%[bias], #16]\n"
      "ldr d3, [%[bias], #24]\n"
      "ldr d4, [%[bias], #32]\n"
      "ldr d5, [%[bias], #40]\n"
      "ldr d6, [%[bias], #48]\n"
      "ldr d7, [%[bias], #56]\n"
      "dup v0.2d, v0.d[0]\n"
      "dup v1.2d, v1.d[0]\n"
      "dup v2.2d, v2.d[0]\n"
      "dup v3.2d, v3.d[0]\n"
      "dup v4.2d, v4.d[0]\n"
      "dup v5.2d, v5.d[0]\n"
      "dup v6.2d, v6.d[0]\n"
      "dup v7.2d, v7.d[0]\n"
      "mov v8.16b, v0.16b\n"
      "mov v9.16b, v1.16b\n"
      "mov v10.16b, v2.16b\n"
      "mov v11.16b, v3.16b\n"
      "mov v12.16b, v4.16b\n"
      "mov v13.16b, v5.16b\n"
      "mov v14.16b, v6.16b\n"
      "mov v15.16b, v7.16b\n"
      "cbz %[n], 2f\n"
      "1:\n"
      "ldr q16, [%[a0]], #16\n"
      "ldr q17, [%[a1]], #16\n"
      "ldr q18, [%[a2]], #16\n"
      "ldr q19, [%[a3]], #16\n"
      "ldp q24, q25, [%[w]], #32\n"
      "ldp q26, q27, [%[w]], #32\n"
      "zip1 v20.2d, v16.2d, v17.2d\n"
      "zip1 v21.2d, v18.2d, v19.2d\n"
      "ldp q28, q29, [%[w]], #32\n"
      "ldp q30, q31, [%[w]], #32\n"
      "smmla v0.4s, v20.16b, v24.16b\n"
      "smmla v8.4s, v21.16b, v24.16b\n"
      "smmla v1.4s, v20.16b, v25.16b\n"
      "smmla v9.4s, v21.16b, v25.16b\n"
      "smmla v2.4s, v20.16b, v26.16b\n"
      "smmla v10.4s, v21.16b, v26.16b\n"
      "smmla v3.4s, v20.16b, v27.16b\n"
      "smmla v11.4s, v21.16b, v27.16b\n"
      "zip2 v22.2d, v16.2d, v17.2d\n"
      "zip2 v23.2d, v18.2d, v19.2d\n"
      "smmla v4.4s, v20.16b, v28.16b\n"
      "smmla v12.4s, v21.16b, v28.16b\n"
      "smmla v5.4s, v20.16b, v29.16b\n"
      "smmla v13.4s, v21.16b, v29.16b\n"
      "smmla v6.4s, v20.16b, v30.16b\n"
      "smmla v14.4s, v21.16b, v30.16b\n"
      "smmla v7.4s, v20.16b, v31.16b\n"
      "smmla v15.4s, v21.16b, v31.16b\n"
      "ldp q24, q25, [%[w]], #32\n"
      "ldp q26, q27, [%[w]], #32\n"
      "smmla v0.4s, v22.16b, v24.16b\n"
      "smmla v8.4s, v23.16b, v24.16b\n"
      "smmla v1.4s, v22.16b, v25.16b\n"
      "smmla v9.4s, v23.16b, v25.16b\n"
      "smmla v2.4s, v22.16b, v26.16b\n"
      "smmla v10.4s, v23.16b, v26.16b\n"
      "smmla v3.4s, v22.16b, v27.16b\n"
      "smmla v11.4s, v23.16b, v27.16b\n"
      "ldp q28, q29, [%[w]], #32\n"
      "ldp q30, q31, [%[w]], #32\n"
      "smmla v4.4s, v22.16b, v28.16b\n"
      "smmla v12.4s, v23.16b, v28.16b\n"
      "smmla v5.4s, v22.16b, v29.16b\n"
      "smmla v13.4s, v23.16b, v29.16b\n"
      "smmla v6.4s, v22.16b, v30.16b\n"
      "smmla v14.4s, v23.16b, v30.16b\n"
      "smmla v7.4s, v22.16b, v31.16b\n"
      "smmla v15.4s, v23.16b, v31.16b\n"
      "subs %[n], %[n], #1\n"
      "b.ne 1b\n"
      "2:\n"
      "stp q0, q1, [%[acc], #0]\n"
      "stp q2, q3, [%[acc], #32]\n"
      "stp q4, q5, [%[acc], #64]\n"
      "stp q6, q7, [%[acc], #96]\n"
      "stp q8, q9, [%[acc], #128]\n"
      "stp q10, q11, [%[acc], #160]\n"
      "stp q12, q13, [%[acc], #192]\n"
      "stp q14, q15, [%[acc], #224]\n"
      : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [w] "+r"(wp), [n] "+r"(blocks)
      : [bias] "r"(bias), [acc] "r"(stored)
      : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",
        "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28",
        "v29", "v30", "v31");
  if (left != 0) {
    /* The packed weights are zero past k, so the zero bytes of the partial loads add nothing. */
    const int8x16_t va0 = qs8_load_tail16(a0, left, k - left), va1 = qs8_load_tail16(a1, left, k - left);
    const int8x16_t va2 = qs8_load_tail16(a2, left, k - left), va3 = qs8_load_tail16(a3, left, k - left);
    QS8_MMLA_GROUP(zip_rows_lo(va0, va1), zip_rows_lo(va2, va3));
    if (left > 8) QS8_MMLA_GROUP(zip_rows_hi(va0, va1), zip_rows_hi(va2, va3));
  }

  const int32_t* multiplier = (const int32_t*)((const int8_t*)w + NR * sizeof(int32_t) + NR * ((k + KR - 1) / KR * KR));
  const int32_t* shift = multiplier + NR;
  /* two copies: the full tile's has constant mr and nc, so no row or column tests */
  if (mr == MR && nc == NR)
    store_tile(stored, MR, NR, multiplier, shift, params, c, c_stride);
  else
    store_tile(stored, mr, nc, multiplier, shift, params, c, c_stride);
}
