/* AVX-512 VNNI int8 GEMM microkernel 8x24c4 over A rows made of runs (qs8_gemm_packed_runs.h): the
 * kernel of qs8_gemm_8x24c4_avx512vnni.c with the k loop split at run boundaries (runs are whole
 * k-groups of 4; the weights advance continuously across runs). Broadcast and epilogue:
 * qs8_gemm_avx512vnni_tile.h, so the bytes are that kernel's. */
#include <immintrin.h>

#include "lite_kernels/qs8_gemm_packed_runs.h"
#include "qs8_gemm_avx512vnni_tile.h"

/* The 8x24c4 layout of qs8_gemm_8x24c4_avx512vnni.c (gemm_tile_24): columns 0-15 one zmm per row, columns
 * 16-23 of rows 2q and 2q + 1 sharing one zmm (low / high 8 lanes). */
static inline __attribute__((always_inline)) void runs_tile_24(const size_t MR, size_t mr, size_t nc, size_t runs,
                                                               size_t run_bytes, const int8_t* const* a,
                                                               size_t a_stride, const void* w, int8_t* c,
                                                               size_t c_stride, const lite_qs8_gemm_params* params) {
  enum { NR = 24 };
  const size_t PAIRS = (MR + 1) / 2, kc = runs * run_bytes;
  const uint8_t* panel = (const uint8_t*)w;
  __m512i acc[8], pair[4];
  {
    const __m512i b0 = _mm512_loadu_si512(panel);
    const __m512i b1 = _mm512_broadcast_i64x4(_mm256_loadu_si256((const void*)(panel + 64)));
    for (size_t i = 0; i < 2 * PAIRS; ++i) acc[i] = b0;
    for (size_t q = 0; q < PAIRS; ++q) pair[q] = b1;
  }
  const uint8_t* wp = panel + 4 * NR;
  const __m512i sign = _mm512_set1_epi32((int)0x80808080u);
  for (size_t s = 0; s < runs; ++s) {
    const int8_t* rows[8];
    for (size_t i = 0; i < 2 * PAIRS; ++i) rows[i] = a[s] + (i < mr ? i : mr - 1) * a_stride;
    for (size_t p = 0; p < run_bytes; p += 4) {
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
  }
  qs8_vnni_store_tile_24(PAIRS, mr, nc, acc, pair, panel + 4 * NR + NR * kc, params, c, c_stride);
}

void lite_qs8_gemm_runs_ukernel_8x24c4_avx512vnni(size_t mr, size_t nc, size_t runs, size_t run_bytes,
                                                  const int8_t* const* a, size_t a_stride, const void* w, int8_t* c,
                                                  size_t c_stride, const lite_qs8_gemm_params* params) {
  if (mr > 4)
    runs_tile_24(8, mr, nc, runs, run_bytes, a, a_stride, w, c, c_stride, params);
  else if (mr > 2)
    runs_tile_24(4, mr, nc, runs, run_bytes, a, a_stride, w, c, c_stride, params);
  else
    runs_tile_24(2, mr, nc, runs, run_bytes, a, a_stride, w, c, c_stride, params);
}

