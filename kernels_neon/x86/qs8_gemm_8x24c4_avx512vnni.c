/* AVX-512 VNNI int8 GEMM microkernel 8x24c4 (qs8_gemm_packed.h): KR 4, A_OFFSET 128, A flipped to u8
 * like qs8_gemm_8x16c4_8x32c4_avx512vnni.c, whose broadcast and epilogue it shares
 * (qs8_gemm_avx512vnni_tile.h). */
#include <immintrin.h>

#include "lite_kernels/qs8_gemm_packed.h"
#include "qs8_gemm_avx512vnni_tile.h"

/* NR = 24 without a wasted quarter: columns 0-15 of every row take one zmm each, columns 16-23 of
 * two rows share one zmm (row 2q in the low 8 lanes, row 2q + 1 in the high 8: a blend of the two
 * rows' broadcasts against the 8 weight columns repeated in both halves), so a row pair costs 3
 * multiply-adds per k-group where a 32-column tile costs 4 for 24 useful columns. */
static inline __attribute__((always_inline)) void gemm_tile_24(const size_t MR, size_t mr, size_t nc, size_t k,
                                                               const int8_t* a, size_t a_stride, const void* w,
                                                               int8_t* c, size_t c_stride,
                                                               const lite_qs8_gemm_params* params) {
  enum { NR = 24 };
  const size_t PAIRS = (MR + 1) / 2, kc = (k + 3) & ~(size_t)3;
  const uint8_t* panel = (const uint8_t*)w;
  const int8_t* rows[8];
  for (size_t i = 0; i < 2 * PAIRS; ++i) rows[i] = a + (i < mr ? i : mr - 1) * a_stride;
  __m512i acc[8], pair[4];
  {
    const __m512i b0 = _mm512_loadu_si512(panel);
    const __m512i b1 = _mm512_broadcast_i64x4(_mm256_loadu_si256((const void*)(panel + 64)));
    for (size_t i = 0; i < 2 * PAIRS; ++i) acc[i] = b0;
    for (size_t q = 0; q < PAIRS; ++q) pair[q] = b1;
  }
  const uint8_t* wp = panel + 4 * NR;
  const __m512i sign = _mm512_set1_epi32((int)0x80808080u);
  size_t p = 0;
  for (; p + 4 <= k; p += 4) {
    const __m512i w0 = _mm512_loadu_si512(wp);
    const __m512i w1 = _mm512_broadcast_i64x4(_mm256_loadu_si256((const void*)(wp + 64)));
    wp += 4 * NR;
    for (size_t q = 0; q < PAIRS; ++q) {
      const __m512i x0 = qs8_vnni_broadcast_group(rows[2 * q] + p, sign);
      const __m512i x1 = qs8_vnni_broadcast_group(rows[2 * q + 1] + p, sign);
      acc[2 * q] = _mm512_dpbusd_epi32(acc[2 * q], x0, w0);
      acc[2 * q + 1] = _mm512_dpbusd_epi32(acc[2 * q + 1], x1, w0);
      pair[q] = _mm512_dpbusd_epi32(pair[q], _mm512_mask_blend_epi32((__mmask16)0xFF00, x0, x1), w1);
    }
  }
  if (p < k) {
    const __m512i w0 = _mm512_loadu_si512(wp);
    const __m512i w1 = _mm512_broadcast_i64x4(_mm256_loadu_si256((const void*)(wp + 64)));
    for (size_t q = 0; q < PAIRS; ++q) {
      const __m512i x0 = qs8_vnni_broadcast_tail(rows[2 * q] + p, k - p);
      const __m512i x1 = qs8_vnni_broadcast_tail(rows[2 * q + 1] + p, k - p);
      acc[2 * q] = _mm512_dpbusd_epi32(acc[2 * q], x0, w0);
      acc[2 * q + 1] = _mm512_dpbusd_epi32(acc[2 * q + 1], x1, w0);
      pair[q] = _mm512_dpbusd_epi32(pair[q], _mm512_mask_blend_epi32((__mmask16)0xFF00, x0, x1), w1);
    }
  }
  qs8_vnni_store_tile_24(PAIRS, mr, nc, acc, pair, panel + 4 * NR + NR * kc, params, c, c_stride);
}

void lite_qs8_gemm_ukernel_8x24c4_avx512vnni(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                             const void* w, int8_t* c, size_t c_stride,
                                             const lite_qs8_gemm_params* params) {
  if (mr > 4)
    gemm_tile_24(8, mr, nc, k, a, a_stride, w, c, c_stride, params);
  else if (mr > 2)
    gemm_tile_24(4, mr, nc, k, a, a_stride, w, c, c_stride, params);
  else
    gemm_tile_24(2, mr, nc, k, a, a_stride, w, c, c_stride, params);
}
