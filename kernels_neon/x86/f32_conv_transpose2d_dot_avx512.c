/* Dot-product CONV_TRANSPOSE_2D (f32_conv_transpose2d_dot.h), AVX-512F: 16 input channels per vector,
 * the last block masked (its padded weights are zeros, its masked inputs read as zeros).
 * Four input pixels at a time: their 4 x 4 accumulators (lane sums over the channel blocks; columns
 * t >= T stay zero) are reduced together by one transpose-and-add tree into a single vector of the
 * 16 dot products, about a quarter of the instructions of a lane reduction per dot product (which
 * dominated: the multiplies are only T * ceil(in_c / 16) FMAs per pixel). The last pixels of a row
 * (width % 4) run the same code with the last pixel repeated (their results are not stored). Every
 * output value goes through the same operations wherever it is, so any split of the rows gives
 * bit-identical results. */
#include <immintrin.h>

#include "lite_kernels/f32_conv_transpose2d_dot.h"

enum { BLOCK = LITE_CONV_TRANSPOSE2D_DOT_CHANNEL_BLOCK, PIXELS = 4 };

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Sums of pairs: within each 128-bit lane, [a0+a2, b0+b2, a1+a3, b1+b3]. */
ALWAYS_INLINE __m512 pair_ps(__m512 a, __m512 b) {
  return _mm512_add_ps(_mm512_unpacklo_ps(a, b), _mm512_unpackhi_ps(a, b));
}

/* The same on 64-bit halves: within each 128-bit lane, the four partial sums of four vectors. */
ALWAYS_INLINE __m512 pair_pd(__m512 a, __m512 b) {
  const __m512d x = _mm512_castps_pd(a), y = _mm512_castps_pd(b);
  return _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(x, y)), _mm512_castpd_ps(_mm512_unpackhi_pd(x, y)));
}

/* Lane i of the result = sum of the 16 lanes of v[i]. */
ALWAYS_INLINE __m512 reduce16(const __m512* v) {
  __m512 w[8], x[4];
  for (int i = 0; i < 8; ++i) w[i] = pair_ps(v[2 * i], v[2 * i + 1]);
  for (int i = 0; i < 4; ++i) x[i] = pair_pd(w[2 * i], w[2 * i + 1]);
  /* x[j]: 128-bit lane L holds the lane-L partials of v[4j .. 4j+3]; add the lanes pairwise twice. */
  const __m512 z0 = _mm512_add_ps(_mm512_shuffle_f32x4(x[0], x[1], 0x88), _mm512_shuffle_f32x4(x[0], x[1], 0xDD));
  const __m512 z1 = _mm512_add_ps(_mm512_shuffle_f32x4(x[2], x[3], 0x88), _mm512_shuffle_f32x4(x[2], x[3], 0xDD));
  return _mm512_add_ps(_mm512_shuffle_f32x4(z0, z1, 0x88), _mm512_shuffle_f32x4(z0, z1, 0xDD));
}

/* One input row for T (a compile-time constant after inlining) outputs per pixel. */
ALWAYS_INLINE void dot_row(const size_t T, const lite_conv_transpose2d_params* p, const float* packed, const float* x,
                           float* y) {
  const size_t c = p->in_c, pc = (c + BLOCK - 1) / BLOCK * BLOCK, blocks = pc / BLOCK;
  const size_t per_pixel = p->kernel_w * p->out_c, row_stride = p->out_w * p->out_c, width = p->in_w;
  const __mmask16 last = c % BLOCK == 0 ? (__mmask16)0xFFFF : (__mmask16)((1u << (c % BLOCK)) - 1u);
  const float* bias = packed + T * pc;
  size_t offset[4]; /* output position of column t relative to the pixel's first value */
  for (size_t t = 0; t < T; ++t) offset[t] = (t / per_pixel) * row_stride + t % per_pixel;
  float b4[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (size_t t = 0; t < T; ++t) b4[t] = bias[t];
  const __m512 bias16 = _mm512_broadcast_f32x4(_mm_loadu_ps(b4));
  /* The DB head (2x2 kernel, one channel): output row 0 takes columns 0, 1 of each pixel, row 1 columns 2, 3. */
  const int head_2x2 = T == 4 && p->kernel_h == 2 && per_pixel == 2;
  const __m512i rows_order = _mm512_setr_epi32(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
  for (size_t iw = 0; iw < width; iw += PIXELS) {
    const size_t count = width - iw < PIXELS ? width - iw : PIXELS;
    __m512 acc[16];
    for (size_t i = 0; i < 16; ++i) acc[i] = _mm512_setzero_ps();
    const float* xp[PIXELS];
    for (size_t q = 0; q < PIXELS; ++q) xp[q] = x + (iw + (q < count ? q : count - 1)) * c;
    for (size_t b = 0; b < blocks; ++b) { /* block-outer: the pixel and column loops unroll, acc stays in registers */
      const __mmask16 mask = b + 1 < blocks ? (__mmask16)0xFFFF : last;
      __m512 wv[4];
      for (size_t t = 0; t < T; ++t) wv[t] = _mm512_loadu_ps(packed + t * pc + b * BLOCK);
      for (size_t q = 0; q < PIXELS; ++q) {
        const __m512 xv = _mm512_maskz_loadu_ps(mask, xp[q] + b * BLOCK);
        for (size_t t = 0; t < T; ++t) acc[q * 4 + t] = _mm512_fmadd_ps(xv, wv[t], acc[q * 4 + t]);
      }
    }
    /* lane 4q + t: pixel iw + q, column t */
    const __m512 sums = _mm512_add_ps(reduce16(acc), bias16);
    float* out = y + iw * per_pixel;
    if (head_2x2 && count == PIXELS) {
      const __m512 r = _mm512_permutexvar_ps(rows_order, sums);
      _mm256_storeu_ps(out, _mm512_castps512_ps256(r));
      _mm256_storeu_ps(out + row_stride, _mm512_extractf32x8_ps(r, 1));
      continue;
    }
    float s[16];
    _mm512_storeu_ps(s, sums);
    for (size_t q = 0; q < count; ++q)
      for (size_t t = 0; t < T; ++t) out[q * per_pixel + offset[t]] = s[4 * q + t];
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
