/* Channel padding 3 -> 4, AVX-512 BW (lite_kernels/s8_pad_channels.h): 16 pixels (48 bytes) per step,
 * each 128-bit lane given its 4 pixels' 12 bytes by a dword permute, then spread by a byte shuffle
 * within the lane (the 4th byte zeroed) and the fill merged in. Masked loads and stores do the tail:
 * nothing past the last pixel is read or written. */
#include <immintrin.h>

#include "lite_kernels/s8_pad_channels.h"

void lite_s8_pad_channels_3to4_avx512(size_t pixels, size_t channels, size_t padded_channels, const int8_t* x,
                                      int8_t fill, int8_t* y) {
  (void)channels;
  (void)padded_channels;
  /* lane l takes source dwords 3l, 3l+1, 3l+2 (its bytes 12l .. 12l+11); its last dword is unused */
  const __m512i lanes = _mm512_set_epi32(0, 11, 10, 9, 0, 8, 7, 6, 0, 5, 4, 3, 0, 2, 1, 0);
  /* output byte 4p + c of a lane = its byte 3p + c (c < 3); -1 (high bit) zeroes the 4th */
  const __m512i spread = _mm512_broadcast_i32x4(_mm_set_epi8(-1, 11, 10, 9, -1, 8, 7, 6, -1, 5, 4, 3, -1, 2, 1, 0));
  const __m512i fills = _mm512_set1_epi32((int32_t)((uint32_t)(uint8_t)fill << 24));
  size_t i = 0;
  for (; i + 16 <= pixels; i += 16) {
    const __m512i in = _mm512_maskz_loadu_epi8((__mmask64)0xFFFFFFFFFFFFull, x + 3 * i);
    const __m512i out = _mm512_shuffle_epi8(_mm512_permutexvar_epi32(lanes, in), spread);
    _mm512_storeu_si512(y + 4 * i, _mm512_or_si512(out, fills));
  }
  if (i < pixels) {
    const size_t rest = pixels - i;
    const __m512i in = _mm512_maskz_loadu_epi8((__mmask64)((1ull << (3 * rest)) - 1), x + 3 * i);
    const __m512i out = _mm512_shuffle_epi8(_mm512_permutexvar_epi32(lanes, in), spread);
    _mm512_mask_storeu_epi8(y + 4 * i, (__mmask64)((1ull << (4 * rest)) - 1), _mm512_or_si512(out, fills));
  }
}
