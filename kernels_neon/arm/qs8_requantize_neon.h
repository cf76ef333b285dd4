/* The int8 GEMM epilogue in NEON (aarch64 and armv7), bit-exact with lite_requantize_to_int8
 * (round(acc * M * 2^-s), half toward +infinity, M in [2^30, 2^31), s in [1, 62]) in three
 * 32-bit instructions per four outputs instead of a 64-bit product:
 *
 *   x = sqshl(acc, u)            u = max(0, 32 - s)
 *   h = sqdmulh(x, M)            = floor(x * M / 2^31), exact (saturates only for M = INT32_MIN)
 *   y = srshl(h, -t)             t = max(1, s - 31): floor((h + 2^(t-1)) / 2^t)
 *
 * Why exact: with P = x * M, h = floor(P / 2^31) and the discarded fraction f in [0, 1) cannot
 * carry across the integer h + 2^(t-1), so floor((P / 2^31 + 2^(t-1)) / 2^t) = y, which is
 * round(P / 2^(31 + t)) = round(acc * M / 2^s) since 2^u * 2^-(31 + t) = 2^-s for both branches of
 * u and t. When sqshl saturates (|acc| >= 2^(31 - u)), |acc * M / 2^s| >= 2^29 and the saturated
 * value gives a result of the same sign that is just as far outside int8: the clamp is the same.
 * Saturating narrows to int16 before adding the zero point, and to int8, cannot change the clamped
 * result either (a saturated value is far outside [act_min, act_max]). */
#ifndef LITE_KERNELS_ARM_QS8_REQUANTIZE_NEON_H
#define LITE_KERNELS_ARM_QS8_REQUANTIZE_NEON_H

#include <arm_neon.h>
#include <stdint.h>
#include <string.h>

/* Multipliers and shifts of four columns, read once per tile from the packed panel. */
typedef struct {
  int32x4_t multiplier;
  int32x4_t left_shift;      /* u */
  int32x4_t neg_right_shift; /* -t */
} qs8_requant4_neon;

static inline qs8_requant4_neon qs8_requant4_load(const int32_t* multiplier, const int32_t* shift) {
  const int32x4_t s = vld1q_s32(shift);
  qs8_requant4_neon r;
  r.multiplier = vld1q_s32(multiplier);
  r.left_shift = vmaxq_s32(vsubq_s32(vdupq_n_s32(32), s), vdupq_n_s32(0));
  r.neg_right_shift = vminq_s32(vsubq_s32(vdupq_n_s32(31), s), vdupq_n_s32(-1));
  return r;
}

/* round(acc * multiplier * 2^-shift), saturated to int32 (zero point not added). */
static inline int32x4_t qs8_requant4_apply(int32x4_t acc, const qs8_requant4_neon* r) {
  return vrshlq_s32(vqdmulhq_s32(vqshlq_s32(acc, r->left_shift), r->multiplier), r->neg_right_shift);
}

/* Eight requantized int32 results plus the output zero point to int8, clamped to [act_min, act_max]. */
static inline int8x8_t qs8_narrow8(int32x4_t v0, int32x4_t v1, int16x8_t zero_point, int8x8_t act_min,
                                   int8x8_t act_max) {
  const int16x8_t v = vqaddq_s16(vcombine_s16(vqmovn_s32(v0), vqmovn_s32(v1)), zero_point);
  return vmin_s8(vmax_s8(vqmovn_s16(v), act_min), act_max);
}

/* Stores the first `count` (<= 8) bytes of v. */
static inline void qs8_store_partial8(int8_t* dst, int8x8_t v, size_t count) {
  if (count == 8) {
    vst1_s8(dst, v);
  } else {
    int8_t tmp[8];
    vst1_s8(tmp, v);
    memcpy(dst, tmp, count);
  }
}

/* The `count` (1..8) bytes at src in the low bytes of a zeroed vector, reading no byte after them.
 * With `before` >= 8 - count readable bytes just before src (the row's bytes already consumed), one
 * load of the 8 bytes ending at src + count and a shift; otherwise a copy. */
static inline int8x8_t qs8_load_tail8(const int8_t* src, size_t count, size_t before) {
  if (before + count >= 8) {
    const uint64x1_t bytes = vreinterpret_u64_s8(vld1_s8(src + count - 8));
    return vreinterpret_s8_u64(vshl_u64(bytes, vdup_n_s64(-8 * (int64_t)(8 - count))));
  }
  int8_t tmp[8] = {0};
  memcpy(tmp, src, count);
  return vld1_s8(tmp);
}

/* The `count` (1..15) bytes at src in the low bytes of a zeroed vector, reading no byte after them
 * (the last row may end the buffer); `before` as for qs8_load_tail8. */
static inline int8x16_t qs8_load_tail16(const int8_t* src, size_t count, size_t before) {
  if (count > 8) return vcombine_s8(vld1_s8(src), qs8_load_tail8(src + 8, count - 8, before + 8));
  return vcombine_s8(qs8_load_tail8(src, count, before), vdup_n_s8(0));
}

#endif
