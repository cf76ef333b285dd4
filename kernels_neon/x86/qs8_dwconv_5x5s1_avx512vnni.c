/* AVX-512 VNNI int8 depthwise 5x5 convolution with stride 1 and dilation 1 along W (qs8_dwconv.h; any
 * stride_h, dilation_h, padding), 32 channels per step. PP-LCNet (PP-OCRv4 rec) runs most of its
 * depthwise work in 5x5 layers, which the generic kernel (qs8_dwconv_avx512.c) serves at two int8 loads,
 * two widenings and two interleaves per tap pair and pixel.
 *
 * Here the pairs run down a column instead of along a row: input column j of the five kernel rows is
 * loaded and widened once, interleaved into rows (0, 1), (2, 3) and (4, -) (vpunpck{l,h}wd), and those
 * three pairs are multiplied (vpdpwssd, exact: |x * w| <= 2^14) by kernel column kw's weights for each of
 * the five output pixels j + pad_left - kw whose window holds column j: the five pixels in flight keep
 * their int32 sums in registers (slot ow % 5), and the pixel whose window column j closes is
 * requantized, stored and its slot restarted from the bias. Per pixel and 32 channels: 5 loads, 5
 * widenings, 6 interleaves and 30 vpdpwssd (25 taps in 15 pairs), against 26 of each kind of shuffle and
 * 26 vpmaddwd + 26 vpaddd in the generic kernel.
 *
 * The weights come from the common packed layout (taps paired in order, lite_qs8_dwconv_pair_slots):
 * each block's (w[2rp][kw], w[2rp + 1][kw]) pairs are gathered once per call with vpermt2w. Padded rows
 * and columns read the packed zero-point row (real 0). */
#include <immintrin.h>
#include <stddef.h>

#include "lite_kernels/qs8_dwconv.h"
#include "qs8_dwconv_channels_avx512.h"
#include "qs8_requantize_avx512.h"

enum { BLOCK = 32, K = 5, ROW_PAIRS = 3, PACKED_PAIRS = 13 };

/* The requantization of one block's two accumulator halves and its output form. */
typedef struct {
  lite_qs8_requant_avx512 lo_half, hi_half;
  __m512i lo, hi, zp, lo32, hi32;
  int narrow, full_range;
} block_output;

static inline __attribute__((always_inline)) void store_pixel(const block_output* o, __m512i acc_lo, __m512i acc_hi,
                                                              int8_t* out, size_t cols, __mmask32 mask) {
  if (o->narrow && o->full_range) { /* vpackssdw + vpmovswb saturate: that is the clamp */
    const __m512i y_lo = lite_qs8_requantize_narrow_unclamped_avx512(acc_lo, &o->lo_half, o->zp);
    const __m512i y_hi = lite_qs8_requantize_narrow_unclamped_avx512(acc_hi, &o->hi_half, o->zp);
    lite_qs8_dw_store_channels(out, _mm512_cvtsepi16_epi8(_mm512_packs_epi32(y_lo, y_hi)), cols, mask);
    return;
  }
  const __m512i y_lo = o->narrow ? lite_qs8_requantize_narrow_avx512(acc_lo, &o->lo_half, o->lo32, o->hi32, o->zp)
                                 : lite_qs8_requantize_avx512(acc_lo, &o->lo_half, o->lo, o->hi, o->zp);
  const __m512i y_hi = o->narrow ? lite_qs8_requantize_narrow_avx512(acc_hi, &o->hi_half, o->lo32, o->hi32, o->zp)
                                 : lite_qs8_requantize_avx512(acc_hi, &o->hi_half, o->lo, o->hi, o->zp);
  lite_qs8_dw_store_channels(out, _mm512_cvtepi16_epi8(_mm512_packs_epi32(y_lo, y_hi)), cols, mask);
}

/* weights[kw][rp][half]: the int16 pairs (w[2rp][kw], w[2rp + 1][kw]) (rp 2: (w[4][kw], 0)) of the block
 * whose packed taps start at packed_w, in the accumulator order of the packed layout. */
static void gather_weights(const uint8_t* packed_w, __m512i weights[K][ROW_PAIRS][2]) {
  /* word 2i from the first source, word 2i + 1 from the second (index bit 5), before the parity offsets */
  __m512i base = _mm512_setzero_si512();
  for (int i = 0; i < 16; ++i)
    base = _mm512_mask_set1_epi32(base, (__mmask16)(1u << i), (int)((uint32_t)(2 * i) | (uint32_t)(32 + 2 * i) << 16));
  for (size_t kw = 0; kw < K; ++kw)
    for (size_t rp = 0; rp < ROW_PAIRS; ++rp) {
      const size_t t0 = 2 * rp * K + kw, t1 = t0 + K; /* t1 is past the last tap for rp 2 */
      const __m512i offset = _mm512_set1_epi32((int)((uint32_t)(t0 % 2) | (uint32_t)(t1 % 2) << 16));
      const __m512i index = _mm512_add_epi16(base, offset);
      for (size_t half = 0; half < 2; ++half) {
        const __m512i a = _mm512_loadu_si512(packed_w + (t0 / 2) * BLOCK * 4 + 64 * half);
        const __m512i b = rp + 1 < ROW_PAIRS ? _mm512_loadu_si512(packed_w + (t1 / 2) * BLOCK * 4 + 64 * half)
                                             : _mm512_setzero_si512();
        weights[kw][rp][half] = _mm512_permutex2var_epi16(a, index, b);
      }
    }
}

/* Column t of an output row (input column t - pad_left): its contributions to the five pixels in flight,
 * then the pixel t - 4 (slot (PH + 1) % 5, where PH = t % 5) completes and its slot restarts. */
static inline __attribute__((always_inline)) void column_step(
    const size_t PH, ptrdiff_t t, const int8_t* const rows[K], ptrdiff_t pad_left, ptrdiff_t in_w, size_t c,
    size_t c0, size_t cols, __mmask32 mask, __m512i zero_column, const __m512i weights[K][ROW_PAIRS][2],
    __m512i acc_lo[K], __m512i acc_hi[K], __m512i bias_lo, __m512i bias_hi, const block_output* o, int8_t* out_row) {
  const ptrdiff_t j = t - pad_left;
  const int inside = j >= 0 && j < in_w;
  __m512i x[K];
  for (size_t r = 0; r < K; ++r)
    x[r] = inside && rows[r] != NULL ? lite_qs8_dw_load_channels(rows[r] + (size_t)j * c + c0, cols, mask)
                                     : zero_column;
  const __m512i pair_lo[ROW_PAIRS] = {_mm512_unpacklo_epi16(x[0], x[1]), _mm512_unpacklo_epi16(x[2], x[3]),
                                      _mm512_unpacklo_epi16(x[4], x[4])};
  const __m512i pair_hi[ROW_PAIRS] = {_mm512_unpackhi_epi16(x[0], x[1]), _mm512_unpackhi_epi16(x[2], x[3]),
                                      _mm512_unpackhi_epi16(x[4], x[4])};
  for (size_t kw = 0; kw < K; ++kw) {
    const size_t slot = (PH + K - kw) % K;
    for (size_t rp = 0; rp < ROW_PAIRS; ++rp) {
      acc_lo[slot] = _mm512_dpwssd_epi32(acc_lo[slot], pair_lo[rp], weights[kw][rp][0]);
      acc_hi[slot] = _mm512_dpwssd_epi32(acc_hi[slot], pair_hi[rp], weights[kw][rp][1]);
    }
  }
  const size_t done = (PH + 1) % K;
  if (t >= K - 1) store_pixel(o, acc_lo[done], acc_hi[done], out_row + (size_t)(t - (K - 1)) * c, cols, mask);
  acc_lo[done] = bias_lo;
  acc_hi[done] = bias_hi;
}

void lite_qs8_dwconv_5x5s1_avx512vnni(const lite_conv2d_params* p, const void* packed,
                                      const lite_qs8_gemm_params* params, const int8_t* input, int8_t* output,
                                      size_t row_begin, size_t row_end) {
  const size_t c = p->out_c, blocks = (c + BLOCK - 1) / BLOCK, block_bytes = BLOCK * 12 + PACKED_PAIRS * BLOCK * 4;
  const int8_t* zero_row = (const int8_t*)packed + blocks * block_bytes;
  const int32_t zp_out = params->output_zero_point;
  block_output o;
  o.lo = _mm512_set1_epi64((int64_t)params->act_min - zp_out);
  o.hi = _mm512_set1_epi64((int64_t)params->act_max - zp_out);
  o.zp = _mm512_set1_epi32(zp_out);
  o.lo32 = _mm512_set1_epi32(params->act_min);
  o.hi32 = _mm512_set1_epi32(params->act_max);
  o.full_range = params->act_min == -128 && params->act_max == 127;
  const ptrdiff_t in_w = (ptrdiff_t)p->in_w, pad_left = (ptrdiff_t)p->pad_left;
  const ptrdiff_t columns = (ptrdiff_t)(p->out_w + K - 1); /* the last pixel's window ends at column out_w + 3 */
  for (size_t blk = 0; blk < blocks; ++blk) {
    const size_t c0 = blk * BLOCK, cols = c - c0 < BLOCK ? c - c0 : BLOCK;
    const __mmask32 mask = cols == BLOCK ? (__mmask32)0xFFFFFFFFu : (__mmask32)((1u << cols) - 1u);
    const uint8_t* block = (const uint8_t*)packed + blk * block_bytes;
    const uint8_t* requant = block + BLOCK * 4 + PACKED_PAIRS * BLOCK * 4;
    o.lo_half = lite_qs8_requant_avx512_load_used(requant, requant + BLOCK * 4, lite_qs8_dw_used_lanes(cols, 0));
    o.hi_half =
        lite_qs8_requant_avx512_load_used(requant + 64, requant + BLOCK * 4 + 64, lite_qs8_dw_used_lanes(cols, 1));
    o.narrow = o.lo_half.narrow && o.hi_half.narrow;
    lite_qs8_requant_avx512_set_zp(&o.lo_half, o.zp);
    lite_qs8_requant_avx512_set_zp(&o.hi_half, o.zp);
    const __m512i bias_lo = _mm512_loadu_si512(block), bias_hi = _mm512_loadu_si512(block + 64);
    __m512i weights[K][ROW_PAIRS][2];
    gather_weights(block + BLOCK * 4, weights);
    const __m512i(*const_weights)[ROW_PAIRS][2] = (const __m512i(*)[ROW_PAIRS][2])weights;
    const __m512i zero_column = lite_qs8_dw_load_channels(zero_row + c0, cols, mask);
    for (size_t row = row_begin; row < row_end; ++row) {
      const size_t b = row / p->out_h, oh = row % p->out_h;
      const int8_t* rows[K]; /* kernel row r's input row at channel 0, or NULL when it is padding */
      for (size_t r = 0; r < K; ++r) {
        const size_t ih_padded = oh * p->stride_h + r * p->dilation_h;
        rows[r] = ih_padded >= p->pad_top && ih_padded - p->pad_top < p->in_h
                      ? input + (b * p->in_h + (ih_padded - p->pad_top)) * p->in_w * c
                      : NULL;
      }
      int8_t* out_row = output + (b * p->out_h + oh) * p->out_w * c + c0;
      __m512i acc_lo[K], acc_hi[K];
      for (size_t s = 0; s < K; ++s) acc_lo[s] = bias_lo, acc_hi[s] = bias_hi;
#define STEP(PH)                                                                                \
  if (t0 + (PH) >= columns) break;                                                              \
  column_step(PH, t0 + (PH), rows, pad_left, in_w, c, c0, cols, mask, zero_column, const_weights, \
              acc_lo, acc_hi, bias_lo, bias_hi, &o, out_row)
      for (ptrdiff_t t0 = 0;; t0 += K) {
        STEP(0);
        STEP(1);
        STEP(2);
        STEP(3);
        STEP(4);
      }
#undef STEP
    }
  }
}
