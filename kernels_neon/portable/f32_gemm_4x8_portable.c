/* Portable C microkernel of the packed fp32 GEMM (4 rows x 8 columns): the fallback on CPUs
 * without a SIMD variant, with the same packing contract as the SIMD ones (f32_gemm_packed.h).
 * The j loop over a fixed 8 columns vectorizes with the baseline ISA of the target. */
#include "lite_kernels/f32_gemm_packed.h"

enum { MR = 4, NR = 8 };

void lite_f32_gemm_ukernel_4x8_portable(size_t mr, size_t nc, size_t k, const float* a, size_t a_stride,
                                        const float* w, float* c, size_t c_stride, const lite_f32_minmax_params* params) {
  float acc[MR][NR];
  for (size_t i = 0; i < MR; ++i)
    for (size_t j = 0; j < NR; ++j) acc[i][j] = w[j];
  const float* restrict wk = w + NR;
  /* Rows past mr repeat the last valid row (their results are dropped). */
  const float* rows[MR];
  for (size_t i = 0; i < MR; ++i) rows[i] = a + (i < mr ? i : mr - 1) * a_stride;
  for (size_t p = 0; p < k; ++p, wk += NR) {
    for (size_t i = 0; i < MR; ++i) {
      const float x = rows[i][p];
      for (size_t j = 0; j < NR; ++j) acc[i][j] += x * wk[j];
    }
  }
  const float lo = params->min, hi = params->max;
  for (size_t i = 0; i < mr; ++i) {
    float* restrict out = c + i * c_stride;
    for (size_t j = 0; j < nc; ++j) {
      float v = acc[i][j];
      v = v < lo ? lo : v;
      v = v > hi ? hi : v;
      if (params->hard_swish) {
        float g = v / 6.0f + 0.5f;
        g = g < 0.0f ? 0.0f : g;
        v = v * (g > 1.0f ? 1.0f : g);
      }
      out[j] = v;
    }
  }
}
