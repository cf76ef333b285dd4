/* Loads and stores of one 32-channel block of the AVX-512 int8 depthwise kernels. A block of 16
 * channels (16-, 48-, 144-channel layers end with one) uses plain 16-byte moves: byte-masked
 * moves, above all stores, cost several times a plain one on some cores (AMD Zen 4: a 16-channel
 * layer ran slower than a 32-channel one). Other partial blocks stay masked. */
#ifndef LITE_KERNELS_X86_QS8_DWCONV_CHANNELS_AVX512_H
#define LITE_KERNELS_X86_QS8_DWCONV_CHANNELS_AVX512_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

/* cols int8 channels at p widened to int16 (lanes past cols: zero or, for 16, undefined-free zero). */
static inline __m512i lite_qs8_dw_load_channels(const int8_t* p, size_t cols, __mmask32 mask) {
  if (cols == 32) return _mm512_cvtepi8_epi16(_mm256_loadu_si256((const void*)p));
  if (cols == 16) return _mm512_cvtepi8_epi16(_mm256_zextsi128_si256(_mm_loadu_si128((const void*)p)));
  return _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(mask, p));
}

/* The first cols bytes of v to p. */
static inline void lite_qs8_dw_store_channels(int8_t* p, __m256i v, size_t cols, __mmask32 mask) {
  if (cols == 32)
    _mm256_storeu_si256((void*)p, v);
  else if (cols == 16)
    _mm_storeu_si128((void*)p, _mm256_castsi256_si128(v));
  else
    _mm256_mask_storeu_epi8(p, mask, v);
}

/* The int32 accumulator lanes of the low (half 0) or high (half 1) vpunpck{l,h}wd half that hold
 * one of the first cols channels: lane 4L + i holds channel 8L + 4 * half + i. */
static inline __mmask16 lite_qs8_dw_used_lanes(size_t cols, size_t half) {
  unsigned used = 0;
  for (unsigned lane = 0; lane < 16; ++lane)
    if (8 * (lane / 4) + 4 * half + lane % 4 < cols) used |= 1u << lane;
  return (__mmask16)used;
}

#endif
