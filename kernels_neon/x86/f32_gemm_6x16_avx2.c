/* Packed fp32 GEMM microkernel, 6 rows x 16 columns, AVX2 + FMA.
 * 12 ymm accumulators + 2 for the B row + 1 broadcast of A = 15 of 16 registers; per k step
 * 2 loads of B and 6 broadcasts feed 12 FMAs, enough independent chains to hide FMA latency
 * (4-5 cycles x 2 ports).
 * Edge tiles with fewer rows run the same loop for 4, 2 or 1 rows; a last panel of at most 8
 * columns (widths 24, 36-40, 72, 88...) only its low 8 packed columns, one accumulator per row (half
 * the FMAs). Each accumulator sums in the order of f32_gemm_packed.h (the bias and the first block
 * of k values, each later block from zero, the blocks' sums in order), so a row's result does not
 * depend on the variant, nor on whether its k values are contiguous or given as runs. */
#include <immintrin.h>
#include <string.h>

#include "lite_kernels/f32_gemm_packed.h"

enum { MR = 6, NR = 16 };

/* acc[i] += sum over the next `len` k values of row i (rows_r[i] + p) times the panel rows at w. */
static inline __attribute__((always_inline)) void k_steps(const size_t ROWS, const size_t COLS,
                                                          const float* const* rows_r, size_t p, size_t len,
                                                          const float* w, __m256 acc[][2]) {
  for (size_t end = p + len; p < end; ++p, w += NR) {
    const __m256 bl = _mm256_loadu_ps(w), bh = COLS == 16 ? _mm256_loadu_ps(w + 8) : _mm256_setzero_ps();
#pragma GCC unroll 6
    for (size_t i = 0; i < ROWS; ++i) {
      const __m256 x = _mm256_broadcast_ss(rows_r[i] + p);
      acc[i][0] = _mm256_fmadd_ps(x, bl, acc[i][0]);
      if (COLS == 16) acc[i][1] = _mm256_fmadd_ps(x, bh, acc[i][1]);
    }
  }
}

/* The tile for ROWS rows and the first COLS (8 or 16) columns of the panel (compile-time constants
 * after inlining: the arrays live in registers). Row i's k = runs * run_len values are `runs` runs
 * of run_len floats at a + i * a_stride + r * run_stride (one run: a plain GEMM row; several: a
 * convolution's kernel rows read in place from the NHWC input instead of an im2col copy).
 * Blocks of LITE_F32_GEMM_KBLOCK k values are counted over the whole row, across runs. */
static inline __attribute__((always_inline)) void gemm_tile_runs(const size_t ROWS, const size_t COLS, size_t mr,
                                                                 size_t nc, size_t runs, size_t run_len,
                                                                 size_t run_stride, const float* a, size_t a_stride,
                                                                 const float* w, float* c, size_t c_stride,
                                                                 const lite_f32_minmax_params* params) {
  const float* rows[MR];
#pragma GCC unroll 6
  for (size_t i = 0; i < ROWS; ++i) rows[i] = a + (i < mr ? i : mr - 1) * a_stride;
  const float* bias = w; /* the first block starts at the bias */
  w += NR;
  __m256 acc[MR][2];
  const __m256 bias_l = _mm256_loadu_ps(bias), bias_h = COLS == 16 ? _mm256_loadu_ps(bias + 8) : _mm256_setzero_ps();
#pragma GCC unroll 6
  for (size_t i = 0; i < ROWS; ++i) {
    acc[i][0] = bias_l;
    acc[i][1] = bias_h;
  }
  float total[MR][NR]; /* the sum of the finished k blocks (in memory: a second register set spills) */
  size_t in_block = 0, left = runs * run_len;
  int have_total = 0;
  for (size_t r = 0; r < runs; ++r) {
    const float* rows_r[MR];
#pragma GCC unroll 6
    for (size_t i = 0; i < ROWS; ++i) rows_r[i] = rows[i] + r * run_stride;
    for (size_t p = 0; p < run_len;) {
      const size_t room = LITE_F32_GEMM_KBLOCK - in_block, len = run_len - p < room ? run_len - p : room;
      k_steps(ROWS, COLS, rows_r, p, len, w, acc);
      p += len;
      w += len * NR;
      in_block += len;
      left -= len;
      if (in_block == LITE_F32_GEMM_KBLOCK && left != 0) { /* a block ends and another follows */
#pragma GCC unroll 6
        for (size_t i = 0; i < ROWS; ++i)
          for (size_t h = 0; h < COLS / 8; ++h) {
            const __m256 sum = have_total ? _mm256_add_ps(_mm256_loadu_ps(total[i] + 8 * h), acc[i][h]) : acc[i][h];
            _mm256_storeu_ps(total[i] + 8 * h, sum);
            acc[i][h] = _mm256_setzero_ps();
          }
        have_total = 1;
        in_block = 0;
      }
    }
  }
  if (have_total) {
#pragma GCC unroll 6
    for (size_t i = 0; i < ROWS; ++i)
      for (size_t h = 0; h < COLS / 8; ++h) acc[i][h] = _mm256_add_ps(_mm256_loadu_ps(total[i] + 8 * h), acc[i][h]);
  }
  const __m256 lo = _mm256_set1_ps(params->min), hi = _mm256_set1_ps(params->max);
  const int hard_swish = params->hard_swish;
#pragma GCC unroll 6
  for (size_t i = 0; i < ROWS; ++i) { /* unrolled: acc stays in registers */
    if (i >= mr) break;
    __m256 v[2];
    for (size_t h = 0; h < COLS / 8; ++h) {
      v[h] = _mm256_min_ps(hi, _mm256_max_ps(lo, acc[i][h])); /* NaN stays */
      if (hard_swish) { /* x * clamp(x * (1/6) + 0.5, 0, 1): one FMA (a division per vector cost more than a k step) */
        const __m256 sixth = _mm256_set1_ps(1.0f / 6.0f), half = _mm256_set1_ps(0.5f), zero = _mm256_setzero_ps(),
                     one = _mm256_set1_ps(1.0f);
        v[h] = _mm256_mul_ps(v[h], _mm256_min_ps(one, _mm256_max_ps(zero, _mm256_fmadd_ps(v[h], sixth, half))));
      }
    }
    float* out = c + i * c_stride;
    if (nc == COLS) {
      for (size_t h = 0; h < COLS / 8; ++h) _mm256_storeu_ps(out + 8 * h, v[h]);
    } else {
      float tmp[NR];
      for (size_t h = 0; h < COLS / 8; ++h) _mm256_storeu_ps(tmp + 8 * h, v[h]);
      memcpy(out, tmp, nc * sizeof(float));
    }
  }
}

static inline __attribute__((always_inline)) void gemm_runs(size_t mr, size_t nc, size_t runs, size_t run_len,
                                                            size_t run_stride, const float* a, size_t a_stride,
                                                            const float* w, float* c, size_t c_stride,
                                                            const lite_f32_minmax_params* params) {
  if (nc <= 8) {
    if (mr > 4)
      gemm_tile_runs(6, 8, mr, nc, runs, run_len, run_stride, a, a_stride, w, c, c_stride, params);
    else if (mr > 2)
      gemm_tile_runs(4, 8, mr, nc, runs, run_len, run_stride, a, a_stride, w, c, c_stride, params);
    else
      gemm_tile_runs(2, 8, mr, nc, runs, run_len, run_stride, a, a_stride, w, c, c_stride, params);
  } else if (mr > 4) {
    gemm_tile_runs(6, 16, mr, nc, runs, run_len, run_stride, a, a_stride, w, c, c_stride, params);
  } else if (mr > 2) {
    gemm_tile_runs(4, 16, mr, nc, runs, run_len, run_stride, a, a_stride, w, c, c_stride, params);
  } else if (mr == 2) {
    gemm_tile_runs(2, 16, mr, nc, runs, run_len, run_stride, a, a_stride, w, c, c_stride, params);
  } else {
    gemm_tile_runs(1, 16, mr, nc, runs, run_len, run_stride, a, a_stride, w, c, c_stride, params);
  }
}

void lite_f32_gemm_ukernel_6x16_avx2(size_t mr, size_t nc, size_t k, const float* a, size_t a_stride, const float* w,
                                     float* c, size_t c_stride, const lite_f32_minmax_params* params) {
  gemm_runs(mr, nc, 1, k, 0, a, a_stride, w, c, c_stride, params);
}

/* Row i's k values as `runs` runs (lite_f32_gemm_runs_fn): the kernel-row path of a convolution. */
void lite_f32_gemm_runs_6x16_avx2(size_t mr, size_t nc, size_t runs, size_t run_len, size_t run_stride,
                                  const float* a, size_t a_stride, const float* w, float* c, size_t c_stride,
                                  const lite_f32_minmax_params* params) {
  gemm_runs(mr, nc, runs, run_len, run_stride, a, a_stride, w, c, c_stride, params);
}
