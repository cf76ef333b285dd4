/* int8 Winograd F(2x2, 3x3) for 3x3 stride-1 convolutions (groups 1), exact in integers.
 *
 * With G scaled by 2 (rows [2,0,0], [1,1,1], [1,-1,1], [0,0,2]) the weight transform
 * U = G' g G'^T = 4 G g G^T is integer, |U| <= 9 * 127 (int16). The input transform V = B^T d B of
 * d = x - input_zero_point (|d| <= 255; padding is d = 0) has |V| <= 4 * 255 (int16). The products
 * U * V (|.| <= 1143 * 1020 < 2^21) are summed over input channels in int32 and A^T M A = 4 * the
 * direct convolution's sum. The int32 sums may wrap: arithmetic modulo 2^32 is exact for sums and
 * products, so the result is exact whenever the true sum fits, i.e. when every output channel's
 * |sum w * d| < 2^29 (lite_qs8_winograd_is_exact checks it from the weights). Then the bias is added
 * (saturating, as the reference's int32 clamp) and the output requantized like every int8 kernel:
 * the output equals lite_qs8_conv2d_nhwc_ref byte for byte.
 *
 * Layouts (8-channel blocks; cb = ceil(in_c / 8) input blocks, t = 4 * i + j the 16 points):
 *   packed weight  a 64-byte header, then per block of 8 output channels U[t][cb][ci 8][co 8] int16,
 *                  then bias, multiplier, shift int32 [co rounded to 8] (zeros past out_c)
 *   V (scratch)    per group of 8 tiles: [t][cb][tile 8][ci 8] int16
 *   M (scratch)    per group and output block: [t][tile 8][co 8] int32, then in_c zero points
 * Tiles are numbered over (image, tile row, tile column) and run in groups of 8. */
#ifndef LITE_KERNELS_QS8_WINOGRAD_H
#define LITE_KERNELS_QS8_WINOGRAD_H

#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/conv2d.h"
#include "lite_kernels/qs8_gemm_packed.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LITE_QS8_WINOGRAD_GROUP 8 /* tiles per group, channels per block */

/* The three per-ISA parts of the F(2,3) convolution.
 * input:   B^T d B of one tile: px[t] points at the input pixel of point t (channel 0) or, for
 *          padding, at in_c bytes equal to input_zero_point (d = 0); writes v[(t * cb + b) * 64 + c] for every channel c of block b (tile slot 0 of
 *          the group: the caller offsets v by 8 * tile); channels past in_c are written as 0.
 * product: m[t][tile][co] = sum over cb blocks of v[t][b][tile][ci] * u[t][b][ci][co] (int32, wrapping).
 * output:  A^T M A / 4 + bias, requantized, for the group's tiles whose dst[tile] is not NULL: dst
 *          is the tile's top-left output pixel (channel of the block's first output channel);
 *          shape[tile] bit 0: the right column exists, bit 1: the bottom row exists; nc (1..8)
 *          channels stored; epilogue points at the block's bias[8], multiplier[8], shift[8] (stride
 *          co_pad between the three arrays). */
typedef struct {
  void (*input)(const int8_t* const px[16], size_t in_c, size_t cb, int32_t input_zero_point, int16_t* v);
  void (*product)(size_t cb, const int16_t* v, const int16_t* u, int32_t* m);
  void (*output)(const int32_t* m, size_t nc, const int32_t* epilogue, size_t co_pad,
                 const lite_qs8_gemm_params* params, int8_t* const dst[8], const uint8_t shape[8],
                 size_t row_stride, size_t pixel_stride);
  const char* name;
} lite_qs8_winograd_kernel;

extern const lite_qs8_winograd_kernel lite_qs8_winograd_f23_portable;
#if defined(__aarch64__)
extern const lite_qs8_winograd_kernel lite_qs8_winograd_f23_aarch64_neon;
#endif
#if defined(__arm__)
extern const lite_qs8_winograd_kernel lite_qs8_winograd_f23_armv7_neon;
#endif

/* 3x3, stride 1, dilation 1, groups 1, nonempty: the shapes F(2,3) computes. */
int lite_qs8_winograd_applies(const lite_conv2d_params* p);

/* Whether every output channel's |sum w * (x - input_zero_point)| stays below 2^29 for any int8 x
 * (weight in the .lite layout [out_c, 3, 3, in_c]): the condition for exact results. */
int lite_qs8_winograd_is_exact(const lite_conv2d_params* p, const int8_t* weight, int32_t input_zero_point);

/* The cost rule: 1 where F(2,3) with kernel `k` takes fewer instructions than the packed direct GEMM
 * the CPU `features` select (only ARM NEON without dotprod / i8mm; never the portable kernel). */
int lite_qs8_winograd_pays(uint32_t features, const lite_conv2d_params* p);

/* The fastest kernel for `features` (portable where there is no NEON). */
const lite_qs8_winograd_kernel* lite_qs8_winograd_select(uint32_t features);

size_t lite_qs8_winograd_packed_size(const lite_conv2d_params* p);
/* bias may be NULL; multiplier / shift have out_c entries (requantize.h). `packed` 4-byte aligned. */
void lite_qs8_winograd_pack(const lite_conv2d_params* p, const int8_t* weight, const int32_t* bias,
                            int32_t input_zero_point, const int32_t* multiplier, const int32_t* shift, void* packed);

/* Groups of 8 tiles in the whole batch; the unit of work (any split of [0, groups) across threads). */
size_t lite_qs8_winograd_groups(const lite_conv2d_params* p);
/* Bytes of scratch one call of lite_qs8_winograd_run needs (16-byte aligned). */
size_t lite_qs8_winograd_scratch_size(const lite_conv2d_params* p);

/* Groups [group_begin, group_end) of the convolution of x into y (NHWC int8). */
void lite_qs8_winograd_run(const lite_qs8_winograd_kernel* kernel, const lite_conv2d_params* p, const void* packed,
                           const lite_qs8_gemm_params* params, const int8_t* x, int8_t* y, size_t group_begin,
                           size_t group_end, void* scratch);

#ifdef __cplusplus
}
#endif

#endif
