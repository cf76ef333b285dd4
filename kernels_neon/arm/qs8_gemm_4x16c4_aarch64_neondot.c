/* int8 GEMM microkernel (qs8_gemm_packed.h) for aarch64 with the dot product extension:
 * MR 4, NR 16, KR 4, signed A (A_OFFSET 0). One sdot (by element) adds four k of one A row to four
 * columns: 16 accumulators (4 rows x 4 column quads), 16 bytes of each A row per step (four lanes,
 * i.e. four k groups), 64 bytes of weights per k group. */
#include <arm_neon.h>

#include "lite_kernels/qs8_gemm_packed.h"
#include "qs8_gemm_ukernels_arm.h"
#include "qs8_requantize_neon.h"

enum { MR = 4, NR = 16, KR = 4 };

/* One k group (lane L of the A vectors) against the 16 columns at wp. */
#define QS8_DOT_GROUP(L)                                      \
  do {                                                        \
    const int8x16_t w0 = vld1q_s8(wp), w1 = vld1q_s8(wp + 16); \
    const int8x16_t w2 = vld1q_s8(wp + 32), w3 = vld1q_s8(wp + 48); \
    wp += NR * KR;                                            \
    acc[0][0] = vdotq_laneq_s32(acc[0][0], w0, va0, L);       \
    acc[0][1] = vdotq_laneq_s32(acc[0][1], w1, va0, L);       \
    acc[0][2] = vdotq_laneq_s32(acc[0][2], w2, va0, L);       \
    acc[0][3] = vdotq_laneq_s32(acc[0][3], w3, va0, L);       \
    acc[1][0] = vdotq_laneq_s32(acc[1][0], w0, va1, L);       \
    acc[1][1] = vdotq_laneq_s32(acc[1][1], w1, va1, L);       \
    acc[1][2] = vdotq_laneq_s32(acc[1][2], w2, va1, L);       \
    acc[1][3] = vdotq_laneq_s32(acc[1][3], w3, va1, L);       \
    acc[2][0] = vdotq_laneq_s32(acc[2][0], w0, va2, L);       \
    acc[2][1] = vdotq_laneq_s32(acc[2][1], w1, va2, L);       \
    acc[2][2] = vdotq_laneq_s32(acc[2][2], w2, va2, L);       \
    acc[2][3] = vdotq_laneq_s32(acc[2][3], w3, va2, L);       \
    acc[3][0] = vdotq_laneq_s32(acc[3][0], w0, va3, L);       \
    acc[3][1] = vdotq_laneq_s32(acc[3][1], w1, va3, L);       \
    acc[3][2] = vdotq_laneq_s32(acc[3][2], w2, va3, L);       \
    acc[3][3] = vdotq_laneq_s32(acc[3][3], w3, va3, L);       \
  } while (0)

void lite_qs8_gemm_ukernel_4x16c4_aarch64_neondot(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                                  const void* w, int8_t* c, size_t c_stride,
                                                  const lite_qs8_gemm_params* params) {
  /* Rows past mr re-read row mr - 1 (valid memory); their results are never stored. */
  const int8_t* a0 = a;
  const int8_t* a1 = mr > 1 ? a0 + a_stride : a0;
  const int8_t* a2 = mr > 2 ? a1 + a_stride : a1;
  const int8_t* a3 = mr > 3 ? a2 + a_stride : a2;
  const int32_t* bias = (const int32_t*)w;
  const int8_t* wp = (const int8_t*)w + NR * sizeof(int32_t);
  int32x4_t acc[MR][4];
  acc[0][0] = acc[1][0] = acc[2][0] = acc[3][0] = vld1q_s32(bias);
  acc[0][1] = acc[1][1] = acc[2][1] = acc[3][1] = vld1q_s32(bias + 4);
  acc[0][2] = acc[1][2] = acc[2][2] = acc[3][2] = vld1q_s32(bias + 8);
  acc[0][3] = acc[1][3] = acc[2][3] = acc[3][3] = vld1q_s32(bias + 12);

  size_t left = k;
  for (; left >= 16; left -= 16) {
    const int8x16_t va0 = vld1q_s8(a0), va1 = vld1q_s8(a1), va2 = vld1q_s8(a2), va3 = vld1q_s8(a3);
    a0 += 16, a1 += 16, a2 += 16, a3 += 16;
    QS8_DOT_GROUP(0);
    QS8_DOT_GROUP(1);
    QS8_DOT_GROUP(2);
    QS8_DOT_GROUP(3);
  }
  if (left != 0) {
    /* The packed weights are zero past k, so the zero bytes of the partial loads add nothing. */
    const int8x16_t va0 = qs8_load_tail16(a0, left, k - left), va1 = qs8_load_tail16(a1, left, k - left);
    const int8x16_t va2 = qs8_load_tail16(a2, left, k - left), va3 = qs8_load_tail16(a3, left, k - left);
    QS8_DOT_GROUP(0);
    if (left > 4) QS8_DOT_GROUP(1);
    if (left > 8) QS8_DOT_GROUP(2);
    if (left > 12) QS8_DOT_GROUP(3);
  }

  const int8_t* kc_end = (const int8_t*)w + NR * sizeof(int32_t) + NR * ((k + KR - 1) / KR * KR);
  const int32_t* multiplier = (const int32_t*)kc_end;
  const int32_t* shift = multiplier + NR;
  const int16x8_t zero_point = vdupq_n_s16((int16_t)params->output_zero_point);
  const int8x8_t act_min = vdup_n_s8((int8_t)params->act_min), act_max = vdup_n_s8((int8_t)params->act_max);
  /* Columns 8H..8H+7 of row I; constant indices keep acc in registers (a loop over H would index
   * acc by a variable and put it on the stack). */
#define QS8_STORE_ROW(H, I, COUNT)                                                                       \
  if (mr > I)                                                                                            \
    qs8_store_partial8(c + I * c_stride + 8 * H,                                                         \
                       qs8_narrow8(qs8_requant4_apply(acc[I][2 * H], &r0),                               \
                                   qs8_requant4_apply(acc[I][2 * H + 1], &r1), zero_point, act_min, act_max), \
                       COUNT)
  {
    const qs8_requant4_neon r0 = qs8_requant4_load(multiplier, shift);
    const qs8_requant4_neon r1 = qs8_requant4_load(multiplier + 4, shift + 4);
    const size_t count = nc < 8 ? nc : 8;
    QS8_STORE_ROW(0, 0, count);
    QS8_STORE_ROW(0, 1, count);
    QS8_STORE_ROW(0, 2, count);
    QS8_STORE_ROW(0, 3, count);
  }
  if (nc > 8) {
    const qs8_requant4_neon r0 = qs8_requant4_load(multiplier + 8, shift + 8);
    const qs8_requant4_neon r1 = qs8_requant4_load(multiplier + 12, shift + 12);
    QS8_STORE_ROW(1, 0, nc - 8);
    QS8_STORE_ROW(1, 1, nc - 8);
    QS8_STORE_ROW(1, 2, nc - 8);
    QS8_STORE_ROW(1, 3, nc - 8);
  }
#undef QS8_STORE_ROW
}
