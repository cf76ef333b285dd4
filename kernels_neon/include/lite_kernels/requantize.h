/* Fixed-point requantization shared by every int8 kernel (docs/QUANTIZATION.md has the scheme).
 *
 * A real multiplier m > 0 (e.g. s_in * s_w / s_out) is represented as an integer `multiplier` and a
 * right `shift` with m ~= multiplier * 2^-shift, multiplier in [2^30, 2^31), shift in [1, 62].
 * Applying it to an int32 (or small int64) accumulator is ONE 64-bit multiply and ONE rounding right
 * shift: (acc * multiplier + 2^(shift-1)) >> shift, i.e. round half toward +infinity. No
 * intermediate rounding (unlike gemmlowp's doubling-high-mul + rounding-divide pair), so the Python
 * simulation in slim/fake_quant.py reproduces it bit for bit with int64 numpy. */
#ifndef LITE_KERNELS_REQUANTIZE_H
#define LITE_KERNELS_REQUANTIZE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Rounding right shift of a 64-bit value: floor((value + 2^(shift-1)) / 2^shift); shift in [1, 62].
 * Callers keep |value| < 2^62 (int32 accumulator times a multiplier < 2^31). */
static inline int64_t lite_rounding_shift_right(int64_t value, int shift) {
  const int64_t rounding = (int64_t)1 << (shift - 1);
  const int64_t sum = value + rounding;
  /* floor division by 2^shift without relying on the implementation-defined >> of negatives */
  const int64_t divisor = (int64_t)1 << shift;
  int64_t q = sum / divisor;
  if (sum % divisor != 0 && sum < 0) q -= 1;
  return q;
}

/* acc (first saturated to the int32 range, as an int32 accumulator would hold it; this also keeps
 * acc * multiplier below 2^62) times m, rounded, plus the output zero point, clamped to
 * [act_min, act_max] (int8 range or a fused RELU / CLIP range on the quantized axis). */
static inline int8_t lite_requantize_to_int8(int64_t acc, int32_t multiplier, int shift, int32_t output_zero_point,
                                             int32_t act_min, int32_t act_max) {
  if (acc > INT32_MAX) acc = INT32_MAX;
  if (acc < INT32_MIN) acc = INT32_MIN;
  int64_t v = lite_rounding_shift_right(acc * (int64_t)multiplier, shift) + output_zero_point;
  if (v < act_min) v = act_min;
  if (v > act_max) v = act_max;
  return (int8_t)v;
}

/* The (multiplier, shift) pair of a real multiplier, computed in double precision:
 * real = q * 2^e with q in [0.5, 1) (frexp); multiplier = floor(q * 2^31 + 0.5) (halved, e + 1, when it
 * reaches 2^31); shift = 31 - e. real == 0 or shift > 62 (real < 2^-32) gives multiplier 0, shift 1
 * (the product is 0). Returns 0, or -1 when real is negative, not finite, or >= 2^30 (shift < 1). */
int lite_quantize_multiplier(double real, int32_t* multiplier, int* shift);

/* Same, for a set of multipliers sharing one shift (int8 ADD): the shift is chosen from the
 * largest of real_a, real_b as above; each multiplier = floor(real * 2^shift + 0.5) (exact in double). */
int lite_quantize_multiplier_pair(double real_a, double real_b, int32_t* multiplier_a, int32_t* multiplier_b,
                                  int* shift);

#ifdef __cplusplus
}
#endif

#endif
