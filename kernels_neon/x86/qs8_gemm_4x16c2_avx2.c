/* AVX2 int8 GEMM microkernel (qs8_gemm_packed.h): MR 4, NR 16, KR 2, signed A (A_OFFSET 0).
 *
 * vpmaddubsw would saturate its int16 pair sums (255 * 127 * 2 > 2^15), so both sides are widened
 * to int16 and vpmaddwd sums each column's pair of products exactly into int32: the packed weight
 * group of 2 k x 16 columns is sign-extended from 32 bytes (vpmovsxbw), each row's 2 A bytes become
 * one broadcast int32 of two int16. The epilogue is the exact 64-bit requantization of
 * qs8_requantize_avx2.h. */
#include <immintrin.h>
#include <string.h>

#include "lite_kernels/qs8_gemm_packed.h"
#include "qs8_requantize_avx2.h"

enum { MR = 4, NR = 16, KR = 2 };

/* Two A bytes (the second 0 past k) as two int16 in every int32 lane. */
static inline __m256i broadcast_pair(const int8_t* row, size_t p, size_t k) {
  const uint32_t lo = (uint16_t)(int16_t)row[p];
  const uint32_t hi = p + 1 < k ? (uint32_t)(uint16_t)(int16_t)row[p + 1] : 0u;
  return _mm256_set1_epi32((int)(lo | (hi << 16)));
}

/* 8 int32 sums -> 8 int8 in the low 8 bytes. */
static inline __m128i requantize8(__m256i acc, const lite_qs8_requant_avx2* r, __m256i lo, __m256i hi, __m256i zp) {
  const __m256i y = lite_qs8_requantize_avx2(acc, r, lo, hi, zp);
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
    const lite_qs8_requant_avx2 r = lite_qs8_requant_avx2_load(requant + 32 * v, requant + 4 * NR + 32 * v);
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
