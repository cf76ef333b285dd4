/* AVX-512 VNNI int8 GEMM microkernels (qs8_gemm_packed.h): KR 4, A_OFFSET 128.
 *
 * vpdpbusd multiplies unsigned bytes by signed bytes, so each broadcast group of 4 A bytes is
 * flipped to u8 (a ^ 0x80 = a + 128); the pack folded -128 * sum(W) into the bias. NR is 16 or 32
 * (one or two zmm of int32 columns) or 24 (gemm_tile_24); every row of the tile is computed (rows
 * past mr re-read row mr - 1) and only mr x nc is stored. The epilogue is the exact 64-bit requantization of
 * qs8_requantize_avx512.h, narrowed with vpmovdb. */
#include <immintrin.h>

#include "lite_kernels/qs8_gemm_packed.h"
#include "qs8_gemm_avx512vnni_tile.h"

/* The k % 4 tail bytes (the rest zero: their weights are zero), flipped to u8. */
static inline __m512i broadcast_tail(const int8_t* row, size_t bytes) {
  uint32_t v = 0;
  for (size_t b = 0; b < bytes; ++b) v |= (uint32_t)(uint8_t)row[b] << (8 * b);
  return _mm512_set1_epi32((int)(v ^ 0x80808080u));
}

static inline __attribute__((always_inline)) void gemm_tile(const size_t MR, const size_t NV, size_t mr, size_t nc,
                                                            size_t k, const int8_t* a, size_t a_stride, const void* w,
                                                            int8_t* c, size_t c_stride,
                                                            const lite_qs8_gemm_params* params) {
  const size_t NR = 16 * NV, kc = (k + 3) & ~(size_t)3;
  const uint8_t* panel = (const uint8_t*)w;
  const int8_t* rows[8];
  for (size_t i = 0; i < MR; ++i) rows[i] = a + (i < mr ? i : mr - 1) * a_stride;
  __m512i acc[8][2];
  for (size_t v = 0; v < NV; ++v) {
    const __m512i b = _mm512_loadu_si512(panel + 64 * v);
    for (size_t i = 0; i < MR; ++i) acc[i][v] = b;
  }
  const uint8_t* wp = panel + 4 * NR;
  const __m512i sign = _mm512_set1_epi32((int)0x80808080u);
  size_t p = 0;
  for (; p + 4 <= k; p += 4) {
    const __m512i w0 = _mm512_loadu_si512(wp);
    const __m512i w1 = NV > 1 ? _mm512_loadu_si512(wp + 64) : w0;
    wp += 4 * NR;
    for (size_t i = 0; i < MR; ++i) {
      const __m512i x = qs8_vnni_broadcast_group(rows[i] + p, sign);
      acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], x, w0);
      if (NV > 1) acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], x, w1);
    }
  }
  if (p < k) {
    const __m512i w0 = _mm512_loadu_si512(wp);
    const __m512i w1 = NV > 1 ? _mm512_loadu_si512(wp + 64) : w0;
    for (size_t i = 0; i < MR; ++i) {
      const __m512i x = broadcast_tail(rows[i] + p, k - p);
      acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], x, w0);
      if (NV > 1) acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], x, w1);
    }
  }
  qs8_vnni_store_tile(NV, mr, nc, acc, panel + 4 * NR + NR * kc, params, c, c_stride);
}

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
      const __m512i x0 = broadcast_tail(rows[2 * q] + p, k - p), x1 = broadcast_tail(rows[2 * q + 1] + p, k - p);
      acc[2 * q] = _mm512_dpbusd_epi32(acc[2 * q], x0, w0);
      acc[2 * q + 1] = _mm512_dpbusd_epi32(acc[2 * q + 1], x1, w0);
      pair[q] = _mm512_dpbusd_epi32(pair[q], _mm512_mask_blend_epi32((__mmask16)0xFF00, x0, x1), w1);
    }
  }
  qs8_vnni_store_tile_24(PAIRS, mr, nc, acc, pair, panel + 4 * NR + NR * kc, params, c, c_stride);
}

/* Edge tiles (and a fully-connected layer's single row) run a loop over as few rows as they have. */
static inline __attribute__((always_inline)) void gemm_rows(const size_t NV, size_t mr, size_t nc, size_t k,
                                                            const int8_t* a, size_t a_stride, const void* w, int8_t* c,
                                                            size_t c_stride, const lite_qs8_gemm_params* params) {
  if (mr > 4)
    gemm_tile(8, NV, mr, nc, k, a, a_stride, w, c, c_stride, params);
  else if (mr > 2)
    gemm_tile(4, NV, mr, nc, k, a, a_stride, w, c, c_stride, params);
  else if (mr == 2)
    gemm_tile(2, NV, mr, nc, k, a, a_stride, w, c, c_stride, params);
  else
    gemm_tile(1, NV, mr, nc, k, a, a_stride, w, c, c_stride, params);
}

void lite_qs8_gemm_ukernel_8x16c4_avx512vnni(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                             const void* w, int8_t* c, size_t c_stride,
                                             const lite_qs8_gemm_params* params) {
  gemm_rows(1, mr, nc, k, a, a_stride, w, c, c_stride, params);
}

void lite_qs8_gemm_ukernel_8x32c4_avx512vnni(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                             const void* w, int8_t* c, size_t c_stride,
                                             const lite_qs8_gemm_params* params) {
  gemm_rows(2, mr, nc, k, a, a_stride, w, c, c_stride, params);
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
