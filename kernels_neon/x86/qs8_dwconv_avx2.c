/* AVX2 int8 depthwise convolution (qs8_dwconv.h), any kernel: the generic AVX-512 kernel's scheme on
 * 16 channels per step. The two int8 inputs of a tap pair are widened to int16 and interleaved, so
 * vpmaddwd sums both products of one channel exactly; it reads the same packed layout (32-channel
 * blocks): within a 128-bit lane vpunpck{l,h}wd leave channels in the order the pack stored for the
 * AVX-512 lanes, so half h of a block is the 32 bytes at offset 32 * h of each 64-byte row. Channel
 * tails go through a 16-byte copy (AVX2 has no masked byte loads or stores). Tap pointers are computed
 * once per PIXELS output pixels and the requantization constants once per 16 channels of them. */
#include <immintrin.h>
#include <string.h>

#include "../portable/qs8_dwconv_taps.h"
#include "lite_kernels/qs8_dwconv.h"
#include "qs8_requantize_avx2.h"

enum { BLOCK = 32, HALF = 16, PIXELS = 16 };

static inline __m256i load_channels(const int8_t* p, size_t count) {
  if (count == HALF) return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*)p));
  int8_t bytes[HALF] = {0};
  memcpy(bytes, p, count);
  return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*)bytes));
}

void lite_qs8_dwconv_avx2(const lite_conv2d_params* p, const void* packed, const lite_qs8_gemm_params* params,
                          const int8_t* input, int8_t* output, size_t row_begin, size_t row_end) {
  const size_t c = p->out_c, taps = p->kernel_h * p->kernel_w;
  int slots[LITE_QS8_DWCONV_MAX_TAPS * 2];
  const size_t pairs = lite_qs8_dwconv_pair_slots(p, slots);
  for (size_t i = 0; i < 2 * pairs; ++i)
    if (slots[i] < 0) slots[i] = (int)taps; /* ptrs[taps] is the zero row */
  const size_t blocks = (c + BLOCK - 1) / BLOCK, block_bytes = BLOCK * 12 + pairs * BLOCK * 4;
  const int8_t* zero_row = (const int8_t*)packed + blocks * block_bytes;
  const int32_t zp_out = params->output_zero_point;
  const __m256i lo = _mm256_set1_epi64x((long long)params->act_min - zp_out);
  const __m256i hi = _mm256_set1_epi64x((long long)params->act_max - zp_out);
  const __m256i zp = _mm256_set1_epi32(zp_out);
  size_t tap_offset[LITE_QS8_DWCONV_MAX_TAPS];
  lite_qs8_dwconv_tap_offsets(p, tap_offset);
  const int8_t* ptrs[PIXELS][LITE_QS8_DWCONV_MAX_TAPS + 1];
  for (size_t row = row_begin; row < row_end; ++row) {
    const size_t b = row / p->out_h, oh = row % p->out_h;
    for (size_t ow0 = 0; ow0 < p->out_w; ow0 += PIXELS) {
      const size_t pixels = p->out_w - ow0 < PIXELS ? p->out_w - ow0 : PIXELS;
      for (size_t px = 0; px < pixels; ++px) {
        lite_qs8_dwconv_tap_pointers(p, input, zero_row, tap_offset, b, oh, ow0 + px, ptrs[px]);
        ptrs[px][taps] = zero_row;
      }
      int8_t* out_row = output + ((b * p->out_h + oh) * p->out_w + ow0) * c;
      for (size_t c0 = 0; c0 < c; c0 += HALF) {
        const size_t count = c - c0 < HALF ? c - c0 : HALF, h = (c0 / HALF) % 2;
        const uint8_t* block = (const uint8_t*)packed + (c0 / BLOCK) * block_bytes;
        const uint8_t* weights = block + BLOCK * 4;
        const uint8_t* requant = weights + pairs * BLOCK * 4;
        const lite_qs8_requant_avx2 r_lo = lite_qs8_requant_avx2_load(requant + 32 * h, requant + BLOCK * 4 + 32 * h);
        const lite_qs8_requant_avx2 r_hi =
            lite_qs8_requant_avx2_load(requant + 64 + 32 * h, requant + BLOCK * 4 + 64 + 32 * h);
        const __m256i bias_lo = _mm256_loadu_si256((const __m256i*)(block + 32 * h));
        const __m256i bias_hi = _mm256_loadu_si256((const __m256i*)(block + 64 + 32 * h));
        for (size_t px = 0; px < pixels; ++px) {
          const uint8_t* w = weights;
          __m256i acc_lo = bias_lo, acc_hi = bias_hi;
          for (size_t q = 0; q < pairs; ++q) {
            const __m256i x0 = load_channels(ptrs[px][slots[2 * q]] + c0, count);
            const __m256i x1 = load_channels(ptrs[px][slots[2 * q + 1]] + c0, count);
            const __m256i w_lo = _mm256_loadu_si256((const __m256i*)(w + 32 * h));
            const __m256i w_hi = _mm256_loadu_si256((const __m256i*)(w + 64 + 32 * h));
            acc_lo = _mm256_add_epi32(acc_lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, x1), w_lo));
            acc_hi = _mm256_add_epi32(acc_hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, x1), w_hi));
            w += BLOCK * 4;
          }
          const __m256i y_lo = lite_qs8_requantize_avx2(acc_lo, &r_lo, lo, hi, zp);
          const __m256i y_hi = lite_qs8_requantize_avx2(acc_hi, &r_hi, lo, hi, zp);
          const __m256i y16 = _mm256_packs_epi32(y_lo, y_hi); /* channels 0-7 | 8-15 as int16 */
          const __m256i y8 = _mm256_permute4x64_epi64(_mm256_packs_epi16(y16, y16), 0x08);
          int8_t* out = out_row + px * c + c0;
          if (count == HALF) {
            _mm_storeu_si128((__m128i*)out, _mm256_castsi256_si128(y8));
          } else {
            int8_t bytes[HALF];
            _mm_storeu_si128((__m128i*)bytes, _mm256_castsi256_si128(y8));
            memcpy(out, bytes, count);
          }
        }
      }
    }
  }
}
