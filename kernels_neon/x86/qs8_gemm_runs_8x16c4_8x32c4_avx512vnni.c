/* AVX-512 VNNI int8 GEMM microkernels 8x16c4 and 8x32c4 over A rows made of runs (qs8_gemm_packed_runs.h):
 * the kernels of qs8_gemm_8x16c4_8x32c4_avx512vnni.c with the k loop split at run boundaries. Runs are
 * whole k-groups of 4 (no tail); the weights advance continuously across runs. The broadcast and the
 * epilogue are qs8_gemm_avx512vnni_tile.h's, shared with those kernels: same bytes. */
#include <immintrin.h>

#include "lite_kernels/qs8_gemm_packed_runs.h"
#include "qs8_gemm_avx512vnni_tile.h"

static inline __attribute__((always_inline)) void runs_tile(const size_t MR, const size_t NV, size_t mr, size_t nc,
                                                            size_t runs, size_t run_bytes, const int8_t* const* a,
                                                            size_t a_stride, const void* w, int8_t* c,
                                                            size_t c_stride, const lite_qs8_gemm_params* params) {
  const size_t NR = 16 * NV, kc = runs * run_bytes;
  const uint8_t* panel = (const uint8_t*)w;
  __m512i acc[8][2];
  for (size_t v = 0; v < NV; ++v) {
    const __m512i b = _mm512_loadu_si512(panel + 64 * v);
    for (size_t i = 0; i < MR; ++i) acc[i][v] = b;
  }
  const uint8_t* wp = panel + 4 * NR;
  const __m512i sign = _mm512_set1_epi32((int)0x80808080u);
  for (size_t s = 0; s < runs; ++s) {
    const int8_t* rows[8];
    for (size_t i = 0; i < MR; ++i) rows[i] = a[s] + (i < mr ? i : mr - 1) * a_stride;
    for (size_t p = 0; p < run_bytes; p += 4) {
      const __m512i w0 = _mm512_loadu_si512(wp);
      const __m512i w1 = NV > 1 ? _mm512_loadu_si512(wp + 64) : w0;
      wp += 4 * NR;
      for (size_t i = 0; i < MR; ++i) {
        const __m512i x = qs8_vnni_broadcast_group(rows[i] + p, sign);
        acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], x, w0);
        if (NV > 1) acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], x, w1);
      }
    }
  }
  qs8_vnni_store_tile(NV, mr, nc, acc, panel + 4 * NR + NR * kc, params, c, c_stride);
}

static inline __attribute__((always_inline)) void runs_rows(const size_t NV, size_t mr, size_t nc, size_t runs,
                                                            size_t run_bytes, const int8_t* const* a, size_t a_stride,
                                                            const void* w, int8_t* c, size_t c_stride,
                                                            const lite_qs8_gemm_params* params) {
  if (mr > 4)
    runs_tile(8, NV, mr, nc, runs, run_bytes, a, a_stride, w, c, c_stride, params);
  else if (mr > 2)
    runs_tile(4, NV, mr, nc, runs, run_bytes, a, a_stride, w, c, c_stride, params);
  else if (mr == 2)
    runs_tile(2, NV, mr, nc, runs, run_bytes, a, a_stride, w, c, c_stride, params);
  else
    runs_tile(1, NV, mr, nc, runs, run_bytes, a, a_stride, w, c, c_stride, params);
}

void lite_qs8_gemm_runs_ukernel_8x16c4_avx512vnni(size_t mr, size_t nc, size_t runs, size_t run_bytes,
                                                  const int8_t* const* a, size_t a_stride, const void* w, int8_t* c,
                                                  size_t c_stride, const lite_qs8_gemm_params* params) {
  runs_rows(1, mr, nc, runs, run_bytes, a, a_stride, w, c, c_stride, params);
}

void lite_qs8_gemm_runs_ukernel_8x32c4_avx512vnni(size_t mr, size_t nc, size_t runs, size_t run_bytes,
                                                  const int8_t* const* a, size_t a_stride, const void* w, int8_t* c,
                                                  size_t c_stride, const lite_qs8_gemm_params* params) {
  runs_rows(2, mr, nc, runs, run_bytes, a, a_stride, w, c, c_stride, params);
}
