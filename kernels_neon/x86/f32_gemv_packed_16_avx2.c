/* GEMV over B packed in panels of 16 columns (the f32_gemm_6x16_avx2 packing), AVX2 + FMA: four
 * panels at once (8 independent accumulators, enough to hide the FMA latency), then the rest one by
 * one. Sums in the microkernel's order (f32_gemv_packed.h). */
#include <immintrin.h>
#include <string.h>

#include "lite_kernels/f32_gemv_packed.h"

enum { NR = 16, GROUP = 4 };

static inline __attribute__((always_inline)) void panels(const size_t COUNT, size_t nc_last, size_t k, const float* a,
                                                         const float* w, float* c) {
  const size_t stride = (k + 1) * NR;
  __m256 acc[GROUP][2];
  float total[GROUP][NR] = {{0}}; /* the finished k blocks' sum (zeroed: -Wmaybe-uninitialized) */
  for (size_t g = 0; g < COUNT; ++g) {
    acc[g][0] = _mm256_loadu_ps(w + g * stride); /* the first block starts at the bias */
    acc[g][1] = _mm256_loadu_ps(w + g * stride + 8);
  }
  const float* row = w + NR;
  for (size_t p0 = 0; p0 < k; p0 += LITE_F32_GEMM_KBLOCK) {
    const size_t end = k - p0 < LITE_F32_GEMM_KBLOCK ? k : p0 + LITE_F32_GEMM_KBLOCK;
    for (size_t p = p0; p < end; ++p, row += NR) {
      const __m256 x = _mm256_broadcast_ss(a + p);
      for (size_t g = 0; g < COUNT; ++g) {
        acc[g][0] = _mm256_fmadd_ps(x, _mm256_loadu_ps(row + g * stride), acc[g][0]);
        acc[g][1] = _mm256_fmadd_ps(x, _mm256_loadu_ps(row + g * stride + 8), acc[g][1]);
      }
    }
    if (end == k) break;
    for (size_t g = 0; g < COUNT; ++g)
      for (size_t h = 0; h < 2; ++h) {
        _mm256_storeu_ps(total[g] + 8 * h,
                         p0 == 0 ? acc[g][h] : _mm256_add_ps(_mm256_loadu_ps(total[g] + 8 * h), acc[g][h]));
        acc[g][h] = _mm256_setzero_ps();
      }
  }
  if (k > LITE_F32_GEMM_KBLOCK)
    for (size_t g = 0; g < COUNT; ++g)
      for (size_t h = 0; h < 2; ++h) acc[g][h] = _mm256_add_ps(_mm256_loadu_ps(total[g] + 8 * h), acc[g][h]);
  for (size_t g = 0; g < COUNT; ++g) {
    if (g + 1 < COUNT || nc_last == NR) {
      _mm256_storeu_ps(c + g * NR, acc[g][0]);
      _mm256_storeu_ps(c + g * NR + 8, acc[g][1]);
    } else {
      float tmp[NR];
      _mm256_storeu_ps(tmp, acc[g][0]);
      _mm256_storeu_ps(tmp + 8, acc[g][1]);
      memcpy(c + g * NR, tmp, nc_last * sizeof(float));
    }
  }
}

void lite_f32_gemv_packed_16_avx2(size_t n, size_t k, const float* a, const float* packed, float* c) {
  const size_t stride = (k + 1) * NR;
  size_t j = 0;
  for (; j + GROUP * NR <= n; j += GROUP * NR, packed += GROUP * stride) panels(GROUP, NR, k, a, packed, c + j);
  for (; j < n; j += NR, packed += stride) panels(1, n - j < NR ? n - j : NR, k, a, packed, c + j);
}
