/* Test-only stand-in for <immintrin.h> (make test-avx512-emulated): SIMDe's portable implementation of
 * the AVX-512 intrinsics (Debian libsimde-dev, not part of this project) under their native names, so an
 * AVX-512 kernel source compiles to plain x86-64 code and its kernel test runs on a host without AVX-512.
 * SIMDe 0.7.4 lacks the types and masked stores below. */
#ifndef LITE_TESTS_SIMDE_IMMINTRIN_H
#define LITE_TESTS_SIMDE_IMMINTRIN_H
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>

typedef simde__mmask16 __mmask16;
typedef simde__mmask8 __mmask8;

static inline void _mm512_mask_storeu_ps(void* p, __mmask16 k, __m512 a) {
  float v[16];
  simde_mm512_storeu_ps(v, a);
  for (int i = 0; i < 16; ++i)
    if ((k >> i) & 1) ((float*)p)[i] = v[i];
}

static inline void _mm256_mask_storeu_ps(void* p, __mmask8 k, __m256 a) {
  float v[8];
  simde_mm256_storeu_ps(v, a);
  for (int i = 0; i < 8; ++i)
    if ((k >> i) & 1) ((float*)p)[i] = v[i];
}
#endif
