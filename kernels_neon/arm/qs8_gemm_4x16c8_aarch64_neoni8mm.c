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

/* One k group of 8: row pairs a01, a23 against the 8 column pairs at wp. */
#define QS8_MMLA_GROUP(a01, a23)                                                  \
  do {                                                                            \
    for (int j = 0; j < 8; ++j) {                                                 \
      const int8x16_t wj = vld1q_s8(wp + 16 * j);                                 \
      acc[0][j] = vmmlaq_s32(acc[0][j], a01, wj);                                 \
      acc[1][j] = vmmlaq_s32(acc[1][j], a23, wj);                                 \
    }                                                                             \
    wp += NR * KR;                                                                \
  } while (0)

static inline int32x4_t row_lo(int32x4_t pair01, int32x4_t pair23) {
  return vreinterpretq_s32_s64(vzip1q_s64(vreinterpretq_s64_s32(pair01), vreinterpretq_s64_s32(pair23)));
}

static inline int32x4_t row_hi(int32x4_t pair01, int32x4_t pair23) {
  return vreinterpretq_s32_s64(vzip2q_s64(vreinterpretq_s64_s32(pair01), vreinterpretq_s64_s32(pair23)));
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
  int32x4_t acc[2][8];
  for (int j = 0; j < 8; ++j) {
    const int32x2_t b = vld1_s32(bias + 2 * j);
    acc[0][j] = acc[1][j] = vcombine_s32(b, b);
  }

  size_t left = k;
  for (; left >= 16; left -= 16) {
    const int8x16_t va0 = vld1q_s8(a0), va1 = vld1q_s8(a1), va2 = vld1q_s8(a2), va3 = vld1q_s8(a3);
    a0 += 16, a1 += 16, a2 += 16, a3 += 16;
    QS8_MMLA_GROUP(zip_rows_lo(va0, va1), zip_rows_lo(va2, va3));
    QS8_MMLA_GROUP(zip_rows_hi(va0, va1), zip_rows_hi(va2, va3));
  }
  if (left != 0) {
    /* The packed weights are zero past k, so the zero bytes of the partial loads add nothing. */
    const int8x16_t va0 = qs8_load_partial16(a0, left), va1 = qs8_load_partial16(a1, left);
    const int8x16_t va2 = qs8_load_partial16(a2, left), va3 = qs8_load_partial16(a3, left);
    QS8_MMLA_GROUP(zip_rows_lo(va0, va1), zip_rows_lo(va2, va3));
    if (left > 8) QS8_MMLA_GROUP(zip_rows_hi(va0, va1), zip_rows_hi(va2, va3));
  }

  const int32_t* multiplier = (const int32_t*)((const int8_t*)w + NR * sizeof(int32_t) + NR * ((k + KR - 1) / KR * KR));
  const int32_t* shift = multiplier + NR;
  const int32x4_t zero_point = vdupq_n_s32(params->output_zero_point);
  const int8x8_t act_min = vdup_n_s8((int8_t)params->act_min), act_max = vdup_n_s8((int8_t)params->act_max);
  for (size_t half = 0; half < 2 && half * 8 < nc; ++half) {
    const qs8_requant4_neon r0 = qs8_requant4_load(multiplier + 8 * half, shift + 8 * half);
    const qs8_requant4_neon r1 = qs8_requant4_load(multiplier + 8 * half + 4, shift + 8 * half + 4);
    const size_t count = nc - half * 8 < 8 ? nc - half * 8 : 8;
    /* Column pairs 4h..4h+3 of row pair P; constant indices keep acc in registers. */
#define QS8_STORE_ROWS(P)                                                                                    \
  do {                                                                                                       \
    const int32x4_t p0 = half ? acc[P][4] : acc[P][0], p1 = half ? acc[P][5] : acc[P][1];                    \
    const int32x4_t p2 = half ? acc[P][6] : acc[P][2], p3 = half ? acc[P][7] : acc[P][3];                    \
    if (mr > 2 * P)                                                                                          \
      qs8_store_partial8(c + (2 * P) * c_stride + 8 * half,                                                  \
                         qs8_narrow8(qs8_requant4_apply(row_lo(p0, p1), &r0, zero_point),                    \
                                     qs8_requant4_apply(row_lo(p2, p3), &r1, zero_point), act_min, act_max), \
                         count);                                                                             \
    if (mr > 2 * P + 1)                                                                                      \
      qs8_store_partial8(c + (2 * P + 1) * c_stride + 8 * half,                                              \
                         qs8_narrow8(qs8_requant4_apply(row_hi(p0, p1), &r0, zero_point),                    \
                                     qs8_requant4_apply(row_hi(p2, p3), &r1, zero_point), act_min, act_max), \
                         count);                                                                             \
  } while (0)
    QS8_STORE_ROWS(0);
    QS8_STORE_ROWS(1);
#undef QS8_STORE_ROWS
  }
}
