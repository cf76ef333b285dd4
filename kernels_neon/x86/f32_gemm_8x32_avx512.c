/* Packed fp32 GEMM microkernel, 8 rows x 32 columns, AVX-512F.
 * 16 zmm accumulators (of 32 registers); per k step 2 loads of B and 8 broadcasts feed 16 FMAs of
 * 16 lanes: twice the work per instruction of the AVX2 6x16 tile. Chosen for layers with more
 * than 16 output columns (see f32_gemm_config.c).
 * Edge tiles with fewer rows run the same loop for 4, 2 or 1 rows (FULLY_CONNECTED on one row,
 * layers of 49 pixels): each accumulator still sums bias, then k = 0, 1, ... in order, so the
 * result of a row does not depend on the variant (or thread split) that computed it. */
#include <immintrin.h>

#include "lite_kernels/gemm_f32_packed.h"

enum { MR = 8, NR = 32 };

/* The tile for ROWS rows (a compile-time constant after inlining: the arrays live in registers). */
static inline __attribute__((always_inline)) void gemm_rows(const size_t ROWS, size_t mr, size_t nc, size_t k,
                                                            const float* a, size_t a_stride, const float* w, float* c,
                                                            size_t c_stride, const lite_f32_minmax_params* params) {
  const float* rows[MR];
  for (size_t i = 0; i < ROWS; ++i) rows[i] = a + (i < mr ? i : mr - 1) * a_stride;
  __m512 acc[MR][2];
  acc[0][0] = _mm512_loadu_ps(w);
  acc[0][1] = _mm512_loadu_ps(w + 16);
  for (size_t i = 1; i < ROWS; ++i) {
    acc[i][0] = acc[0][0];
    acc[i][1] = acc[0][1];
  }
  w += NR;
  for (size_t p = 0; p < k; ++p) {
    const __m512 bl = _mm512_loadu_ps(w), bh = _mm512_loadu_ps(w + 16);
    w += NR;
    for (size_t i = 0; i < ROWS; ++i) {
      const __m512 x = _mm512_set1_ps(rows[i][p]);
      acc[i][0] = _mm512_fmadd_ps(x, bl, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(x, bh, acc[i][1]);
    }
  }
  const __m512 lo = _mm512_set1_ps(params->min), hi = _mm512_set1_ps(params->max);
  const __mmask16 mask_l = nc >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << nc) - 1u);
  const __mmask16 mask_h = nc >= 32 ? (__mmask16)0xFFFF : (nc <= 16 ? (__mmask16)0 : (__mmask16)((1u << (nc - 16)) - 1u));
  const __m512 sixth = _mm512_set1_ps(1.0f / 6.0f), half = _mm512_set1_ps(0.5f), zero = _mm512_setzero_ps(),
               one = _mm512_set1_ps(1.0f);
  const int hard_swish = params->hard_swish;
#pragma GCC unroll 8
  for (size_t i = 0; i < ROWS; ++i) { /* unrolled: acc stays in registers */
    if (i >= mr) break;
    float* out = c + i * c_stride;
    __m512 vl = _mm512_min_ps(_mm512_max_ps(acc[i][0], lo), hi);
    __m512 vh = _mm512_min_ps(_mm512_max_ps(acc[i][1], lo), hi);
    if (hard_swish) { /* x * clamp(x * (1/6) + 0.5, 0, 1): one FMA (a division per vector cost more than a k step) */
      vl = _mm512_mul_ps(vl, _mm512_min_ps(_mm512_max_ps(_mm512_fmadd_ps(vl, sixth, half), zero), one));
      vh = _mm512_mul_ps(vh, _mm512_min_ps(_mm512_max_ps(_mm512_fmadd_ps(vh, sixth, half), zero), one));
    }
    _mm512_mask_storeu_ps(out, mask_l, vl);
    _mm512_mask_storeu_ps(out + 16, mask_h, vh);
  }
}

void lite_f32_gemm_ukernel_8x32_avx512(size_t mr, size_t nc, size_t k, const float* a, size_t a_stride,
                                       const float* w, float* c, size_t c_stride, const lite_f32_minmax_params* params) {
  if (mr > 4)
    gemm_rows(8, mr, nc, k, a, a_stride, w, c, c_stride, params);
  else if (mr > 2)
    gemm_rows(4, mr, nc, k, a, a_stride, w, c, c_stride, params);
  else if (mr == 2)
    gemm_rows(2, mr, nc, k, a, a_stride, w, c, c_stride, params);
  else
    gemm_rows(1, mr, nc, k, a, a_stride, w, c, c_stride, params);
}
