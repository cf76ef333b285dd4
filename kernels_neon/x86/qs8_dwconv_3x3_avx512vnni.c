/* AVX-512 VNNI int8 depthwise 3x3 convolution with stride 1 or 2 along W (qs8_dwconv.h), 32 channels
 * per step. Along an output row, input column j (widened to int16) is interleaved with column j + 1
 * once (vpunpck{l,h}wd) and that pair serves two output pixels: stride 1, as taps (kw0, kw1) of the
 * pixel whose window starts at j and (none, kw2) of the one starting at j - 1; stride 2, as (kw0, kw1)
 * of the window starting at j and (kw2, none) of the one at j - 2 (the pack ordered the weight pairs
 * that way: lite_qs8_dwconv_pair_slots).
 * vpdpwssd adds both int16 products to the int32 sums in one instruction (exact: |x * w| <= 2^14).
 * Padded rows and columns read the packed zero-point row (real 0). */
#include <immintrin.h>
#include <stddef.h>

#include "lite_kernels/qs8_dwconv.h"
#include "qs8_dwconv_channels_avx512.h"
#include "qs8_requantize_avx512.h"

enum { BLOCK = 32, PAIRS = 6 };


static inline __attribute__((always_inline)) void dwconv_3x3(const size_t S, const lite_conv2d_params* p,
                                                              const void* packed, const lite_qs8_gemm_params* params,
                                                              const int8_t* input, int8_t* output, size_t row_begin,
                                                              size_t row_end) {
  const size_t c = p->out_c, blocks = (c + BLOCK - 1) / BLOCK, block_bytes = BLOCK * 12 + PAIRS * BLOCK * 4;
  const int8_t* zero_row = (const int8_t*)packed + blocks * block_bytes;
  const int32_t zp_out = params->output_zero_point;
  const __m512i lo = _mm512_set1_epi64((int64_t)params->act_min - zp_out);
  const __m512i hi = _mm512_set1_epi64((int64_t)params->act_max - zp_out);
  const __m512i zp = _mm512_set1_epi32(zp_out);
  const __m512i lo32 = _mm512_set1_epi32(params->act_min), hi32 = _mm512_set1_epi32(params->act_max);
  const int full_range = params->act_min == -128 && params->act_max == 127;
  const ptrdiff_t in_w = (ptrdiff_t)p->in_w, pad_left = (ptrdiff_t)p->pad_left;
  for (size_t row = row_begin; row < row_end; ++row) {
    const size_t b = row / p->out_h, oh = row % p->out_h;
    const int8_t* rows[3]; /* kernel row r's input row at channel 0, or NULL when it is padding */
    for (size_t r = 0; r < 3; ++r) {
      const size_t ih_padded = oh * p->stride_h + r * p->dilation_h;
      rows[r] = ih_padded >= p->pad_top && ih_padded - p->pad_top < p->in_h
                    ? input + (b * p->in_h + (ih_padded - p->pad_top)) * p->in_w * c
                    : NULL;
    }
    int8_t* out_row = output + (b * p->out_h + oh) * p->out_w * c;
    for (size_t blk = 0; blk < blocks; ++blk) {
      const size_t c0 = blk * BLOCK, cols = c - c0 < BLOCK ? c - c0 : BLOCK;
      const __mmask32 mask = cols == BLOCK ? (__mmask32)0xFFFFFFFFu : (__mmask32)((1u << cols) - 1u);
      const uint8_t* block = (const uint8_t*)packed + blk * block_bytes;
      const uint8_t* w = block + BLOCK * 4;
      const uint8_t* requant = w + PAIRS * BLOCK * 4;
      lite_qs8_requant_avx512 r_lo = lite_qs8_requant_avx512_load_used(requant, requant + BLOCK * 4,
                                                                                lite_qs8_dw_used_lanes(cols, 0));
      lite_qs8_requant_avx512 r_hi = lite_qs8_requant_avx512_load_used(
          requant + 64, requant + BLOCK * 4 + 64, lite_qs8_dw_used_lanes(cols, 1));
      lite_qs8_requant_avx512_set_zp(&r_lo, zp);
      lite_qs8_requant_avx512_set_zp(&r_hi, zp);
      const int narrow = r_lo.narrow && r_hi.narrow;
      const __m512i bias_lo = _mm512_loadu_si512(block), bias_hi = _mm512_loadu_si512(block + 64);
      /* per kernel row: pairs (kw0, kw1) and (none, kw2) (stride 1) or (kw2, none) (stride 2) */
      __m512i w01_lo[3], w01_hi[3], w2_lo[3], w2_hi[3];
      for (size_t r = 0; r < 3; ++r) {
        w01_lo[r] = _mm512_loadu_si512(w + (2 * r) * BLOCK * 4);
        w01_hi[r] = _mm512_loadu_si512(w + (2 * r) * BLOCK * 4 + 64);
        w2_lo[r] = _mm512_loadu_si512(w + (2 * r + 1) * BLOCK * 4);
        w2_hi[r] = _mm512_loadu_si512(w + (2 * r + 1) * BLOCK * 4 + 64);
      }
      const __m512i zero_column = lite_qs8_dw_load_channels(zero_row + c0, cols, mask);
      /* column j of kernel row r, widened; the zero point outside the input */
#define COLUMN(r, j)                                                                                                 \
  (rows[r] != NULL && (j) >= 0 && (j) < in_w ? lite_qs8_dw_load_channels(rows[r] + (size_t)(j) * c + c0, cols, mask) \
                                             : zero_column)
      __m512i next[3], pair_lo[3], pair_hi[3]; /* column j0 + 1 and the pair (j0, j0 + 1) per kernel row */
      const ptrdiff_t j0 = -pad_left;
      for (size_t r = 0; r < 3; ++r) {
        const __m512i first = COLUMN(r, j0);
        next[r] = COLUMN(r, j0 + 1);
        pair_lo[r] = _mm512_unpacklo_epi16(first, next[r]);
        pair_hi[r] = _mm512_unpackhi_epi16(first, next[r]);
      }
      for (size_t ow = 0; ow < p->out_w; ++ow) {
        /* the window starts at column S * ow - pad_left; the new pair starts S columns later */
        const ptrdiff_t j = (ptrdiff_t)(S * ow) - pad_left + (ptrdiff_t)S;
        __m512i acc_lo = bias_lo, acc_hi = bias_hi;
        for (size_t r = 0; r < 3; ++r) {
          const __m512i first = S == 1 ? next[r] : COLUMN(r, j);
          const __m512i second = COLUMN(r, j + 1);
          const __m512i next_lo = _mm512_unpacklo_epi16(first, second);
          const __m512i next_hi = _mm512_unpackhi_epi16(first, second);
          acc_lo = _mm512_dpwssd_epi32(acc_lo, pair_lo[r], w01_lo[r]);
          acc_hi = _mm512_dpwssd_epi32(acc_hi, pair_hi[r], w01_hi[r]);
          acc_lo = _mm512_dpwssd_epi32(acc_lo, next_lo, w2_lo[r]);
          acc_hi = _mm512_dpwssd_epi32(acc_hi, next_hi, w2_hi[r]);
          pair_lo[r] = next_lo;
          pair_hi[r] = next_hi;
          next[r] = second;
        }
        if (narrow && full_range) { /* vpackssdw + vpmovswb saturate: that is the clamp */
          const __m512i y_lo = lite_qs8_requantize_narrow_unclamped_avx512(acc_lo, &r_lo, zp);
          const __m512i y_hi = lite_qs8_requantize_narrow_unclamped_avx512(acc_hi, &r_hi, zp);
          lite_qs8_dw_store_channels(out_row + ow * c + c0, _mm512_cvtsepi16_epi8(_mm512_packs_epi32(y_lo, y_hi)),
                                     cols, mask);
          continue;
        }
        const __m512i y_lo = narrow ? lite_qs8_requantize_narrow_avx512(acc_lo, &r_lo, lo32, hi32, zp)
                                    : lite_qs8_requantize_avx512(acc_lo, &r_lo, lo, hi, zp);
        const __m512i y_hi = narrow ? lite_qs8_requantize_narrow_avx512(acc_hi, &r_hi, lo32, hi32, zp)
                                    : lite_qs8_requantize_avx512(acc_hi, &r_hi, lo, hi, zp);
        lite_qs8_dw_store_channels(out_row + ow * c + c0, _mm512_cvtepi16_epi8(_mm512_packs_epi32(y_lo, y_hi)), cols,
                                   mask);
      }
#undef COLUMN
    }
  }
}

void lite_qs8_dwconv_3x3s1_avx512vnni(const lite_conv2d_params* p, const void* packed,
                                      const lite_qs8_gemm_params* params, const int8_t* input, int8_t* output,
                                      size_t row_begin, size_t row_end) {
  dwconv_3x3(1, p, packed, params, input, output, row_begin, row_end);
}

void lite_qs8_dwconv_3x3s2_avx512vnni(const lite_conv2d_params* p, const void* packed,
                                      const lite_qs8_gemm_params* params, const int8_t* input, int8_t* output,
                                      size_t row_begin, size_t row_end) {
  dwconv_3x3(2, p, packed, params, input, output, row_begin, row_end);
}
