/* int8 GEMM microkernel (qs8_gemm_packed.h) for any ARMv8 NEON without the dot product (Cortex-A53,
 * A55 builds without it, A72, A73: Raspberry Pi 3 / 4): MR 8 (up to four 2-row tiles per call, the
 * panel's epilogue constants loaded once), NR 8, KR 16, signed A (A_OFFSET 0).
 *
 * Per row, column and 16 k: smull (k 0-7) + smlal2 (k 8-15) leave eight int16 sums of two products,
 * sadalp folds them into four int32 partial sums: 16 multiply-adds in 3 instructions (smull +
 * sadalp per 8 k is 4). The int16 pair is exact while |w| <= 127: 2 * 128 * 127 = 32512 < 2^15.
 * Weights of -128 (imported models; our quantizer's weights are in [-127, 127]) could make a pair
 * 2 * 128 * 128 = 2^15, so a panel holding one runs smull + sadalp per 8 k instead (a flag of
 * the packed shift words). A pairwise-add tree reduces the four partial sums once per tile.
 *
 * Packed shift words: lite_qs8_gemm_pack_shift_amounts's (the sqshl and srshl amounts and the
 * panel flags; register-operand sqshl and srshl read only the signed low byte of each lane: sqshl
 * takes the word as is, srshl the word shifted right by 8). */
#include <arm_neon.h>
#include <string.h>

#include "lite_kernels/qs8_gemm_packed.h"
#include "qs8_gemm_ukernels_arm.h"
#include "qs8_requantize_neon.h"

enum { MR = 8, NR = 8, KR = 16 };
/* Folding eight int16 sums into an accumulator: the first k step initializes it (saddlp). */
#define FOLD_INIT(acc, x) ((acc) = vpaddlq_s16(x))
#define FOLD_ADD(acc, x) ((acc) = vpadalq_s16((acc), (x)))

/* One 16-k step of rows a0x / a1x against the 8 columns at wp (16 bytes per column); with
 * pairs_fit (no -128 weight) two products share an int16 sum, else each is folded on its own. */
#define QS8_STEP(FOLD, a0x, a1x, wp, pairs_fit)                                                         \
  do {                                                                                                 \
    for (int j = 0; j < NR; ++j) {                                                                     \
      const int8x16_t wj = vld1q_s8((wp) + 16 * j);                                                    \
      const int16x8_t p0 = vmull_s8(vget_low_s8(a0x), vget_low_s8(wj));                                \
      const int16x8_t p1 = vmull_s8(vget_low_s8(a1x), vget_low_s8(wj));                                \
      if (pairs_fit) {                                                                                 \
        FOLD(acc0[j], vmlal_high_s8(p0, a0x, wj));                                                     \
        FOLD(acc1[j], vmlal_high_s8(p1, a1x, wj));                                                     \
      } else {                                                                                         \
        FOLD(acc0[j], p0);                                                                             \
        FOLD(acc1[j], p1);                                                                             \
        FOLD_ADD(acc0[j], vmull_high_s8(a0x, wj));                                                     \
        FOLD_ADD(acc1[j], vmull_high_s8(a1x, wj));                                                     \
      }                                                                                                \
    }                                                                                                  \
  } while (0)

/* Lane j = the sum of the four lanes of acc_j, j = 0..3. */
static inline int32x4_t reduce4(int32x4_t acc0, int32x4_t acc1, int32x4_t acc2, int32x4_t acc3) {
  return vpaddq_s32(vpaddq_s32(acc0, acc1), vpaddq_s32(acc2, acc3));
}

typedef struct {
  int32x4_t bias_lo, bias_hi, mult_lo, mult_hi, left_lo, left_hi, right_lo, right_hi;
  int16x8_t zero_point;
  int8x8_t act_min, act_max;
  int left; /* some u != 0: the sqshl runs */
} panel_epilogue;

static inline int32x4_t requant4(int32x4_t acc, int32x4_t mult, int32x4_t left, int32x4_t right, int has_left) {
  if (has_left) acc = vqshlq_s32(acc, left);
  return vrshlq_s32(vqdmulhq_s32(acc, mult), right);
}

static inline int8x8_t row_output(const int32x4_t* acc, const panel_epilogue* e) {
  const int32x4_t lo = vaddq_s32(e->bias_lo, reduce4(acc[0], acc[1], acc[2], acc[3]));
  const int32x4_t hi = vaddq_s32(e->bias_hi, reduce4(acc[4], acc[5], acc[6], acc[7]));
  return qs8_narrow8(requant4(lo, e->mult_lo, e->left_lo, e->right_lo, e->left),
                     requant4(hi, e->mult_hi, e->left_hi, e->right_hi, e->left), e->zero_point, e->act_min,
                     e->act_max);
}

/* Rows a0 and a1 (a1 may repeat a0) into c0 and, when c1 is not NULL, c1. */
static inline __attribute__((always_inline)) void qs8_rows2(size_t k, const int8_t* a0, const int8_t* a1,
                                                            const int8_t* weights, int pairs_fit,
                                                            const panel_epilogue* e, size_t nc, int8_t* c0,
                                                            int8_t* c1) {
  const int8_t* wp = weights;
  int32x4_t acc0[NR], acc1[NR];
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
  qs8_store_partial8(c0, row_output(acc0, e), nc);
  if (c1 != NULL) qs8_store_partial8(c1, row_output(acc1, e), nc);
}

void lite_qs8_gemm_ukernel_8x8c16_aarch64_neon(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                               const void* w, int8_t* c, size_t c_stride,
                                               const lite_qs8_gemm_params* params) {
  const size_t kc = (k + KR - 1) / KR * KR;
  const int32_t* bias = (const int32_t*)w;
  const int8_t* weights = (const int8_t*)w + NR * sizeof(int32_t);
  const int32_t* multiplier = (const int32_t*)(weights + NR * kc);
  const int32_t* words = multiplier + NR;
  uint32_t flags;
  memcpy(&flags, words, sizeof(flags));
  panel_epilogue e;
  e.bias_lo = vld1q_s32(bias), e.bias_hi = vld1q_s32(bias + 4);
  e.mult_lo = vld1q_s32(multiplier), e.mult_hi = vld1q_s32(multiplier + 4);
  e.left_lo = vld1q_s32(words), e.left_hi = vld1q_s32(words + 4);
  e.right_lo = vshrq_n_s32(e.left_lo, 8), e.right_hi = vshrq_n_s32(e.left_hi, 8);
  e.zero_point = vdupq_n_s16((int16_t)params->output_zero_point);
  e.act_min = vdup_n_s8((int8_t)params->act_min), e.act_max = vdup_n_s8((int8_t)params->act_max);
  e.left = (flags & LITE_QS8_PANEL_LEFT_SHIFT) != 0;
  for (size_t i0 = 0; i0 < mr; i0 += 2) {
    const int8_t* a0 = a + i0 * a_stride;
    const int8_t* a1 = i0 + 1 < mr ? a0 + a_stride : a0; /* a lone last row is read twice */
    int8_t* c0 = c + i0 * c_stride;
    int8_t* c1 = i0 + 1 < mr ? c0 + c_stride : NULL;
    if ((flags & LITE_QS8_PANEL_WEIGHT_MIN) == 0) {
      qs8_rows2(k, a0, a1, weights, 1, &e, nc, c0, c1);
    } else {
      qs8_rows2(k, a0, a1, weights, 0, &e, nc, c0, c1);
    }
  }
}
