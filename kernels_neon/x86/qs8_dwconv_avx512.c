/* AVX-512 int8 depthwise convolution (qs8_dwconv.h): 32 channels per step, two taps per
 * vpmaddwd. The int8 inputs of a tap pair are widened to int16 and interleaved (vpunpck{l,h}wd),
 * so each int32 lane sums x_t0 * w_t0 + x_t1 * w_t1 of one channel exactly (|products| <= 2^14);
 * the weights were packed in the channel order the interleave leaves, and vpackssdw restores the
 * natural order before the store. Padded taps read the packed zero-point row. Tap pointers are
 * computed once per PIXELS output pixels and reused for every channel block. */
#include <immintrin.h>

#include "lite_kernels/qs8_dwconv.h"
#include "../portable/qs8_dwconv_taps.h"
#include "qs8_dwconv_channels_avx512.h"
#include "qs8_requantize_avx512.h"

enum { BLOCK = 32, PIXELS = 16 };


void lite_qs8_dwconv_avx512(const lite_conv2d_params* p, const void* packed, const lite_qs8_gemm_params* params,
                            const int8_t* input, int8_t* output, size_t row_begin, size_t row_end) {
  const size_t c = p->out_c, taps = p->kernel_h * p->kernel_w;
  int slots[LITE_QS8_DWCONV_MAX_TAPS * 2];
  const size_t pairs = lite_qs8_dwconv_pair_slots(p, slots);
  for (size_t i = 0; i < 2 * pairs; ++i)
    if (slots[i] < 0) slots[i] = (int)taps; /* tap_ptr[px][taps] is the zero row */
  const size_t blocks = (c + BLOCK - 1) / BLOCK, block_bytes = BLOCK * 12 + pairs * BLOCK * 4;
  const int8_t* zero_row = (const int8_t*)packed + blocks * block_bytes;
  const int32_t zp_out = params->output_zero_point;
  const __m512i lo = _mm512_set1_epi64((int64_t)params->act_min - zp_out);
  const __m512i hi = _mm512_set1_epi64((int64_t)params->act_max - zp_out);
  const __m512i zp = _mm512_set1_epi32(zp_out);
  const __m512i lo32 = _mm512_set1_epi32(params->act_min), hi32 = _mm512_set1_epi32(params->act_max);
  /* Tap pointers of PIXELS output pixels at channel 0: the input pixel, or the zero row for a padded
   * tap; entry `taps` is the zero row for pair slots without a tap (zero weights). */
  const int8_t* tap_ptr[PIXELS][LITE_QS8_DWCONV_MAX_TAPS + 1];
  size_t tap_offset[LITE_QS8_DWCONV_MAX_TAPS];
  lite_qs8_dwconv_tap_offsets(p, tap_offset);
  for (size_t row = row_begin; row < row_end; ++row) {
    const size_t b = row / p->out_h, oh = row % p->out_h;
    for (size_t ow0 = 0; ow0 < p->out_w; ow0 += PIXELS) {
      const size_t pixels = p->out_w - ow0 < PIXELS ? p->out_w - ow0 : PIXELS;
      for (size_t px = 0; px < pixels; ++px) {
        lite_qs8_dwconv_tap_pointers(p, input, zero_row, tap_offset, b, oh, ow0 + px, tap_ptr[px]);
        tap_ptr[px][taps] = zero_row;
      }
      int8_t* out_row = output + ((b * p->out_h + oh) * p->out_w + ow0) * c;
      for (size_t blk = 0; blk < blocks; ++blk) {
        const size_t c0 = blk * BLOCK, cols = c - c0 < BLOCK ? c - c0 : BLOCK;
        const __mmask32 mask = cols == BLOCK ? (__mmask32)0xFFFFFFFFu : (__mmask32)((1u << cols) - 1u);
        const uint8_t* block = (const uint8_t*)packed + blk * block_bytes;
        const uint8_t* requant = block + BLOCK * 4 + pairs * BLOCK * 4;
        lite_qs8_requant_avx512 r_lo = lite_qs8_requant_avx512_load_used(requant, requant + BLOCK * 4,
                                                                                  lite_qs8_dw_used_lanes(cols, 0));
        lite_qs8_requant_avx512 r_hi = lite_qs8_requant_avx512_load_used(
            requant + 64, requant + BLOCK * 4 + 64, lite_qs8_dw_used_lanes(cols, 1));
        lite_qs8_requant_avx512_set_zp(&r_lo, zp);
        lite_qs8_requant_avx512_set_zp(&r_hi, zp);
        const __m512i bias_lo = _mm512_loadu_si512(block), bias_hi = _mm512_loadu_si512(block + 64);
        const int narrow = r_lo.narrow && r_hi.narrow;
        for (size_t px = 0; px < pixels; ++px) {
          const uint8_t* w = block + BLOCK * 4;
          __m512i acc_lo = bias_lo, acc_hi = bias_hi;
          for (size_t q = 0; q < pairs; ++q) {
            /* both the input pixels and the zero row hold channel c0 at offset c0 */
            const __m512i x0 = lite_qs8_dw_load_channels(tap_ptr[px][slots[2 * q]] + c0, cols, mask);
            const __m512i x1 = lite_qs8_dw_load_channels(tap_ptr[px][slots[2 * q + 1]] + c0, cols, mask);
            acc_lo = _mm512_add_epi32(acc_lo, _mm512_madd_epi16(_mm512_unpacklo_epi16(x0, x1), _mm512_loadu_si512(w)));
            acc_hi =
                _mm512_add_epi32(acc_hi, _mm512_madd_epi16(_mm512_unpackhi_epi16(x0, x1), _mm512_loadu_si512(w + 64)));
            w += BLOCK * 4;
          }
          const __m512i y_lo = narrow ? lite_qs8_requantize_narrow_avx512(acc_lo, &r_lo, lo32, hi32, zp)
                                      : lite_qs8_requantize_avx512(acc_lo, &r_lo, lo, hi, zp);
          const __m512i y_hi = narrow ? lite_qs8_requantize_narrow_avx512(acc_hi, &r_hi, lo32, hi32, zp)
                                      : lite_qs8_requantize_avx512(acc_hi, &r_hi, lo, hi, zp);
          lite_qs8_dw_store_channels(out_row + px * c + c0, _mm512_cvtepi16_epi8(_mm512_packs_epi32(y_lo, y_hi)),
                                     cols, mask);
        }
      }
    }
  }
}
