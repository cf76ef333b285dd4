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
  /* The high-dword path (lite_qs8_requant_avx512_set_zp): every used shift in [33, 54]. */
  __m512i shift_hi, bias_hi; /* shift - 32; 2^(shift - 33) + zp * 2^(shift - 32) */
  int high_ok, high;
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
  const __mmask16 in_range =
      _mm512_cmpge_epi32_mask(shift, _mm512_set1_epi32(33)) & _mm512_cmple_epi32_mask(shift, _mm512_set1_epi32(54));
  r.high_ok = (in_range & used) == used;
  r.shift_hi = _mm512_mask_sub_epi32(_mm512_set1_epi32(1), used, shift, _mm512_set1_epi32(32));
  r.bias_hi = _mm512_setzero_si512();
  r.high = 0;
  return r;
}

/* Enables the high-dword path for output zero point zp where every used shift allows it. With
 * P = acc * m (64 bits) and shift s = 32 + t, t in [1, 22]: floor((P + 2^(s-1)) / 2^s) =
 * floor((H + 2^(t-1)) / 2^t) for H = floor(P / 2^32), the high dword (2^(s-1) is a multiple of 2^32,
 * and floor divisions nest), and adding zp * 2^t before the shift adds zp after it. |H| <= 2^30 and
 * |2^(t-1) + zp * 2^t| <= 2^21 + 2^29, so the int32 sum cannot overflow: one 32-bit add and one
 * vpsravd replace the 64-bit rounding adds and shifts, the merge and the zero-point add. */
static inline void lite_qs8_requant_avx512_set_zp(lite_qs8_requant_avx512* r, __m512i zp) {
  if (!r->high_ok) return;
  const __m512i one = _mm512_set1_epi32(1);
  r->bias_hi = _mm512_add_epi32(_mm512_sllv_epi32(one, _mm512_sub_epi32(r->shift_hi, one)),
                                _mm512_sllv_epi32(zp, r->shift_hi));
  r->high = 1;
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
  if (r->high) { /* zp was folded into bias_hi by lite_qs8_requant_avx512_set_zp */
    const __m512i even = _mm512_mul_epi32(acc, r->mult);
    const __m512i odd = _mm512_mul_epi32(_mm512_srli_epi64(acc, 32), r->mult_odd);
    /* the products' high dwords: even lanes from dword 2i + 1 of `even`, odd lanes from `odd` in place */
    const __m512i high = _mm512_mask_shuffle_epi32(odd, (__mmask16)0x5555, even, _MM_PERM_DDBB);
    return _mm512_srav_epi32(_mm512_add_epi32(high, r->bias_hi), r->shift_hi);
  }
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
