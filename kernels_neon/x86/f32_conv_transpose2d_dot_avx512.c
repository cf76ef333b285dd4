/* Dot-product CONV_TRANSPOSE_2D (conv_transpose2d_dot.h), AVX-512F: 16 input channels per vector,
 * the last block masked (its padded weights are zeros, its masked inputs read as zeros).
 * Per input pixel, T <= 4 accumulators sum their channel blocks lane by lane; four dot products are
 * then reduced together (halves, quarters, then horizontal adds into one vector of four sums), which
 * costs fewer instructions than four separate lane reductions. */
#include <immintrin.h>

#include "lite_kernels/conv_transpose2d_dot.h"

enum { BLOCK = LITE_CONV_TRANSPOSE2D_DOT_CHANNEL_BLOCK };

static inline __m128 quarter_sum(__m512 v) {
  const __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
  return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}

/* One input row for T (a compile-time constant after inlining) outputs per pixel. */
static inline __attribute__((always_inline)) void dot_row(const size_t T, const lite_conv_transpose2d_params* p,
                                                          const float* packed, const float* x, float* y) {
  const size_t c = p->in_c, pc = (c + BLOCK - 1) / BLOCK * BLOCK, blocks = pc / BLOCK;
  const size_t per_row = p->kernel_w * p->out_c, row_stride = p->out_w * p->out_c;
  const __mmask16 last = c % BLOCK == 0 ? (__mmask16)0xFFFF : (__mmask16)((1u << (c % BLOCK)) - 1u);
  const float* bias = packed + T * pc;
  size_t offset[4]; /* output position of column t relative to the pixel's first value */
  for (size_t t = 0; t < T; ++t) offset[t] = (t / per_row) * row_stride + t % per_row;
  const __m128 bias4 = _mm_setr_ps(bias[0], T > 1 ? bias[1] : 0.0f, T > 2 ? bias[2] : 0.0f, T > 3 ? bias[3] : 0.0f);
  for (size_t iw = 0; iw < p->in_w; ++iw, x += c) {
    __m512 acc[4];
    for (size_t t = 0; t < T; ++t) acc[t] = _mm512_setzero_ps();
    for (size_t b = 0; b < blocks; ++b) {
      const __m512 xv = _mm512_maskz_loadu_ps(b + 1 < blocks ? (__mmask16)0xFFFF : last, x + b * BLOCK);
      for (size_t t = 0; t < T; ++t) acc[t] = _mm512_fmadd_ps(xv, _mm512_loadu_ps(packed + t * pc + b * BLOCK), acc[t]);
    }
    __m128 q[4];
    for (size_t t = 0; t < 4; ++t) q[t] = t < T ? quarter_sum(acc[t]) : _mm_setzero_ps();
    const __m128 sums = _mm_add_ps(_mm_hadd_ps(_mm_hadd_ps(q[0], q[1]), _mm_hadd_ps(q[2], q[3])), bias4);
    float s[4];
    _mm_storeu_ps(s, sums);
    float* out = y + iw * per_row;
    for (size_t t = 0; t < T; ++t) out[offset[t]] = s[t];
  }
}

void lite_f32_conv_transpose2d_dot_avx512(const lite_conv_transpose2d_params* params, const float* packed,
                                          const float* x_row, float* y_rows) {
  switch (params->kernel_h * params->kernel_w * params->out_c) {
    case 1: dot_row(1, params, packed, x_row, y_rows); break;
    case 2: dot_row(2, params, packed, x_row, y_rows); break;
    case 3: dot_row(3, params, packed, x_row, y_rows); break;
    default: dot_row(4, params, packed, x_row, y_rows); break;
  }
}
