/* Packed fp32 GEMM microkernel, 8 rows x 32 columns, AVX-512F.
 * 16 zmm accumulators (of 32 registers); per k step 2 loads of B and 8 broadcasts (folded into the
 * FMAs as embedded broadcasts) feed 16 FMAs of 16 lanes: twice the work per instruction of the
 * AVX2 6x16 tile. Chosen for layers with more than 16 output columns (see f32_gemm_config.c). */
#include <immintrin.h>

#include "lite_kernels/gemm_f32_packed.h"

enum { MR = 8, NR = 32 };

void lite_f32_gemm_ukernel_8x32_avx512(size_t mr, size_t nc, size_t k, const float* a, size_t a_stride,
                                       const float* w, float* c, size_t c_stride, const lite_f32_minmax_params* params) {
  const float* rows[MR];
  for (size_t i = 0; i < MR; ++i) rows[i] = a + (i < mr ? i : mr - 1) * a_stride;
  const float *a0 = rows[0], *a1 = rows[1], *a2 = rows[2], *a3 = rows[3], *a4 = rows[4], *a5 = rows[5],
              *a6 = rows[6], *a7 = rows[7];
  __m512 c0l = _mm512_loadu_ps(w), c0h = _mm512_loadu_ps(w + 16);
  __m512 c1l = c0l, c1h = c0h, c2l = c0l, c2h = c0h, c3l = c0l, c3h = c0h, c4l = c0l, c4h = c0h, c5l = c0l,
         c5h = c0h, c6l = c0l, c6h = c0h, c7l = c0l, c7h = c0h;
  w += NR;
  for (size_t p = 0; p < k; ++p) {
    const __m512 bl = _mm512_loadu_ps(w), bh = _mm512_loadu_ps(w + 16);
    w += NR;
    __m512 x = _mm512_set1_ps(a0[p]);
    c0l = _mm512_fmadd_ps(x, bl, c0l);
    c0h = _mm512_fmadd_ps(x, bh, c0h);
    x = _mm512_set1_ps(a1[p]);
    c1l = _mm512_fmadd_ps(x, bl, c1l);
    c1h = _mm512_fmadd_ps(x, bh, c1h);
    x = _mm512_set1_ps(a2[p]);
    c2l = _mm512_fmadd_ps(x, bl, c2l);
    c2h = _mm512_fmadd_ps(x, bh, c2h);
    x = _mm512_set1_ps(a3[p]);
    c3l = _mm512_fmadd_ps(x, bl, c3l);
    c3h = _mm512_fmadd_ps(x, bh, c3h);
    x = _mm512_set1_ps(a4[p]);
    c4l = _mm512_fmadd_ps(x, bl, c4l);
    c4h = _mm512_fmadd_ps(x, bh, c4h);
    x = _mm512_set1_ps(a5[p]);
    c5l = _mm512_fmadd_ps(x, bl, c5l);
    c5h = _mm512_fmadd_ps(x, bh, c5h);
    x = _mm512_set1_ps(a6[p]);
    c6l = _mm512_fmadd_ps(x, bl, c6l);
    c6h = _mm512_fmadd_ps(x, bh, c6h);
    x = _mm512_set1_ps(a7[p]);
    c7l = _mm512_fmadd_ps(x, bl, c7l);
    c7h = _mm512_fmadd_ps(x, bh, c7h);
  }
  const __m512 lo = _mm512_set1_ps(params->min), hi = _mm512_set1_ps(params->max);
  const __m512 acc[MR][2] = {{c0l, c0h}, {c1l, c1h}, {c2l, c2h}, {c3l, c3h},
                             {c4l, c4h}, {c5l, c5h}, {c6l, c6h}, {c7l, c7h}};
  const __mmask16 mask_l = nc >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << nc) - 1u);
  const __mmask16 mask_h = nc >= 32 ? (__mmask16)0xFFFF : (nc <= 16 ? (__mmask16)0 : (__mmask16)((1u << (nc - 16)) - 1u));
  const __m512 six = _mm512_set1_ps(6.0f), half = _mm512_set1_ps(0.5f), zero = _mm512_setzero_ps(),
               one = _mm512_set1_ps(1.0f);
  const int hard_swish = params->hard_swish;
  for (size_t i = 0; i < mr; ++i) {
    float* out = c + i * c_stride;
    __m512 vl = _mm512_min_ps(_mm512_max_ps(acc[i][0], lo), hi);
    __m512 vh = _mm512_min_ps(_mm512_max_ps(acc[i][1], lo), hi);
    if (hard_swish) { /* x * clamp(x / 6 + 0.5, 0, 1), with the division of the reference */
      vl = _mm512_mul_ps(vl, _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(_mm512_div_ps(vl, six), half), zero), one));
      vh = _mm512_mul_ps(vh, _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(_mm512_div_ps(vh, six), half), zero), one));
    }
    _mm512_mask_storeu_ps(out, mask_l, vl);
    _mm512_mask_storeu_ps(out + 16, mask_h, vh);
  }
}
