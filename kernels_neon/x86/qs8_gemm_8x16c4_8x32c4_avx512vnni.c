/* AVX-512 VNNI int8 GEMM microkernels 8x16c4 and 8x32c4 (qs8_gemm_packed.h): KR 4, A_OFFSET 128; one
 * body, NR = 16 * NV columns (one or two zmm of int32 per row).
 *
 * vpdpbusd multiplies unsigned bytes by signed bytes, so each broadcast group of 4 A bytes is
 * flipped to u8 (a ^ 0x80 = a + 128); the pack folded -128 * sum(W) into the bias. Every row of the
 * tile is computed (rows past mr re-read row mr - 1) and only mr x nc is stored. The epilogue is the
 * exact 64-bit requantization of qs8_requantize_avx512.h, narrowed with vpmovdb
 * (qs8_gemm_avx512vnni_tile.h). The 24-column tile is qs8_gemm_8x24c4_avx512vnni.c. */
#include <immintrin.h>

#include "lite_kernels/qs8_gemm_packed.h"
#include "qs8_gemm_avx512vnni_tile.h"

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
      const __m512i x = qs8_vnni_broadcast_tail(rows[i] + p, k - p);
      acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], x, w0);
      if (NV > 1) acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], x, w1);
    }
  }
  qs8_vnni_store_tile(NV, mr, nc, acc, panel + 4 * NR + NR * kc, params, c, c_stride);
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

