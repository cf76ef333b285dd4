/* GEMV over B packed in panels of 16 columns (the f32_gemm_6x16_aarch64_neonfma packing), NEON FMA:
 * four panels at once (16 independent accumulators), then the rest one by one. Sums in the
 * microkernel's order (f32_gemv_packed.h): bias, then k = 0, 1, ... with fused multiply-adds. */
#include <arm_neon.h>
#include <string.h>

#include "lite_kernels/f32_gemv_packed.h"

enum { NR = 16, GROUP = 4 };

static inline __attribute__((always_inline)) void panels(const size_t COUNT, size_t nc_last, size_t k, const float* a,
                                                         const float* w, float* c) {
  const size_t stride = (k + 1) * NR;
  float32x4_t acc[GROUP][4];
  for (size_t g = 0; g < COUNT; ++g)
    for (size_t v = 0; v < 4; ++v) acc[g][v] = vld1q_f32(w + g * stride + 4 * v);
  const float* row = w + NR;
  for (size_t p = 0; p < k; ++p, row += NR) {
    const float32x4_t x = vld1q_dup_f32(a + p);
    for (size_t g = 0; g < COUNT; ++g)
      for (size_t v = 0; v < 4; ++v) acc[g][v] = vfmaq_f32(acc[g][v], x, vld1q_f32(row + g * stride + 4 * v));
  }
  for (size_t g = 0; g < COUNT; ++g) {
    float tmp[NR];
    float* out = (g + 1 < COUNT || nc_last == NR) ? c + g * NR : tmp;
    for (size_t v = 0; v < 4; ++v) vst1q_f32(out + 4 * v, acc[g][v]);
    if (out == tmp) memcpy(c + g * NR, tmp, nc_last * sizeof(float));
  }
}

void lite_f32_gemv_packed_16_aarch64_neonfma(size_t n, size_t k, const float* a, const float* packed, float* c) {
  const size_t stride = (k + 1) * NR;
  size_t j = 0;
  for (; j + GROUP * NR <= n; j += GROUP * NR, packed += GROUP * stride) panels(GROUP, NR, k, a, packed, c + j);
  for (; j < n; j += NR, packed += stride) panels(1, n - j < NR ? n - j : NR, k, a, packed, c + j);
}
