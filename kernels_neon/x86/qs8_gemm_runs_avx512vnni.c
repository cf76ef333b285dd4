/* AVX-512 VNNI int8 GEMM microkernels over A rows made of runs (qs8_gemm_packed_runs.h): the
 * 8x16c4 / 8x24c4 / 8x32c4 kernels of qs8_gemm_avx512vnni.c with the k loop split at run boundaries. Runs
 * are whole k-groups of 4 (no tail); the weights advance continuously across runs. Same epilogue
 * (qs8_requantize_avx512.h), same bytes. */
#include <immintrin.h>
#include <string.h>

#include "lite_kernels/qs8_gemm_packed_runs.h"
#include "qs8_requantize_avx512.h"

static inline __m512i broadcast_group(const int8_t* row, __m512i sign) {
  int32_t v;
  memcpy(&v, row, 4);
  return _mm512_xor_si512(_mm512_set1_epi32(v), sign);
}

/* 16 requantized int8 of 16 int32 sums (vpmovsdb's saturation is the clamp when the range is full). */
static inline __m128i requantize16(__m512i acc, const lite_qs8_requant_avx512* r, int full_range, __m512i lo,
                                   __m512i hi, __m512i lo32, __m512i hi32, __m512i zp) {
  if (r->narrow && full_range) return _mm512_cvtsepi32_epi8(lite_qs8_requantize_narrow_unclamped_avx512(acc, r, zp));
  if (r->narrow) return _mm512_cvtepi32_epi8(lite_qs8_requantize_narrow_avx512(acc, r, lo32, hi32, zp));
  return _mm512_cvtepi32_epi8(lite_qs8_requantize_avx512(acc, r, lo, hi, zp));
}

static inline __attribute__((always_inline)) void runs_tile(const size_t MR, const size_t NV, size_t mr, size_t nc,
                                                            size_t runs, size_t run_bytes, const int8_t* const* a,
                                                            size_t a_stride, const void* w, int8_t* c,
                                                            size_t c_stride, const lite_qs8_gemm_params* params) {
  const size_t NR = 16 * NV, kc = runs * run_bytes;
  const uint8_t* panel = (const uint8_t*)w;
  __m512i acc[8][2];
  for (size_t v = 0; v < NV; ++v) {
    const __m512i b = _mm512_loadu_si512(panel + 64 * v);
    for (size_t i = 0; i < MR; ++i) acc[i][v] = b;
  }
  const uint8_t* wp = panel + 4 * NR;
  const __m512i sign = _mm512_set1_epi32((int)0x80808080u);
  for (size_t s = 0; s < runs; ++s) {
    const int8_t* rows[8];
    for (size_t i = 0; i < MR; ++i) rows[i] = a[s] + (i < mr ? i : mr - 1) * a_stride;
    for (size_t p = 0; p < run_bytes; p += 4) {
      const __m512i w0 = _mm512_loadu_si512(wp);
      const __m512i w1 = NV > 1 ? _mm512_loadu_si512(wp + 64) : w0;
      wp += 4 * NR;
      for (size_t i = 0; i < MR; ++i) {
        const __m512i x = broadcast_group(rows[i] + p, sign);
        acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], x, w0);
        if (NV > 1) acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], x, w1);
      }
    }
  }
  const uint8_t* requant = panel + 4 * NR + NR * kc;
  const int32_t zp_out = params->output_zero_point;
  const __m512i lo = _mm512_set1_epi64((int64_t)params->act_min - zp_out);
  const __m512i hi = _mm512_set1_epi64((int64_t)params->act_max - zp_out);
  const __m512i zp = _mm512_set1_epi32(zp_out);
  const __m512i lo32 = _mm512_set1_epi32(params->act_min), hi32 = _mm512_set1_epi32(params->act_max);
  const int full_range = params->act_min == -128 && params->act_max == 127;
  for (size_t v = 0; v < NV; ++v) {
    const size_t cols = nc > 16 * v ? (nc - 16 * v < 16 ? nc - 16 * v : 16) : 0;
    if (cols == 0) break;
    const __mmask16 store_mask = (__mmask16)((1u << cols) - 1u);
    const lite_qs8_requant_avx512 r =
        lite_qs8_requant_avx512_load_used(requant + 64 * v, requant + 4 * NR + 64 * v, store_mask);
    for (size_t i = 0; i < mr; ++i)
      _mm_mask_storeu_epi8(c + i * c_stride + 16 * v, store_mask,
                           requantize16(acc[i][v], &r, full_range, lo, hi, lo32, hi32, zp));
  }
}

static inline __attribute__((always_inline)) void runs_rows(const size_t NV, size_t mr, size_t nc, size_t runs,
                                                            size_t run_bytes, const int8_t* const* a, size_t a_stride,
                                                            const void* w, int8_t* c, size_t c_stride,
                                                            const lite_qs8_gemm_params* params) {
  if (mr > 4)
    runs_tile(8, NV, mr, nc, runs, run_bytes, a, a_stride, w, c, c_stride, params);
  else if (mr > 2)
    runs_tile(4, NV, mr, nc, runs, run_bytes, a, a_stride, w, c, c_stride, params);
  else if (mr == 2)
    runs_tile(2, NV, mr, nc, runs, run_bytes, a, a_stride, w, c, c_stride, params);
  else
    runs_tile(1, NV, mr, nc, runs, run_bytes, a, a_stride, w, c, c_stride, params);
}

/* The 8x24c4 layout of qs8_gemm_avx512vnni.c (gemm_tile_24): columns 0-15 one zmm per row, columns
 * 16-23 of rows 2q and 2q + 1 sharing one zmm (low / high 8 lanes). */
static inline __attribute__((always_inline)) void runs_tile_24(const size_t MR, size_t mr, size_t nc, size_t runs,
                                                               size_t run_bytes, const int8_t* const* a,
                                                               size_t a_stride, const void* w, int8_t* c,
                                                               size_t c_stride, const lite_qs8_gemm_params* params) {
  enum { NR = 24 };
  const size_t PAIRS = (MR + 1) / 2, kc = runs * run_bytes;
  const uint8_t* panel = (const uint8_t*)w;
  __m512i acc[8], pair[4];
  {
    const __m512i b0 = _mm512_loadu_si512(panel);
    const __m512i b1 = _mm512_broadcast_i64x4(_mm256_loadu_si256((const void*)(panel + 64)));
    for (size_t i = 0; i < 2 * PAIRS; ++i) acc[i] = b0;
    for (size_t q = 0; q < PAIRS; ++q) pair[q] = b1;
  }
  const uint8_t* wp = panel + 4 * NR;
  const __m512i sign = _mm512_set1_epi32((int)0x80808080u);
  for (size_t s = 0; s < runs; ++s) {
    const int8_t* rows[8];
    for (size_t i = 0; i < 2 * PAIRS; ++i) rows[i] = a[s] + (i < mr ? i : mr - 1) * a_stride;
    for (size_t p = 0; p < run_bytes; p += 4) {
      const __m512i w0 = _mm512_loadu_si512(wp);
      const __m512i w1 = _mm512_broadcast_i64x4(_mm256_loadu_si256((const void*)(wp + 64)));
      wp += 4 * NR;
      for (size_t q = 0; q < PAIRS; ++q) {
        const __m512i x0 = broadcast_group(rows[2 * q] + p, sign), x1 = broadcast_group(rows[2 * q + 1] + p, sign);
        acc[2 * q] = _mm512_dpbusd_epi32(acc[2 * q], x0, w0);
        acc[2 * q + 1] = _mm512_dpbusd_epi32(acc[2 * q + 1], x1, w0);
        pair[q] = _mm512_dpbusd_epi32(pair[q], _mm512_mask_blend_epi32((__mmask16)0xFF00, x0, x1), w1);
      }
    }
  }
  const uint8_t* requant = panel + 4 * NR + NR * kc;
  const int32_t zp_out = params->output_zero_point;
  const __m512i lo = _mm512_set1_epi64((int64_t)params->act_min - zp_out);
  const __m512i hi = _mm512_set1_epi64((int64_t)params->act_max - zp_out);
  const __m512i zp = _mm512_set1_epi32(zp_out);
  const __m512i lo32 = _mm512_set1_epi32(params->act_min), hi32 = _mm512_set1_epi32(params->act_max);
  const int full_range = params->act_min == -128 && params->act_max == 127;
  const size_t cols0 = nc < 16 ? nc : 16;
  const __mmask16 mask0 = (__mmask16)((1u << cols0) - 1u);
  const lite_qs8_requant_avx512 r0 = lite_qs8_requant_avx512_load_used(requant, requant + 4 * NR, mask0);
  for (size_t i = 0; i < mr; ++i)
    _mm_mask_storeu_epi8(c + i * c_stride, mask0, requantize16(acc[i], &r0, full_range, lo, hi, lo32, hi32, zp));
  if (nc <= 16) return;
  const unsigned low = (1u << (nc - 16)) - 1u;
  const lite_qs8_requant_avx512 r1 =
      lite_qs8_requant_avx512_make(_mm512_broadcast_i64x4(_mm256_loadu_si256((const void*)(requant + 64))),
                                   _mm512_broadcast_i64x4(_mm256_loadu_si256((const void*)(requant + 4 * NR + 64))),
                                   (__mmask16)(low | low << 8));
  for (size_t q = 0; q < PAIRS && 2 * q < mr; ++q) {
    const __m128i out = requantize16(pair[q], &r1, full_range, lo, hi, lo32, hi32, zp);
    _mm_mask_storeu_epi8(c + 2 * q * c_stride + 16, (__mmask16)low, out);
    if (2 * q + 1 < mr) _mm_mask_storeu_epi8(c + (2 * q + 1) * c_stride + 8, (__mmask16)(low << 8), out);
  }
}

void lite_qs8_gemm_runs_ukernel_8x24c4_avx512vnni(size_t mr, size_t nc, size_t runs, size_t run_bytes,
                                                  const int8_t* const* a, size_t a_stride, const void* w, int8_t* c,
                                                  size_t c_stride, const lite_qs8_gemm_params* params) {
  if (mr > 4)
    runs_tile_24(8, mr, nc, runs, run_bytes, a, a_stride, w, c, c_stride, params);
  else if (mr > 2)
    runs_tile_24(4, mr, nc, runs, run_bytes, a, a_stride, w, c, c_stride, params);
  else
    runs_tile_24(2, mr, nc, runs, run_bytes, a, a_stride, w, c, c_stride, params);
}

void lite_qs8_gemm_runs_ukernel_8x16c4_avx512vnni(size_t mr, size_t nc, size_t runs, size_t run_bytes,
                                                  const int8_t* const* a, size_t a_stride, const void* w, int8_t* c,
                                                  size_t c_stride, const lite_qs8_gemm_params* params) {
  runs_rows(1, mr, nc, runs, run_bytes, a, a_stride, w, c, c_stride, params);
}

void lite_qs8_gemm_runs_ukernel_8x32c4_avx512vnni(size_t mr, size_t nc, size_t runs, size_t run_bytes,
                                                  const int8_t* const* a, size_t a_stride, const void* w, int8_t* c,
                                                  size_t c_stride, const lite_qs8_gemm_params* params) {
  runs_rows(2, mr, nc, runs, run_bytes, a, a_stride, w, c, c_stride, params);
}
