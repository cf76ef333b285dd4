/* Exact AVX-512 requantization of 16 int32 sums (lite_requantize_to_int8 of requantize.h, lane by
 * lane), shared by the int8 GEMM and depthwise kernels. Even and odd int32 lanes are multiplied
 * separately (vpmuldq, 64-bit products), rounded, shifted arithmetically (vpsravq) and clamped in
 * 64 bits (the shift can leave values far outside int32), then merged back. */
#ifndef LITE_KERNELS_X86_QS8_REQUANTIZE_AVX512_H
#define LITE_KERNELS_X86_QS8_REQUANTIZE_AVX512_H

#include <immintrin.h>
#include <stdint.h>

/* Per-lane multipliers and shifts, split into even / odd 64-bit lanes once per column block.
 * narrow: every shift >= 32, so each shifted value fits int32 (|acc * m| < 2^62) and the cheaper
 * lite_qs8_requantize_narrow_avx512 applies (the usual case: real multipliers below 0.5). */
typedef struct {
  __m512i mult, mult_odd, shift_even, shift_odd, round_even, round_odd, shift_odd_narrow;
  int narrow;
} lite_qs8_requant_avx512;

/* From 16 multipliers and 16 shifts; `used` marks the lanes whose results are stored: the others
 * (padded columns, multiplier 0 and shift 1) do not keep a block off the narrow path, whose
 * results in those lanes are meaningless but harmless. */
static inline lite_qs8_requant_avx512 lite_qs8_requant_avx512_make(__m512i mult, __m512i shift, __mmask16 used) {
  lite_qs8_requant_avx512 r;
  const __m512i low32 = _mm512_set1_epi64(0xFFFFFFFF), one = _mm512_set1_epi64(1);
  r.mult = mult;
  r.mult_odd = _mm512_srli_epi64(r.mult, 32);
  r.shift_even = _mm512_and_si512(shift, low32);
  r.shift_odd = _mm512_srli_epi64(shift, 32);
  r.round_even = _mm512_sllv_epi64(one, _mm512_sub_epi64(r.shift_even, one));
  r.round_odd = _mm512_sllv_epi64(one, _mm512_sub_epi64(r.shift_odd, one));
  r.shift_odd_narrow = _mm512_sub_epi64(r.shift_odd, _mm512_set1_epi64(32));
  r.narrow = (_mm512_cmplt_epi32_mask(shift, _mm512_set1_epi32(32)) & used) == 0;
  return r;
}

static inline lite_qs8_requant_avx512 lite_qs8_requant_avx512_load_used(const void* multipliers, const void* shifts,
                                                                       __mmask16 used) {
  return lite_qs8_requant_avx512_make(_mm512_loadu_si512(multipliers), _mm512_loadu_si512(shifts), used);
}

static inline lite_qs8_requant_avx512 lite_qs8_requant_avx512_load(const void* multipliers, const void* shifts) {
  return lite_qs8_requant_avx512_load_used(multipliers, shifts, (__mmask16)0xFFFF);
}

/* int32 results in [act_min, act_max]; lo / hi are act_min - zp / act_max - zp as 64-bit lanes. */
static inline __m512i lite_qs8_requantize_avx512(__m512i acc, const lite_qs8_requant_avx512* r, __m512i lo, __m512i hi,
                                                 __m512i zp) {
  __m512i even = _mm512_mul_epi32(acc, r->mult);
  __m512i odd = _mm512_mul_epi32(_mm512_srli_epi64(acc, 32), r->mult_odd);
  even = _mm512_srav_epi64(_mm512_add_epi64(even, r->round_even), r->shift_even);
  odd = _mm512_srav_epi64(_mm512_add_epi64(odd, r->round_odd), r->shift_odd);
  even = _mm512_min_epi64(_mm512_max_epi64(even, lo), hi);
  odd = _mm512_min_epi64(_mm512_max_epi64(odd, lo), hi);
  const __m512i merged = _mm512_mask_blend_epi32((__mmask16)0xAAAA, even, _mm512_slli_epi64(odd, 32));
  return _mm512_add_epi32(merged, zp);
}

/* The same for a narrow block before the clamp: the results plus zp, |value| < 2^31 (a saturating
 * narrowing to int8 is then the clamp to [-128, 127]). The odd lanes are shifted by shift - 32, which
 * leaves the result in their high halves, where the blend takes it. */
static inline __m512i lite_qs8_requantize_narrow_unclamped_avx512(__m512i acc, const lite_qs8_requant_avx512* r,
                                                                  __m512i zp) {
  __m512i even = _mm512_mul_epi32(acc, r->mult);
  __m512i odd = _mm512_mul_epi32(_mm512_srli_epi64(acc, 32), r->mult_odd);
  even = _mm512_srav_epi64(_mm512_add_epi64(even, r->round_even), r->shift_even);
  odd = _mm512_srav_epi64(_mm512_add_epi64(odd, r->round_odd), r->shift_odd_narrow);
  return _mm512_add_epi32(_mm512_mask_blend_epi32((__mmask16)0xAAAA, even, odd), zp);
}

/* A narrow block clamped: lo / hi are act_min / act_max as int32 lanes. */
static inline __m512i lite_qs8_requantize_narrow_avx512(__m512i acc, const lite_qs8_requant_avx512* r, __m512i lo,
                                                        __m512i hi, __m512i zp) {
  return _mm512_min_epi32(_mm512_max_epi32(lite_qs8_requantize_narrow_unclamped_avx512(acc, r, zp), lo), hi);
}

#endif
