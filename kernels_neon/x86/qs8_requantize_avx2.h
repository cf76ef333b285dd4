/* Exact AVX2 requantization of 8 int32 sums (lite_requantize_to_int8 of requantize.h, lane by lane),
 * shared by the int8 GEMM and depthwise kernels. AVX2 has no 64-bit arithmetic shift or min/max: the
 * rounded 64-bit product is shifted logically after offsetting it by 2^63 (then the offset's shifted
 * value is subtracted) and clamped with vpcmpgtq. */
#ifndef LITE_KERNELS_X86_QS8_REQUANTIZE_AVX2_H
#define LITE_KERNELS_X86_QS8_REQUANTIZE_AVX2_H

#include <immintrin.h>
#include <stdint.h>

/* Per-lane multipliers and shifts split into even / odd 64-bit lanes, once per column block. */
typedef struct {
  __m256i mult, mult_odd, shift_even, shift_odd, round_even, round_odd, offset_even, offset_odd;
} lite_qs8_requant_avx2;

static inline lite_qs8_requant_avx2 lite_qs8_requant_avx2_load(const void* multipliers, const void* shifts) {
  lite_qs8_requant_avx2 r;
  const __m256i one = _mm256_set1_epi64x(1), s63 = _mm256_set1_epi64x(63);
  const __m256i shift = _mm256_loadu_si256((const __m256i*)shifts);
  r.mult = _mm256_loadu_si256((const __m256i*)multipliers);
  r.mult_odd = _mm256_srli_epi64(r.mult, 32);
  r.shift_even = _mm256_and_si256(shift, _mm256_set1_epi64x(0xFFFFFFFF));
  r.shift_odd = _mm256_srli_epi64(shift, 32);
  r.round_even = _mm256_sllv_epi64(one, _mm256_sub_epi64(r.shift_even, one));
  r.round_odd = _mm256_sllv_epi64(one, _mm256_sub_epi64(r.shift_odd, one));
  r.offset_even = _mm256_sllv_epi64(one, _mm256_sub_epi64(s63, r.shift_even));
  r.offset_odd = _mm256_sllv_epi64(one, _mm256_sub_epi64(s63, r.shift_odd));
  return r;
}

/* floor((v + round) / 2^shift) on 64-bit lanes, |v + round| < 2^63, then clamped to [lo, hi]. */
static inline __m256i lite_qs8_shift_clamp64_avx2(__m256i v, __m256i round, __m256i shift, __m256i offset, __m256i lo, __m256i hi) {
  const __m256i sign = _mm256_set1_epi64x((long long)0x8000000000000000ull);
  __m256i q = _mm256_srlv_epi64(_mm256_xor_si256(_mm256_add_epi64(v, round), sign), shift);
  q = _mm256_sub_epi64(q, offset);
  q = _mm256_blendv_epi8(q, lo, _mm256_cmpgt_epi64(lo, q));
  return _mm256_blendv_epi8(q, hi, _mm256_cmpgt_epi64(q, hi));
}

/* int32 results in [act_min, act_max]; lo / hi are act_min - zp / act_max - zp as 64-bit lanes. */
static inline __m256i lite_qs8_requantize_avx2(__m256i acc, const lite_qs8_requant_avx2* r, __m256i lo, __m256i hi,
                                               __m256i zp) {
  const __m256i even = lite_qs8_shift_clamp64_avx2(_mm256_mul_epi32(acc, r->mult), r->round_even, r->shift_even,
                                                   r->offset_even, lo, hi);
  const __m256i odd = lite_qs8_shift_clamp64_avx2(_mm256_mul_epi32(_mm256_srli_epi64(acc, 32), r->mult_odd),
                                                  r->round_odd, r->shift_odd, r->offset_odd, lo, hi);
  return _mm256_add_epi32(_mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA), zp);
}

#endif
