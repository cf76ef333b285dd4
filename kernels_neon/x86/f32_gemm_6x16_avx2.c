/* Packed fp32 GEMM microkernel, 6 rows x 16 columns, AVX2 + FMA.
 * 12 ymm accumulators + 2 for the B row + 1 broadcast of A = 15 of 16 registers; per k step
 * 2 loads of B and 6 broadcasts feed 12 FMAs, enough independent chains to hide FMA latency
 * (4-5 cycles x 2 ports). */
#include <immintrin.h>
#include <string.h>

#include "lite_kernels/gemm_f32_packed.h"

enum { MR = 6, NR = 16 };

void lite_f32_gemm_ukernel_6x16_avx2(size_t mr, size_t nc, size_t k, const float* a, size_t a_stride, const float* w,
                                     float* c, size_t c_stride, const lite_f32_minmax_params* params) {
  const float* a0 = a;
  const float* a1 = mr > 1 ? a0 + a_stride : a0;
  const float* a2 = mr > 2 ? a1 + a_stride : a1;
  const float* a3 = mr > 3 ? a2 + a_stride : a2;
  const float* a4 = mr > 4 ? a3 + a_stride : a3;
  const float* a5 = mr > 5 ? a4 + a_stride : a4;
  __m256 c0l = _mm256_loadu_ps(w), c0h = _mm256_loadu_ps(w + 8);
  __m256 c1l = c0l, c1h = c0h, c2l = c0l, c2h = c0h, c3l = c0l, c3h = c0h, c4l = c0l, c4h = c0h, c5l = c0l,
         c5h = c0h;
  w += NR;
  for (size_t p = 0; p < k; ++p) {
    const __m256 bl = _mm256_loadu_ps(w), bh = _mm256_loadu_ps(w + 8);
    w += NR;
    __m256 x = _mm256_broadcast_ss(a0 + p);
    c0l = _mm256_fmadd_ps(x, bl, c0l);
    c0h = _mm256_fmadd_ps(x, bh, c0h);
    x = _mm256_broadcast_ss(a1 + p);
    c1l = _mm256_fmadd_ps(x, bl, c1l);
    c1h = _mm256_fmadd_ps(x, bh, c1h);
    x = _mm256_broadcast_ss(a2 + p);
    c2l = _mm256_fmadd_ps(x, bl, c2l);
    c2h = _mm256_fmadd_ps(x, bh, c2h);
    x = _mm256_broadcast_ss(a3 + p);
    c3l = _mm256_fmadd_ps(x, bl, c3l);
    c3h = _mm256_fmadd_ps(x, bh, c3h);
    x = _mm256_broadcast_ss(a4 + p);
    c4l = _mm256_fmadd_ps(x, bl, c4l);
    c4h = _mm256_fmadd_ps(x, bh, c4h);
    x = _mm256_broadcast_ss(a5 + p);
    c5l = _mm256_fmadd_ps(x, bl, c5l);
    c5h = _mm256_fmadd_ps(x, bh, c5h);
  }
  const __m256 lo = _mm256_set1_ps(params->min), hi = _mm256_set1_ps(params->max);
  const __m256 six = _mm256_set1_ps(6.0f), half = _mm256_set1_ps(0.5f), zero = _mm256_setzero_ps(),
               one = _mm256_set1_ps(1.0f);
  const int hard_swish = params->hard_swish;
  __m256 acc[MR][2] = {{c0l, c0h}, {c1l, c1h}, {c2l, c2h}, {c3l, c3h}, {c4l, c4h}, {c5l, c5h}};
  for (size_t i = 0; i < mr; ++i) {
    __m256 vl = _mm256_min_ps(_mm256_max_ps(acc[i][0], lo), hi);
    __m256 vh = _mm256_min_ps(_mm256_max_ps(acc[i][1], lo), hi);
    if (hard_swish) { /* x * clamp(x / 6 + 0.5, 0, 1), with the division of the reference */
      vl = _mm256_mul_ps(vl, _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(_mm256_div_ps(vl, six), half), zero), one));
      vh = _mm256_mul_ps(vh, _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(_mm256_div_ps(vh, six), half), zero), one));
    }
    float* out = c + i * c_stride;
    if (nc == NR) {
      _mm256_storeu_ps(out, vl);
      _mm256_storeu_ps(out + 8, vh);
    } else {
      float tmp[NR];
      _mm256_storeu_ps(tmp, vl);
      _mm256_storeu_ps(tmp + 8, vh);
      memcpy(out, tmp, nc * sizeof(float));
    }
  }
}
