/* AVX2 int8 GEMM microkernel (qs8_gemm_packed.h): MR 4, NR 16, KR 2, signed A (A_OFFSET 0).
 *
 * vpmaddubsw would saturate its int16 pair sums (255 * 127 * 2 > 2^15), so both sides are widened
 * to int16 and vpmaddwd sums each column's pair of products exactly into int32: the packed weight
 * group of 2 k x 16 columns is sign-extended from 32 bytes (vpmovsxbw), each row's 2 A bytes become
 * one broadcast int32 of two int16. The epilogue is the exact 64-bit requantization; AVX2 has no
 * 64-bit arithmetic shift or min/max, so the shift is done on the value offset by 2^63 (logical) and
 * the clamp with vpcmpgtq. */
#include <immintrin.h>
#include <string.h>

#include "lite_kernels/qs8_gemm_packed.h"

enum { MR = 4, NR = 16, KR = 2 };

/* Two A bytes (the second 0 past k) as two int16 in every int32 lane. */
static inline __m256i broadcast_pair(const int8_t* row, size_t p, size_t k) {
  const uint32_t lo = (uint16_t)(int16_t)row[p];
  const uint32_t hi = p + 1 < k ? (uint32_t)(uint16_t)(int16_t)row[p + 1] : 0u;
  return _mm256_set1_epi32((int)(lo | (hi << 16)));
}

typedef struct {
  __m256i mult, mult_odd, shift_even, shift_odd, round_even, round_odd, offset_even, offset_odd;
} requant8;

static inline requant8 load_requant8(const uint8_t* multipliers, const uint8_t* shifts) {
  requant8 r;
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
static inline __m256i shift_clamp64(__m256i v, __m256i round, __m256i shift, __m256i offset, __m256i lo, __m256i hi) {
  const __m256i sign = _mm256_set1_epi64x((long long)0x8000000000000000ull);
  __m256i q = _mm256_srlv_epi64(_mm256_xor_si256(_mm256_add_epi64(v, round), sign), shift);
  q = _mm256_sub_epi64(q, offset);
  q = _mm256_blendv_epi8(q, lo, _mm256_cmpgt_epi64(lo, q));
  return _mm256_blendv_epi8(q, hi, _mm256_cmpgt_epi64(q, hi));
}

/* 8 int32 sums -> 8 int8 in the low 8 bytes. */
static inline __m128i requantize8(__m256i acc, const requant8* r, __m256i lo, __m256i hi, __m256i zp) {
  const __m256i even = shift_clamp64(_mm256_mul_epi32(acc, r->mult), r->round_even, r->shift_even, r->offset_even, lo, hi);
  const __m256i odd = shift_clamp64(_mm256_mul_epi32(_mm256_srli_epi64(acc, 32), r->mult_odd), r->round_odd,
                                    r->shift_odd, r->offset_odd, lo, hi);
  const __m256i y = _mm256_add_epi32(_mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA), zp);
  const __m256i w16 = _mm256_packs_epi32(y, y);    /* per lane: y0-3 y0-3 | y4-7 y4-7 */
  const __m256i b8 = _mm256_packs_epi16(w16, w16); /* per lane: low 4 bytes are y0-3 | y4-7 */
  return _mm_unpacklo_epi32(_mm256_castsi256_si128(b8), _mm256_extracti128_si256(b8, 1));
}

void lite_qs8_gemm_ukernel_4x16c2_avx2(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                       const void* w, int8_t* c, size_t c_stride, const lite_qs8_gemm_params* params) {
  const size_t kc = (k + KR - 1) / KR * KR;
  const uint8_t* panel = (const uint8_t*)w;
  const int8_t* rows[MR];
  for (size_t i = 0; i < MR; ++i) rows[i] = a + (i < mr ? i : mr - 1) * a_stride;
  __m256i acc[MR][2];
  for (size_t v = 0; v < 2; ++v) {
    const __m256i b = _mm256_loadu_si256((const __m256i*)(panel + 32 * v));
    for (size_t i = 0; i < MR; ++i) acc[i][v] = b;
  }
  const uint8_t* wp = panel + 4 * NR;
  for (size_t p = 0; p < k; p += KR) {
    const __m256i w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*)wp));
    const __m256i w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*)(wp + 16)));
    wp += KR * NR;
    for (size_t i = 0; i < MR; ++i) {
      const __m256i x = broadcast_pair(rows[i], p, k);
      acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_madd_epi16(x, w0));
      acc[i][1] = _mm256_add_epi32(acc[i][1], _mm256_madd_epi16(x, w1));
    }
  }
  const uint8_t* requant = panel + 4 * NR + NR * kc;
  const int32_t zp_out = params->output_zero_point;
  const __m256i lo = _mm256_set1_epi64x((long long)params->act_min - zp_out);
  const __m256i hi = _mm256_set1_epi64x((long long)params->act_max - zp_out);
  const __m256i zp = _mm256_set1_epi32(zp_out);
  for (size_t v = 0; v < 2 && nc > 8 * v; ++v) {
    const size_t cols = nc - 8 * v < 8 ? nc - 8 * v : 8;
    const requant8 r = load_requant8(requant + 32 * v, requant + 4 * NR + 32 * v);
    for (size_t i = 0; i < mr; ++i) {
      const __m128i out = requantize8(acc[i][v], &r, lo, hi, zp);
      int8_t* dst = c + i * c_stride + 8 * v;
      if (cols == 8) {
        _mm_storel_epi64((__m128i*)dst, out);
      } else {
        int8_t bytes[16];
        _mm_storeu_si128((__m128i*)bytes, out);
        memcpy(dst, bytes, cols);
      }
    }
  }
}
