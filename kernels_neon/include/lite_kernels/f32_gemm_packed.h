/* fp32 GEMM over a pre-packed B: C[m, n] = act(A[m, k] · B[k, n] + bias[n]).
 *
 * B (the weights) is packed once into panels of NR columns: per panel NR bias values, then k rows
 * of NR weights (columns past n are zero). A microkernel computes an MR x NR tile of C from MR rows
 * of A (read in place, any row stride: the NHWC activation itself for a 1x1 convolution) and one
 * panel, adds the bias and applies a min/max clamp (None, Relu, Clip / Relu6) or HardSwish before
 * the store; other activations run on the tile right after it, while it is in cache.
 *
 * Every element of C is computed by one microkernel call whose summation order depends only on k,
 * so any split of C into tiles (e.g. across threads) gives bit-identical results. */
#ifndef LITE_KERNELS_GEMM_F32_PACKED_H
#define LITE_KERNELS_GEMM_F32_PACKED_H

#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/activation.h"

/* Summation order of the x86 kernels and GEMV (docs/ACCURACY.md): the accumulator starts at the
 * bias and sums the first LITE_F32_GEMM_KBLOCK k values; each later block of that many is summed from
 * zero, and the blocks' sums are added in order. One chain over a long k rounds the late products at
 * the running sum's magnitude: 2.4x onnxruntime's rms error against float64 on MobileNetV2, 0.9x
 * with blocks. (Bias last, onnxruntime MLAS's order, redraws the coherent rounding errors of the
 * k <= 128 layers on clean pages: PP-OCRv4 det 4.2x.) */
#ifndef LITE_F32_GEMM_KBLOCK
#define LITE_F32_GEMM_KBLOCK 128
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  float min, max; /* clamp of the sum (None: -inf/+inf, Relu: 0/+inf, Clip / Relu6) */
  int hard_swish;  /* nonzero: then y = y * clamp(y / 6 + 0.5, 0, 1) (MobileNetV3, PP-OCR) */
} lite_f32_minmax_params;

/* Computes the top-left mr x nc (mr <= MR, nc <= NR) corner of one MR x NR tile:
 *   c[i * c_stride + j] = act(clamp(w[j] + sum_p a[i * a_stride + p] * w[NR + p * NR + j])).
 * Strides count floats. */
typedef void (*lite_f32_gemm_ukernel_fn)(size_t mr, size_t nc, size_t k, const float* a, size_t a_stride,
                                          const float* w, float* c, size_t c_stride,
                                          const lite_f32_minmax_params* params);

/* Optional: `tiles` consecutive full MR x NR tiles of one panel (rows [0, tiles * MR), all NR
 * columns), each computed exactly as the microkernel would (clamp and HardSwish included), in one
 * call: the per-call set-up is paid once per panel instead of once per tile. */
typedef void (*lite_f32_gemm_panel_fn)(size_t tiles, size_t k, const float* a, size_t a_stride, const float* w,
                                       float* c, size_t c_stride, const lite_f32_minmax_params* params);

/* Optional: the microkernel with row i's k values given as `runs` runs of run_len floats at
 * a + i * a_stride + r * run_stride (k = runs * run_len; a convolution's kernel rows read in place),
 * each element summed exactly as the microkernel sums the same values stored contiguously. */
typedef void (*lite_f32_gemm_runs_fn)(size_t mr, size_t nc, size_t runs, size_t run_len, size_t run_stride,
                                      const float* a, size_t a_stride, const float* w, float* c, size_t c_stride,
                                      const lite_f32_minmax_params* params);

typedef struct {
  lite_f32_gemm_ukernel_fn ukernel;
  uint32_t mr, nr;
  const char* name;             /* e.g. "f32_gemm_6x16_avx2" */
  lite_f32_gemm_panel_fn panel; /* NULL: the driver calls ukernel per tile */
  lite_f32_gemm_runs_fn runs;   /* NULL: no in-place convolution rows (im2col instead) */
} lite_f32_gemm_config;

/* The best microkernel for n output columns among those `features` (lite_cpu_features() bits)
 * allow and this build compiled; never NULL (the portable C microkernel needs nothing). A tile
 * wider than n does not waste work where the microkernel computes only the lanes of a narrow last
 * panel (the AVX-512 8x32 one does, for nc <= 16 and <= 24; measured 5% faster than the AVX2 6x16
 * tile at n = 16 on AMD Zen 4). This is the one place that maps CPU features to GEMM microkernels. */
const lite_f32_gemm_config* lite_f32_gemm_config_select(uint32_t features, size_t n);

/* The portable C microkernel's config (what select returns without vector features, except on
 * aarch64, where NEON is always there: LITE_CPU_HAS_NEON); for its tests. */
const lite_f32_gemm_config* lite_f32_gemm_config_portable(void);

/* Floats of packed B for n columns and depth k. */
size_t lite_f32_gemm_packed_size(const lite_f32_gemm_config* config, size_t n, size_t k);

/* Packs B given by element strides: B[p, j] = b[p * stride_k + j * stride_n]
 * (a [k, n] row-major matrix: stride_k = n, stride_n = 1; an [n, k] weight: stride_k = 1, stride_n = k).
 * bias may be NULL (zeros). */
void lite_f32_gemm_pack_b(const lite_f32_gemm_config* config, size_t n, size_t k, const float* b, size_t stride_k,
                          size_t stride_n, const float* bias, float* packed);

/* Computes C rows [0, m) and columns [n_begin, n_end) (n_begin a multiple of NR) from a (row stride lda),
 * packed B and act (NULL = none); c points at row 0, column 0 (row stride ldc). */
void lite_f32_gemm_packed_compute(const lite_f32_gemm_config* config, size_t m, size_t n_begin, size_t n_end, size_t k,
                                  const float* a, size_t lda, const float* packed_b, const lite_activation* act,
                                  float* c, size_t ldc);

/* lite_f32_gemm_packed_compute for A rows given as runs (config->runs must not be NULL): row i's
 * k = runs * run_len values are at a + i * a_stride + r * run_stride. Same results as the values
 * copied into contiguous rows. */
void lite_f32_gemm_packed_compute_runs(const lite_f32_gemm_config* config, size_t m, size_t n_begin, size_t n_end,
                                       size_t runs, size_t run_len, size_t run_stride, const float* a,
                                       size_t a_stride, const float* packed_b, const lite_activation* act, float* c,
                                       size_t ldc);

/* The microkernels (built only where the ISA is; the config selects among them). */
void lite_f32_gemm_ukernel_4x8_portable(size_t mr, size_t nc, size_t k, const float* a, size_t a_stride,
                                        const float* w, float* c, size_t c_stride, const lite_f32_minmax_params* params);
void lite_f32_gemm_ukernel_6x16_avx2(size_t mr, size_t nc, size_t k, const float* a, size_t a_stride, const float* w,
                                     float* c, size_t c_stride, const lite_f32_minmax_params* params);
void lite_f32_gemm_ukernel_8x32_avx512(size_t mr, size_t nc, size_t k, const float* a, size_t a_stride,
                                       const float* w, float* c, size_t c_stride, const lite_f32_minmax_params* params);
void lite_f32_gemm_runs_6x16_avx2(size_t mr, size_t nc, size_t runs, size_t run_len, size_t run_stride,
                                  const float* a, size_t a_stride, const float* w, float* c, size_t c_stride,
                                  const lite_f32_minmax_params* params);
void lite_f32_gemm_runs_8x32_avx512(size_t mr, size_t nc, size_t runs, size_t run_len, size_t run_stride,
                                    const float* a, size_t a_stride, const float* w, float* c, size_t c_stride,
                                    const lite_f32_minmax_params* params);
void lite_f32_gemm_panel_8x32_avx512(size_t tiles, size_t k, const float* a, size_t a_stride, const float* w, float* c,
                                     size_t c_stride, const lite_f32_minmax_params* params);
void lite_f32_gemm_ukernel_6x16_aarch64_neonfma(size_t mr, size_t nc, size_t k, const float* a, size_t a_stride,
                                                const float* w, float* c, size_t c_stride,
                                                const lite_f32_minmax_params* params);
void lite_f32_gemm_panel_6x16_aarch64_neonfma(size_t tiles, size_t k, const float* a, size_t a_stride,
                                              const float* w, float* c, size_t c_stride,
                                              const lite_f32_minmax_params* params);
void lite_f32_gemm_panel_4x8_armv7_neon(size_t tiles, size_t k, const float* a, size_t a_stride, const float* w,
                                        float* c, size_t c_stride, const lite_f32_minmax_params* params);
void lite_f32_gemm_ukernel_4x8_armv7_neon(size_t mr, size_t nc, size_t k, const float* a, size_t a_stride,
                                          const float* w, float* c, size_t c_stride,
                                          const lite_f32_minmax_params* params);

#ifdef __cplusplus
}
#endif

#endif
