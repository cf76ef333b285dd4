/* Winograd convolution F(m x m, 3 x 3), NHWC fp32, for 3x3 stride-1 dilation-1 convolutions with
 * groups == 1 (Lavin & Gray 2015). m = 2, 4 or 6 (tile of alpha = m + 2 input pixels per side); m = 7 for
 * stride 2 (below).
 *
 *   weights  G g G^T per (out_c, in_c) pair, done once (lite_f32_winograd_pack_weight) and packed as
 *            alpha^2 GEMM right-hand sides [in_c x out_c] in the packed-GEMM layout (f32_gemm_packed.h)
 *   input    per tile: B^T d B (vectorized over channels; out-of-image pixels read as zero, which is
 *            how any padding is served), into alpha^2 matrices [tiles x in_c]
 *   multiply alpha^2 batched GEMMs [tiles x in_c] x [in_c x out_c] by the packed GEMM microkernels;
 *            on aarch64 by the variant's own 4x16 lane-FMA kernel over the same packed B (0.30
 *            instructions per multiply-add under qemu, f32_winograd_nhwc_aarch64_neonfma.c)
 *   output   per tile: A^T M A + bias, fused activation, store of the pixels inside the output
 * Tiles are processed in blocks (sized to keep the transformed data in cache) over a range of tile
 * rows, so a thread pool can split the tile rows: every output value is computed identically
 * whatever the split (bit-identical). The transform matrices are generated and verified exactly by
 * kernels_neon/tools/winograd_transforms.py.
 *
 * Stride 2 (m = 7): the 3x3 stride-2 convolution is split into its four input phases (even / odd
 * rows x columns): y[oy][ox] = sum over phases ph = (py, px) of a stride-1 2x2 correlation of the
 * phase image P_ph[i][j] = x[2i + py - pad_top][2j + px - pad_left] with the sub-kernel
 * w_ph[a][b] = w[2a + py][2b + px] (zero where 2a + py or 2b + px > 2). That is one stride-1 2x2
 * convolution over 4 * in_c channels, computed as F(7x7, 2x2) (alpha 8, the points and B^T of
 * F(6,3)): 64 products per 49 outputs and input channel against 4 * 9 for the same work direct. The
 * input transform reads the phases straight from the NHWC input (no copy); each phase's channels
 * take lite_f32_winograd_gemm_k(...) / 4 slots (in_c rounded up to 16, zeros beyond in_c).
 *
 * Accuracy (measured, unit-scale data, vs float64): max relative error (to max|ref|) about 2e-6 for
 * F(2,3), 1e-5 for F(4,3), 2e-5 for F(6,3), against 3e-7..1e-6 for a direct fp32 sum; the tests
 * bound them by 1e-5, 5e-5 and 1e-4 * max(1, max|ref|). */
#ifndef LITE_KERNELS_WINOGRAD_H
#define LITE_KERNELS_WINOGRAD_H

#include <stddef.h>

#include "lite_kernels/activation.h"
#include "lite_kernels/conv2d.h"
#include "lite_kernels/f32_gemm_packed.h"

#ifdef __cplusplus
extern "C" {
#endif

/* True for a convolution Winograd computes: 3x3 kernel, stride 1 (F(m, 3)) or 2 in both axes (F(7, 2)
 * on the input phases), dilation 1, groups 1. */
int lite_f32_winograd_applies(const lite_conv2d_params* params);

/* The cost rule: 0 (direct / im2col-GEMM), 2 (F(2,3)), 4 (F(4,3)) or 6 (F(6,3)) for a convolution with these
 * channels and output size, the cheapest by operation count (see the definition for the counts). */
int lite_f32_winograd_choose(size_t in_c, size_t out_c, size_t out_h, size_t out_w);

/* The rule's estimate for tile size m (0: direct / im2col-GEMM), in multiply-adds; and the extra cost
 * of a run without the kept transformed weight (the weight transformed per block of tiles). The
 * packed-weight budget (runtime_arm/src/ops/conv2d_winograd.cc) weighs one against the other. */
double lite_f32_winograd_cost(int m, size_t in_c, size_t out_c, size_t out_h, size_t out_w);
double lite_f32_winograd_transform_cost(int m, const lite_conv2d_params* params);

/* The stride-2 cost rule: 7 (F(7,2) on the four input phases) or 0 (direct / im2col-GEMM). */
int lite_f32_winograd_choose_stride2(size_t in_c, size_t out_c, size_t out_h, size_t out_w);

/* The depth of the per-position products: in_c for stride 1; for stride 2 (m = 7), 4 phases of in_c
 * rounded up to 16 channels. */
size_t lite_f32_winograd_gemm_k(int m, const lite_conv2d_params* params);

/* Floats of the transformed, packed weight for tile size m (2, 4, 6; 7 for stride 2) and the GEMM config. */
size_t lite_f32_winograd_packed_weight_size(const lite_f32_gemm_config* gemm, int m, const lite_conv2d_params* params);

/* weight [out_c, 3, 3, in_c] (the .lite layout) -> transformed and packed; bias is not folded in.
 * Returns 0 when its temporary buffer (in_c * out_c floats) cannot be allocated, else 1. */
int lite_f32_winograd_pack_weight(const lite_f32_gemm_config* gemm, int m, const lite_conv2d_params* params,
                                  const float* weight, float* packed);

/* U = G g G^T (m = 2, 4, 6) of output channels [co_begin, co_end) (co_begin a multiple of gemm->nr)
 * into their packed-GEMM panels: position t's panels at out + t * t_stride, panel by panel from there,
 * bias rows zero. lite_f32_winograd_pack_weight does the whole range with this function, and a run
 * without a packed weight (packed_weight NULL below) one panel at a time, so both give the same bits. */
void lite_f32_winograd_transform_weight(const lite_f32_gemm_config* gemm, int m, const lite_conv2d_params* params,
                                        const float* weight, size_t co_begin, size_t co_end, float* out,
                                        size_t t_stride);

/* Number of tile rows of the whole batch (the unit of the row range): batch * ceil(out_h / m). */
size_t lite_f32_winograd_tile_rows(int m, const lite_conv2d_params* params);

/* Tiles transformed and multiplied together (a block): enough rows for the GEMM to reuse each packed
 * weight panel, few enough for the block's transformed data to stay in cache. */
size_t lite_f32_winograd_block_tiles(int m, const lite_conv2d_params* params);

/* Floats of scratch one call needs (one per concurrent worker). */
size_t lite_f32_winograd_scratch_size(int m, const lite_conv2d_params* params);

/* The same for a call without a packed weight (m = 2, 4, 6): plus one panel of transformed weight
 * (alpha^2 * gemm->nr * (in_c + 1) floats). */
size_t lite_f32_winograd_scratch_size_unpacked(const lite_f32_gemm_config* gemm, int m,
                                               const lite_conv2d_params* params);

/* Computes output channels [co_begin, co_end) of tile rows [tile_row_begin, tile_row_end). co_begin is
 * a multiple of gemm->nr, co_end one too or out_c (the whole range: 0, out_c). Each output value is
 * computed the same way for any split of rows or channels. bias and act may be NULL. packed_weight
 * NULL (m = 2, 4, 6 only): no transformed weight is kept; each block of tiles transforms `weight`
 * (the .lite [out_c, 3, 3, in_c]) one panel of output channels at a time into scratch (sized by
 * lite_f32_winograd_scratch_size_unpacked) and discards it: the same values as with the packed
 * weight, bit for bit, for alpha^2 / 9 of the 3x3 weight less memory and one transform per panel and
 * block of tiles (about alpha^2 operations per channel pair, against tiles * alpha^2 multiply-adds of
 * the products). Otherwise `weight` is not read. */
typedef void (*lite_f32_winograd_fn)(const lite_f32_gemm_config* gemm, int m, const lite_conv2d_params* params,
                                     const float* input, const float* packed_weight, const float* weight,
                                     const float* bias,
                                     const lite_activation* act, float* output, float* scratch,
                                     size_t tile_row_begin, size_t tile_row_end, size_t co_begin, size_t co_end);

#define LITE_F32_WINOGRAD_DECLARE(name)                                                                          \
  void name(const lite_f32_gemm_config* gemm, int m, const lite_conv2d_params* params, const float* input,     \
            const float* packed_weight, const float* weight, const float* bias, const lite_activation* act,  \
            float* output, float* scratch, size_t tile_row_begin, size_t tile_row_end, size_t co_begin,        \
            size_t co_end)
LITE_F32_WINOGRAD_DECLARE(lite_f32_winograd_nhwc_portable);
#if defined(__x86_64__)
LITE_F32_WINOGRAD_DECLARE(lite_f32_winograd_nhwc_avx2);
LITE_F32_WINOGRAD_DECLARE(lite_f32_winograd_nhwc_avx512);
#endif
#if defined(__aarch64__)
LITE_F32_WINOGRAD_DECLARE(lite_f32_winograd_nhwc_aarch64_neonfma);
#endif
#if defined(__arm__)
LITE_F32_WINOGRAD_DECLARE(lite_f32_winograd_nhwc_armv7_neonfma);
#endif

/* The transform variant for this CPU (lite_cpu_features(), so LITE_CPU_FEATURES_MASK applies). The
 * channel padding of the transformed data depends on the variant's vector width, which the scratch
 * size already allows for (the widest, 16). Unlike the depthwise kernels, no per-channel-count choice:
 * the GEMMs dominate and AVX-512 measured as fast or faster than AVX2 even at 24 channels. */
lite_f32_winograd_fn lite_f32_winograd_select(void);
const char* lite_f32_winograd_selected_name(void);

#ifdef __cplusplus
}
#endif

#endif
