/* Packed fp32 GEMM microkernel, 8 rows x 32 columns, AVX-512F.
 * 16 zmm accumulators (of 32 registers); per k step 2 loads of B and 8 broadcasts feed 16 FMAs of
 * 16 lanes: twice the work per instruction of the AVX2 6x16 tile. Chosen for layers with more
 * than 16 output columns (see f32_gemm_config.c).
 * Edge tiles with fewer rows run the same loop for 4, 2 or 1 rows (FULLY_CONNECTED on one row,
 * layers of 49 pixels). A narrow last panel (nc <= 16, or <= 24: MobileNetV2's 24- and 144-channel
 * layers) computes only the lanes it stores, with one zmm or a zmm + a ymm per row: the padding
 * lanes of a 32-wide panel would otherwise cost a quarter to half of the FMAs (on AMD Zen 4 a ymm FMA
 * costs half a zmm one). Each accumulator lane sums in f32_gemm_packed.h's order (k blocks of
 * LITE_F32_GEMM_KBLOCK), as the AVX2 kernel does, so the result of an element does not depend on the
 * variant (or thread split) that computed it. */
#include <immintrin.h>

#include "lite_kernels/f32_gemm_packed.h"

enum { MR = 8, NR = 32 };

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* The activation of the store: clamp, then HardSwish x * clamp(x * (1/6) + 0.5, 0, 1) as one FMA
 * (a division per vector cost more than a k step). */
ALWAYS_INLINE __m512 finish512(__m512 v, const lite_f32_minmax_params* params, int hard_swish) {
  v = _mm512_min_ps(_mm512_set1_ps(params->max), _mm512_max_ps(_mm512_set1_ps(params->min), v));  /* NaN in v stays */
  if (hard_swish) {
    const __m512 g = _mm512_fmadd_ps(v, _mm512_set1_ps(1.0f / 6.0f), _mm512_set1_ps(0.5f));
    v = _mm512_mul_ps(v, _mm512_min_ps(_mm512_set1_ps(1.0f), _mm512_max_ps(_mm512_setzero_ps(), g)));
  }
  return v;
}

ALWAYS_INLINE __m256 finish256(__m256 v, const lite_f32_minmax_params* params, int hard_swish) {
  v = _mm256_min_ps(_mm256_set1_ps(params->max), _mm256_max_ps(_mm256_set1_ps(params->min), v));  /* NaN in v stays */
  if (hard_swish) {
    const __m256 g = _mm256_fmadd_ps(v, _mm256_set1_ps(1.0f / 6.0f), _mm256_set1_ps(0.5f));
    v = _mm256_mul_ps(v, _mm256_min_ps(_mm256_set1_ps(1.0f), _mm256_max_ps(_mm256_setzero_ps(), g)));
  }
  return v;
}

ALWAYS_INLINE __mmask16 lanes(size_t count) {
  return count >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << count) - 1u);
}

/* acc += the next `len` k values of each row (rows_r[i] + p), prefetching one line per step while
 * p < prefetch_lines. */
ALWAYS_INLINE void k_steps(const size_t ROWS, const size_t COLS, const float* const* rows_r, size_t p, size_t len,
                           const float* w, __m512* lo, __m512* hi, __m256* hi8, const char* prefetch,
                           size_t prefetch_lines) {
  for (size_t end = p + len; p < end; ++p, w += NR) {
    if (p < prefetch_lines) _mm_prefetch(prefetch + p * 64, _MM_HINT_T1);
    const __m512 bl = _mm512_loadu_ps(w);
    const __m512 bh = COLS == 32 ? _mm512_loadu_ps(w + 16) : _mm512_setzero_ps();
    const __m256 bh8 = COLS == 24 ? _mm256_loadu_ps(w + 16) : _mm256_setzero_ps();
    for (size_t i = 0; i < ROWS; ++i) {
      const __m512 x = _mm512_set1_ps(rows_r[i][p]);
      lo[i] = _mm512_fmadd_ps(x, bl, lo[i]);
      if (COLS == 32) hi[i] = _mm512_fmadd_ps(x, bh, hi[i]);
      if (COLS == 24) hi8[i] = _mm256_fmadd_ps(_mm512_castps512_ps256(x), bh8, hi8[i]);
    }
  }
}

/* The tile for ROWS rows and the first COLS (16, 24 or 32) columns of the panel; both are
 * compile-time constants after inlining, so the accumulator arrays live in registers. The sum order
 * is f32_gemm_packed.h's (the bias and the first k block, later blocks from zero, the blocks' sums
 * in order), blocks counted over the whole row across runs. */
ALWAYS_INLINE void gemm_tile_runs(const size_t ROWS, const size_t COLS, size_t mr, size_t nc, size_t runs,
                                  size_t run_len, size_t run_stride, const float* a, size_t a_stride, const float* w,
                                  float* c, size_t c_stride, const lite_f32_minmax_params* params,
                                  const char* prefetch, size_t prefetch_lines) {
  const float* rows[MR];
  for (size_t i = 0; i < ROWS; ++i) rows[i] = a + (i < mr ? i : mr - 1) * a_stride;
  __m512 lo[MR], hi[MR];
  __m256 hi8[MR];
  lo[0] = _mm512_loadu_ps(w);
  if (COLS == 32) hi[0] = _mm512_loadu_ps(w + 16);
  if (COLS == 24) hi8[0] = _mm256_loadu_ps(w + 16);
  for (size_t i = 1; i < ROWS; ++i) {
    lo[i] = lo[0];
    if (COLS == 32) hi[i] = hi[0];
    if (COLS == 24) hi8[i] = hi8[0];
  }
  w += NR;
  float total[MR][NR]; /* the sum of the finished k blocks (in memory: a second register set spills) */
  size_t in_block = 0, left = runs * run_len;
  int have_total = 0;
  for (size_t r = 0; r < runs; ++r) {
    const float* rows_r[MR];
    for (size_t i = 0; i < ROWS; ++i) rows_r[i] = rows[i] + r * run_stride;
    for (size_t p = 0; p < run_len;) {
      const size_t room = LITE_F32_GEMM_KBLOCK - in_block, len = run_len - p < room ? run_len - p : room;
      k_steps(ROWS, COLS, rows_r, p, len, w, lo, hi, hi8, prefetch, prefetch_lines);
      p += len;
      w += len * NR;
      in_block += len;
      left -= len;
      if (in_block == LITE_F32_GEMM_KBLOCK && left != 0) { /* a block ends and another follows */
#pragma GCC unroll 8
        for (size_t i = 0; i < ROWS; ++i) {
          _mm512_storeu_ps(total[i], have_total ? _mm512_add_ps(_mm512_loadu_ps(total[i]), lo[i]) : lo[i]);
          lo[i] = _mm512_setzero_ps();
          if (COLS == 32) {
            _mm512_storeu_ps(total[i] + 16, have_total ? _mm512_add_ps(_mm512_loadu_ps(total[i] + 16), hi[i]) : hi[i]);
            hi[i] = _mm512_setzero_ps();
          }
          if (COLS == 24) {
            _mm256_storeu_ps(total[i] + 16,
                             have_total ? _mm256_add_ps(_mm256_loadu_ps(total[i] + 16), hi8[i]) : hi8[i]);
            hi8[i] = _mm256_setzero_ps();
          }
        }
        have_total = 1;
        in_block = 0;
      }
    }
  }
  if (have_total) {
#pragma GCC unroll 8
    for (size_t i = 0; i < ROWS; ++i) {
      lo[i] = _mm512_add_ps(_mm512_loadu_ps(total[i]), lo[i]);
      if (COLS == 32) hi[i] = _mm512_add_ps(_mm512_loadu_ps(total[i] + 16), hi[i]);
      if (COLS == 24) hi8[i] = _mm256_add_ps(_mm256_loadu_ps(total[i] + 16), hi8[i]);
    }
  }
  const __mmask16 mask_l = lanes(nc), mask_h = nc <= 16 ? (__mmask16)0 : lanes(nc - 16);
  const int hard_swish = params->hard_swish;
#pragma GCC unroll 8
  for (size_t i = 0; i < ROWS; ++i) { /* unrolled: the accumulators stay in registers */
    if (i >= mr) break;
    float* out = c + i * c_stride;
    _mm512_mask_storeu_ps(out, mask_l, finish512(lo[i], params, hard_swish));
    if (COLS == 32) _mm512_mask_storeu_ps(out + 16, mask_h, finish512(hi[i], params, hard_swish));
    if (COLS == 24) _mm256_mask_storeu_ps(out + 16, (__mmask8)mask_h, finish256(hi8[i], params, hard_swish));
  }
}

/* A plain tile: row i's k values are contiguous (one run). */
ALWAYS_INLINE void gemm_tile(const size_t ROWS, const size_t COLS, size_t mr, size_t nc, size_t k, const float* a,
                             size_t a_stride, const float* w, float* c, size_t c_stride,
                             const lite_f32_minmax_params* params) {
  gemm_tile_runs(ROWS, COLS, mr, nc, 1, k, 0, a, a_stride, w, c, c_stride, params, NULL, 0);
}

ALWAYS_INLINE void gemm_cols(const size_t COLS, size_t mr, size_t nc, size_t k, const float* a, size_t a_stride,
                             const float* w, float* c, size_t c_stride, const lite_f32_minmax_params* params) {
  if (mr > 4)
    gemm_tile(8, COLS, mr, nc, k, a, a_stride, w, c, c_stride, params);
  else if (mr > 2)
    gemm_tile(4, COLS, mr, nc, k, a, a_stride, w, c, c_stride, params);
  else if (mr == 2)
    gemm_tile(2, COLS, mr, nc, k, a, a_stride, w, c, c_stride, params);
  else
    gemm_tile(1, COLS, mr, nc, k, a, a_stride, w, c, c_stride, params);
}

void lite_f32_gemm_ukernel_8x32_avx512(size_t mr, size_t nc, size_t k, const float* a, size_t a_stride,
                                       const float* w, float* c, size_t c_stride, const lite_f32_minmax_params* params) {
  if (nc > 24)
    gemm_cols(32, mr, nc, k, a, a_stride, w, c, c_stride, params);
  else if (nc > 16)
    gemm_cols(24, mr, nc, k, a, a_stride, w, c, c_stride, params);
  else
    gemm_cols(16, mr, nc, k, a, a_stride, w, c, c_stride, params);
}

/* While its tiles compute, the panel call prefetches the next panel of packed B (adjacent in memory)
 * into L2, each tile an equal share of its cache lines, at most one line per k step. A weight too
 * large to stay cached between inferences (ResNet-18's 3x3 512 -> 512: 9.4 MB) comes from memory
 * once per panel; without this, the first tile of each panel waited for it (hardware prefetch
 * starts too late): measured 2.07 -> 1.90 ms for m 49, k 4608, n 512 with caches flushed, 0.37 ->
 * 0.28 ms for MobileNetV2's last 1x1 (m 49, k 320, n 1280); no change with warm caches. Past the end
 * of B the lines are not ours to use, but a prefetch never faults. */
void lite_f32_gemm_panel_8x32_avx512(size_t tiles, size_t k, const float* a, size_t a_stride, const float* w, float* c,
                                     size_t c_stride, const lite_f32_minmax_params* params) {
  const char* next = (const char*)(w + NR * (k + 1));
  const size_t lines = (NR * (k + 1) * sizeof(float) + 63) / 64;
  for (size_t t = 0; t < tiles; ++t, a += MR * a_stride, c += MR * c_stride) {
    const size_t first = lines * t / tiles, count = lines * (t + 1) / tiles - first;
    gemm_tile_runs(8, 32, MR, NR, 1, k, 0, a, a_stride, w, c, c_stride, params, next + first * 64,
                   count < k ? count : k);
  }
}

/* Row i's k values are `runs` runs of run_len floats at a + i * a_stride + r * run_stride (a
 * convolution's kernel rows read in place from the NHWC input); the sum order is that of the same
 * values copied contiguously (im2col), so the results are identical. */
void lite_f32_gemm_runs_8x32_avx512(size_t mr, size_t nc, size_t runs, size_t run_len, size_t run_stride,
                                    const float* a, size_t a_stride, const float* w, float* c, size_t c_stride,
                                    const lite_f32_minmax_params* params) {
  if (nc > 24) {
    if (mr > 4)
      gemm_tile_runs(8, 32, mr, nc, runs, run_len, run_stride, a, a_stride, w, c, c_stride, params, NULL, 0);
    else
      gemm_tile_runs(4, 32, mr, nc, runs, run_len, run_stride, a, a_stride, w, c, c_stride, params, NULL, 0);
  } else if (nc > 16) {
    if (mr > 4)
      gemm_tile_runs(8, 24, mr, nc, runs, run_len, run_stride, a, a_stride, w, c, c_stride, params, NULL, 0);
    else
      gemm_tile_runs(4, 24, mr, nc, runs, run_len, run_stride, a, a_stride, w, c, c_stride, params, NULL, 0);
  } else {
    if (mr > 4)
      gemm_tile_runs(8, 16, mr, nc, runs, run_len, run_stride, a, a_stride, w, c, c_stride, params, NULL, 0);
    else
      gemm_tile_runs(4, 16, mr, nc, runs, run_len, run_stride, a, a_stride, w, c, c_stride, params, NULL, 0);
  }
}
