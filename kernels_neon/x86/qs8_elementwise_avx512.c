/* int8 LOOKUP with AVX-512BW, 64 bytes per step: the AVX2 kernel's 16 vpshufb sub-table lookups on
 * zmm (vpermb would need AVX-512 VBMI, which lite_cpu_features does not report). The other int8
 * elementwise kernels stay on AVX2: they are bound by memory, not by vector width. */
#include <immintrin.h>
#include <string.h>

#include "lite_kernels/qs8_elementwise.h"

#define STEP 64

/* see lookup32 in qs8_elementwise_avx2.c: (u ^ 16k) +sat 0x70 keeps bit 7 clear only for sub-table k */
static inline __m512i lookup64(__m512i x, const __m512i tables[16]) {
  const __m512i u = _mm512_xor_si512(x, _mm512_set1_epi8((char)0x80));
  const __m512i offset = _mm512_set1_epi8(0x70);
  __m512i r = _mm512_setzero_si512();
  for (int k = 0; k < 16; ++k) {
    const __m512i index = _mm512_adds_epu8(_mm512_xor_si512(u, _mm512_set1_epi8((char)(k << 4))), offset);
    r = _mm512_or_si512(r, _mm512_shuffle_epi8(tables[k], index));
  }
  return r;
}

void lite_qs8_vlookup_avx512(size_t count, const int8_t table[256], const int8_t* input, int8_t* output) {
  __m512i tables[16];
  for (int k = 0; k < 16; ++k) tables[k] = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i*)(table + 16 * k)));
  size_t i = 0;
  for (; i + STEP <= count; i += STEP)
    _mm512_storeu_si512(output + i, lookup64(_mm512_loadu_si512(input + i), tables));
  if (i < count) {
    const __mmask64 tail = _cvtu64_mask64(~0ull >> (STEP - (count - i)));
    _mm512_mask_storeu_epi8(output + i, tail, lookup64(_mm512_maskz_loadu_epi8(tail, input + i), tables));
  }
}
