/* The int8 GEMM epilogue in NEON (aarch64 and armv7), bit-exact with lite_requantize_to_int8:
 * a 64-bit product acc * multiplier (smull / vmull.s32), a rounding right shift by the per-column
 * shift (srshl / vrshl.s64 by a negative amount: adds 2^(shift-1) with unbounded precision, i.e.
 * rounds half toward +infinity, like the reference), then saturating narrows. Saturating to int32
 * before adding the zero point, and then to int16 and int8, cannot change the clamped result: a
 * value saturated at any step is beyond the int8 range and is clamped to the same bound. */
#ifndef LITE_KERNELS_ARM_QS8_REQUANTIZE_NEON_H
#define LITE_KERNELS_ARM_QS8_REQUANTIZE_NEON_H

#include <arm_neon.h>
#include <stdint.h>
#include <string.h>

/* Multipliers and negated shifts of four columns, read once per tile from the packed panel. */
typedef struct {
  int32x4_t multiplier;
  int64x2_t neg_shift_lo, neg_shift_hi;
} qs8_requant4_neon;

static inline qs8_requant4_neon qs8_requant4_load(const int32_t* multiplier, const int32_t* shift) {
  const int32x4_t s = vld1q_s32(shift);
  qs8_requant4_neon r;
  r.multiplier = vld1q_s32(multiplier);
  r.neg_shift_lo = vsubq_s64(vdupq_n_s64(0), vmovl_s32(vget_low_s32(s))); /* armv7 has no vneg.s64 */
  r.neg_shift_hi = vsubq_s64(vdupq_n_s64(0), vmovl_s32(vget_high_s32(s)));
  return r;
}

/* rounding_shift_right(acc * multiplier, shift) + zero_point, saturated to int32. */
static inline int32x4_t qs8_requant4_apply(int32x4_t acc, const qs8_requant4_neon* r, int32x4_t zero_point) {
  int64x2_t lo = vmull_s32(vget_low_s32(acc), vget_low_s32(r->multiplier));
  int64x2_t hi = vmull_s32(vget_high_s32(acc), vget_high_s32(r->multiplier));
  lo = vrshlq_s64(lo, r->neg_shift_lo);
  hi = vrshlq_s64(hi, r->neg_shift_hi);
  return vqaddq_s32(vcombine_s32(vqmovn_s64(lo), vqmovn_s64(hi)), zero_point);
}

/* Eight int32 results to int8, clamped to [act_min, act_max]. */
static inline int8x8_t qs8_narrow8(int32x4_t v0, int32x4_t v1, int8x8_t act_min, int8x8_t act_max) {
  const int8x8_t q = vqmovn_s16(vcombine_s16(vqmovn_s32(v0), vqmovn_s32(v1)));
  return vmin_s8(vmax_s8(q, act_min), act_max);
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

/* Loads `count` (< 16) bytes of a row into the low bytes of a zeroed vector, reading nothing past
 * them (the last row may end the buffer). */
static inline int8x16_t qs8_load_partial16(const int8_t* src, size_t count) {
  int8_t tmp[16] = {0};
  memcpy(tmp, src, count);
  return vld1q_s8(tmp);
}

#endif
