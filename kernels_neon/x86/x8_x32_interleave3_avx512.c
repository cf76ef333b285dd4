/* Interleaving three planes, AVX-512: one vector of pixels from each plane per step (16 of 4 bytes;
 * 64 of 1 byte with VBMI's byte permutes), each output vector built by two permutes (its lanes from
 * planes 0 and 1, then plane 2's lanes merged in). */
#include <immintrin.h>

#include "lite_kernels/interleave3.h"

void lite_interleave3_u32_avx512(size_t n, const uint32_t* p0, const uint32_t* p1, const uint32_t* p2,
                                 uint32_t* out) {
  /* Output lane j of vector v holds element e = 16 v + j: pixel e / 3 of plane e % 3. Indices into
   * the concatenation (plane 0 | plane 1) for planes 0 and 1, into plane 2 for its own lanes. */
  __m512i ab_index[3], c_index[3];
  __mmask16 c_lanes[3];
  for (int v = 0; v < 3; ++v) {
    int32_t ab[16], c[16];
    unsigned mask = 0;
    for (int j = 0; j < 16; ++j) {
      const int e = 16 * v + j, pixel = e / 3, plane = e % 3;
      ab[j] = plane == 1 ? 16 + pixel : pixel;
      c[j] = pixel;
      if (plane == 2) mask |= 1u << j;
    }
    ab_index[v] = _mm512_loadu_si512(ab);
    c_index[v] = _mm512_loadu_si512(c);
    c_lanes[v] = (__mmask16)mask;
  }
  size_t i = 0;
  for (; i + 16 <= n; i += 16, out += 48) {
    const __m512i a = _mm512_loadu_si512(p0 + i), b = _mm512_loadu_si512(p1 + i), c = _mm512_loadu_si512(p2 + i);
    for (int v = 0; v < 3; ++v) {
      const __m512i ab = _mm512_permutex2var_epi32(a, ab_index[v], b);
      _mm512_storeu_si512(out + 16 * v, _mm512_mask_permutexvar_epi32(ab, c_lanes[v], c_index[v], c));
    }
  }
  lite_interleave3_u32_portable(n - i, p0 + i, p1 + i, p2 + i, out);
}

__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void lite_interleave3_u8_avx512vbmi(size_t n, const uint8_t* p0,
                                                                                        const uint8_t* p1,
                                                                                        const uint8_t* p2,
                                                                                        uint8_t* out) {
  __m512i ab_index[3], c_index[3];
  __mmask64 c_lanes[3];
  for (int v = 0; v < 3; ++v) {
    uint8_t ab[64], c[64];
    unsigned long long mask = 0;
    for (int j = 0; j < 64; ++j) {
      const int e = 64 * v + j, pixel = e / 3, plane = e % 3;
      ab[j] = (uint8_t)(plane == 1 ? 64 + pixel : pixel);
      c[j] = (uint8_t)pixel;
      if (plane == 2) mask |= 1ull << j;
    }
    ab_index[v] = _mm512_loadu_si512(ab);
    c_index[v] = _mm512_loadu_si512(c);
    c_lanes[v] = (__mmask64)mask;
  }
  size_t i = 0;
  for (; i + 64 <= n; i += 64, out += 192) {
    const __m512i a = _mm512_loadu_si512(p0 + i), b = _mm512_loadu_si512(p1 + i), c = _mm512_loadu_si512(p2 + i);
    for (int v = 0; v < 3; ++v) {
      const __m512i ab = _mm512_permutex2var_epi8(a, ab_index[v], b);
      _mm512_storeu_si512(out + 64 * v, _mm512_mask_permutexvar_epi8(ab, c_lanes[v], c_index[v], c));
    }
  }
  lite_interleave3_u8_portable(n - i, p0 + i, p1 + i, p2 + i, out);
}
