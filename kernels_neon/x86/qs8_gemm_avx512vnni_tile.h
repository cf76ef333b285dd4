/* What the AVX-512 VNNI int8 GEMM microkernels share (qs8_gemm_8x16c4_8x32c4_avx512vnni.c and
 * qs8_gemm_8x24c4_avx512vnni.c: contiguous A rows; qs8_gemm_runs_*_avx512vnni.c: A rows made of runs; the
 * AMX kernels' epilogue): the u8-flipped broadcast of 4 A bytes and the tile epilogues (the exact
 * requantization of qs8_requantize_avx512.h, narrowed and stored masked). One copy, so every kernel gives
 * the same bytes. */
#ifndef LITE_KERNELS_X86_QS8_GEMM_AVX512VNNI_TILE_H
#define LITE_KERNELS_X86_QS8_GEMM_AVX512VNNI_TILE_H

#include <immintrin.h>
#include <string.h>

#include "lite_kernels/qs8_gemm_packed.h"
#include "qs8_requantize_avx512.h"

/* The 4 A bytes at row, flipped to u8 (a ^ 0x80), in every int32 lane. */
static inline __m512i qs8_vnni_broadcast_group(const int8_t* row, __m512i sign) {
  int32_t v;
  memcpy(&v, row, 4);
  return _mm512_xor_si512(_mm512_set1_epi32(v), sign);
}

/* The k % 4 tail bytes (the rest zero: their weights are zero), flipped to u8. */
static inline __m512i qs8_vnni_broadcast_tail(const int8_t* row, size_t bytes) {
  uint32_t v = 0;
  for (size_t b = 0; b < bytes; ++b) v |= (uint32_t)(uint8_t)row[b] << (8 * b);
  return _mm512_set1_epi32((int)(v ^ 0x80808080u));
}

/* The output clamp and zero point in the forms the three requantization paths take. */
typedef struct {
  __m512i lo, hi;     /* 64-bit path: act_min / act_max - zero point */
  __m512i lo32, hi32; /* narrow path */
  __m512i zp;
  int full_range; /* [-128, 127]: vpmovsdb's saturation is the clamp */
} qs8_vnni_output;

static inline qs8_vnni_output qs8_vnni_output_of(const lite_qs8_gemm_params* params) {
  const int32_t zp_out = params->output_zero_point;
  qs8_vnni_output o;
  o.lo = _mm512_set1_epi64((int64_t)params->act_min - zp_out);
  o.hi = _mm512_set1_epi64((int64_t)params->act_max - zp_out);
  o.lo32 = _mm512_set1_epi32(params->act_min);
  o.hi32 = _mm512_set1_epi32(params->act_max);
  o.zp = _mm512_set1_epi32(zp_out);
  o.full_range = params->act_min == -128 && params->act_max == 127;
  return o;
}

/* 16 requantized int8 of 16 int32 sums. */
static inline __m128i qs8_vnni_requantize16(__m512i acc, const lite_qs8_requant_avx512* r, const qs8_vnni_output* o) {
  if (r->narrow && o->full_range)
    return _mm512_cvtsepi32_epi8(lite_qs8_requantize_narrow_unclamped_avx512(acc, r, o->zp));
  if (r->narrow) return _mm512_cvtepi32_epi8(lite_qs8_requantize_narrow_avx512(acc, r, o->lo32, o->hi32, o->zp));
  return _mm512_cvtepi32_epi8(lite_qs8_requantize_avx512(acc, r, o->lo, o->hi, o->zp));
}

/* Stores mr x nc of a 16- or 32-column tile (NV zmm per row); requant: the panel's multipliers, then
 * its shifts 4 * NR bytes later. The path is chosen once per column vector, not per row. */
static inline __attribute__((always_inline)) void qs8_vnni_store_tile(const size_t NV, size_t mr, size_t nc,
                                                                      __m512i acc[8][2], const uint8_t* requant,
                                                                      const lite_qs8_gemm_params* params, int8_t* c,
                                                                      size_t c_stride) {
  const size_t NR = 16 * NV;
  const qs8_vnni_output o = qs8_vnni_output_of(params);
  for (size_t v = 0; v < NV; ++v) {
    const size_t cols = nc > 16 * v ? (nc - 16 * v < 16 ? nc - 16 * v : 16) : 0;
    if (cols == 0) break;
    const __mmask16 store_mask = (__mmask16)((1u << cols) - 1u);
    lite_qs8_requant_avx512 r =
        lite_qs8_requant_avx512_load_used(requant + 64 * v, requant + 4 * NR + 64 * v, store_mask);
    lite_qs8_requant_avx512_set_zp(&r, o.zp);
    if (r.narrow && o.full_range) {
      for (size_t i = 0; i < mr; ++i) {
        const __m128i out = _mm512_cvtsepi32_epi8(lite_qs8_requantize_narrow_unclamped_avx512(acc[i][v], &r, o.zp));
        _mm_mask_storeu_epi8(c + i * c_stride + 16 * v, store_mask, out);
      }
    } else if (r.narrow) {
      for (size_t i = 0; i < mr; ++i) {
        const __m128i out =
            _mm512_cvtepi32_epi8(lite_qs8_requantize_narrow_avx512(acc[i][v], &r, o.lo32, o.hi32, o.zp));
        _mm_mask_storeu_epi8(c + i * c_stride + 16 * v, store_mask, out);
      }
    } else {
      for (size_t i = 0; i < mr; ++i) {
        const __m128i out = _mm512_cvtepi32_epi8(lite_qs8_requantize_avx512(acc[i][v], &r, o.lo, o.hi, o.zp));
        _mm_mask_storeu_epi8(c + i * c_stride + 16 * v, store_mask, out);
      }
    }
  }
}

/* Stores mr x nc of a 24-column tile: columns 0-15 one zmm per row (acc), columns 16-23 of rows 2q and
 * 2q + 1 in the low and high 8 lanes of pair[q]. */
static inline __attribute__((always_inline)) void qs8_vnni_store_tile_24(const size_t PAIRS, size_t mr, size_t nc,
                                                                         const __m512i acc[8], const __m512i pair[4],
                                                                         const uint8_t* requant,
                                                                         const lite_qs8_gemm_params* params, int8_t* c,
                                                                         size_t c_stride) {
  enum { NR = 24 };
  const qs8_vnni_output o = qs8_vnni_output_of(params);
  const size_t cols0 = nc < 16 ? nc : 16;
  const __mmask16 mask0 = (__mmask16)((1u << cols0) - 1u);
  lite_qs8_requant_avx512 r0 = lite_qs8_requant_avx512_load_used(requant, requant + 4 * NR, mask0);
  lite_qs8_requant_avx512_set_zp(&r0, o.zp);
  for (size_t i = 0; i < mr; ++i) _mm_mask_storeu_epi8(c + i * c_stride, mask0, qs8_vnni_requantize16(acc[i], &r0, &o));
  if (nc <= 16) return;
  /* columns 16-23: multipliers and shifts repeated in both halves, like the pair accumulators */
  const unsigned low = (1u << (nc - 16)) - 1u;
  lite_qs8_requant_avx512 r1 =
      lite_qs8_requant_avx512_make(_mm512_broadcast_i64x4(_mm256_loadu_si256((const void*)(requant + 64))),
                                   _mm512_broadcast_i64x4(_mm256_loadu_si256((const void*)(requant + 4 * NR + 64))),
                                   (__mmask16)(low | low << 8));
  lite_qs8_requant_avx512_set_zp(&r1, o.zp);
  for (size_t q = 0; q < PAIRS && 2 * q < mr; ++q) {
    const __m128i out = qs8_vnni_requantize16(pair[q], &r1, &o);
    _mm_mask_storeu_epi8(c + 2 * q * c_stride + 16, (__mmask16)low, out);
    /* row 2q + 1 is in bytes 8-15: store them 8 bytes early, masked to its columns */
    if (2 * q + 1 < mr) _mm_mask_storeu_epi8(c + (2 * q + 1) * c_stride + 8, (__mmask16)(low << 8), out);
  }
}

#endif
