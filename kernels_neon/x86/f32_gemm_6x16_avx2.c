/* Packed fp32 GEMM microkernel, 6 rows x 16 columns, AVX2 + FMA.
 * 12 ymm accumulators + 2 for the B row + 1 broadcast of A = 15 of 16 registers; per k step
 * 2 loads of B and 6 broadcasts feed 12 FMAs, enough independent chains to hide FMA latency
 * (4-5 cycles x 2 ports).
 * Edge tiles with fewer rows run the same loop for 4, 2 or 1 rows: each accumulator still sums
 * bias, then k = 0, 1, ... in order, so a row's result does not depend on the variant. */
#include <immintrin.h>
#include <string.h>

#include "lite_kernels/f32_gemm_packed.h"

enum { MR = 6, NR = 16 };

/* The tile for ROWS rows (a compile-time constant after inlining: the arrays live in registers). */
static inline __attribute__((always_inline)) void gemm_rows(const size_t ROWS, size_t mr, size_t nc, size_t k,
                                                            const float* a, size_t a_stride, const float* w, float* c,
                                                            size_t c_stride, const lite_f32_minmax_params* params) {
  const float* rows[MR];
  for (size_t i = 0; i < ROWS; ++i) rows[i] = a + (i < mr ? i : mr - 1) * a_stride;
  __m256 acc[MR][2];
  acc[0][0] = _mm256_loadu_ps(w);
  acc[0][1] = _mm256_loadu_ps(w + 8);
  for (size_t i = 1; i < ROWS; ++i) {
    acc[i][0] = acc[0][0];
    acc[i][1] = acc[0][1];
  }
  w += NR;
  for (size_t p = 0; p < k; ++p) {
    const __m256 bl = _mm256_loadu_ps(w), bh = _mm256_loadu_ps(w + 8);
    w += NR;
    for (size_t i = 0; i < ROWS; ++i) {
      const __m256 x = _mm256_broadcast_ss(rows[i] + p);
      acc[i][0] = _mm256_fmadd_ps(x, bl, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(x, bh, acc[i][1]);
    }
  }
  const __m256 lo = _mm256_set1_ps(params->min), hi = _mm256_set1_ps(params->max);
  const int hard_swish = params->hard_swish;
#pragma GCC unroll 6
  for (size_t i = 0; i < ROWS; ++i) { /* unrolled: acc stays in registers */
    if (i >= mr) break;
    __m256 vl = _mm256_min_ps(hi, _mm256_max_ps(lo, acc[i][0]));  /* NaN stays */
    __m256 vh = _mm256_min_ps(hi, _mm256_max_ps(lo, acc[i][1]));
    if (hard_swish) { /* x * clamp(x * (1/6) + 0.5, 0, 1): one FMA (a division per vector cost more than a k step) */
      const __m256 sixth = _mm256_set1_ps(1.0f / 6.0f), half = _mm256_set1_ps(0.5f), zero = _mm256_setzero_ps(),
                   one = _mm256_set1_ps(1.0f);
      vl = _mm256_mul_ps(vl, _mm256_min_ps(one, _mm256_max_ps(zero, _mm256_fmadd_ps(vl, sixth, half))));
      vh = _mm256_mul_ps(vh, _mm256_min_ps(one, _mm256_max_ps(zero, _mm256_fmadd_ps(vh, sixth, half))));
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

/* The last panel of a matrix whose width is not a multiple of 16 (24, 40, 72 channels...) when it
 * has at most 8 columns: only the low 8 columns of each packed row, one accumulator per row (half the
 * FMAs of gemm_rows; 6 chains are enough on 8 columns). The same bias-then-k order: the same sums. */
static inline __attribute__((always_inline)) void gemm_rows_half(const size_t ROWS, size_t mr, size_t nc, size_t k,
                                                                 const float* a, size_t a_stride, const float* w,
                                                                 float* c, size_t c_stride,
                                                                 const lite_f32_minmax_params* params) {
  const float* rows[MR];
  for (size_t i = 0; i < ROWS; ++i) rows[i] = a + (i < mr ? i : mr - 1) * a_stride;
  __m256 acc[MR];
  acc[0] = _mm256_loadu_ps(w);
  for (size_t i = 1; i < ROWS; ++i) acc[i] = acc[0];
  w += NR;
  for (size_t p = 0; p < k; ++p) {
    const __m256 b = _mm256_loadu_ps(w);
    w += NR;
    for (size_t i = 0; i < ROWS; ++i) acc[i] = _mm256_fmadd_ps(_mm256_broadcast_ss(rows[i] + p), b, acc[i]);
  }
  const __m256 lo = _mm256_set1_ps(params->min), hi = _mm256_set1_ps(params->max);
#pragma GCC unroll 6
  for (size_t i = 0; i < ROWS; ++i) {
    if (i >= mr) break;
    __m256 v = _mm256_min_ps(hi, _mm256_max_ps(lo, acc[i]));
    if (params->hard_swish) {
      const __m256 sixth = _mm256_set1_ps(1.0f / 6.0f), half = _mm256_set1_ps(0.5f), zero = _mm256_setzero_ps(),
                   one = _mm256_set1_ps(1.0f);
      v = _mm256_mul_ps(v, _mm256_min_ps(one, _mm256_max_ps(zero, _mm256_fmadd_ps(v, sixth, half))));
    }
    float* out = c + i * c_stride;
    if (nc == 8) {
      _mm256_storeu_ps(out, v);
    } else {
      float tmp[8];
      _mm256_storeu_ps(tmp, v);
      memcpy(out, tmp, nc * sizeof(float));
    }
  }
}

void lite_f32_gemm_ukernel_6x16_avx2(size_t mr, size_t nc, size_t k, const float* a, size_t a_stride, const float* w,
                                     float* c, size_t c_stride, const lite_f32_minmax_params* params) {
  if (nc <= 8) {
    if (mr > 4)
      gemm_rows_half(6, mr, nc, k, a, a_stride, w, c, c_stride, params);
    else if (mr > 2)
      gemm_rows_half(4, mr, nc, k, a, a_stride, w, c, c_stride, params);
    else
      gemm_rows_half(2, mr, nc, k, a, a_stride, w, c, c_stride, params);
    return;
  }
  if (mr > 4)
    gemm_rows(6, mr, nc, k, a, a_stride, w, c, c_stride, params);
  else if (mr > 2)
    gemm_rows(4, mr, nc, k, a, a_stride, w, c, c_stride, params);
  else if (mr == 2)
    gemm_rows(2, mr, nc, k, a, a_stride, w, c, c_stride, params);
  else
    gemm_rows(1, mr, nc, k, a, a_stride, w, c, c_stride, params);
}
