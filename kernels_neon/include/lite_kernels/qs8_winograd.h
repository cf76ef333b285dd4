/* int8 Winograd F(m x m, 3 x 3), m = 2 or 4, for 3x3 stride-1 convolutions (groups 1), exact in
 * integers. n = m + 2 input points per tile side, n * n transformed points.
 *
 * F(2,3): G scaled by 2 (rows [2,0,0], [1,1,1], [1,-1,1], [0,0,2]): U = G' g G'^T = 4 G g G^T is
 *   integer, |U| <= 9 * 127. The input transform V = B^T d B of d = x - input_zero_point (|d| <= 255;
 *   padding is d = 0) has |V| <= 4 * 255. A^T M A = 4 * the direct convolution's sum.
 * F(4,3) (points 0, +-1, +-2, infinity): row i of G scaled by s = (4, 6, 6, 24, 24, 1) gives the integer
 *   rows [1,0,0], [-1,-1,-1], [-1,1,-1], [1,2,4], [1,-2,4], [0,0,1], so |U| <= 7 * 7 * 127; B^T is
 *   integer (|V| <= 10 * 10 * 255); A^T's column i scaled by 24 / s_i is integer and
 *   A'^T M A' = 576 * the direct sum (576 = 9 * 2^6).
 * Both fit int16 for U and V. The products are summed over input channels in int32 and may wrap:
 * arithmetic modulo 2^32 is exact for sums and products, so A'^T M A' = f * y (mod 2^32) for the
 * direct sum y and the factor f = 2^k * odd. Multiplying by odd^-1 (mod 2^32) leaves 2^k * y, which
 * the arithmetic shift by k recovers exactly whenever |2^k * y| < 2^31: every output channel's
 * |sum w * d| < 2^29 (F(2,3)) or 2^25 (F(4,3)). Where the input channels' sum can exceed it, they are
 * split into up to 4 parts (whole 8-channel blocks) whose sums each stay below it, each part is
 * summed and recovered on its own and the exact parts are added (lite_qs8_winograd_parts checks
 * it from the weights). Then the bias is added (saturating, as the reference's int32 clamp) and the output requantized
 * like every int8 kernel: the output equals lite_qs8_conv2d_nhwc_ref byte for byte.
 *
 * Layouts (8-channel blocks; cb = ceil(in_c / 8) input blocks, t = n * i + j the points):
 *   packed weight  a 64-byte header, then per block of 8 output channels U[t][cb][ci 8][co 8] int16,
 *                  then bias, multiplier, shift int32 [co rounded to 8] (zeros past out_c)
 *   V (scratch)    per group of 8 tiles: [t][cb][tile 8][ci 8] int16
 *   M (scratch)    per group and output block: [part][t][tile 8][co 8] int32, then in_c zero points
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
#define LITE_QS8_WINOGRAD_MAX_POINTS 36
#define LITE_QS8_WINOGRAD_MAX_PARTS 4

/* The three per-ISA parts of one F(m,3) convolution.
 * input:   B^T d B of one tile: px[t] points at the input pixel of point t (channel 0) or, for
 *          padding, at in_c bytes equal to input_zero_point (d = 0); writes v[(t * cb + b) * 64 + c] for
 *          every channel c of block b (tile slot 0 of the group: the caller offsets v by 8 * tile);
 *          channels past in_c are written as 0.
 * product: m[t][tile][co] = sum over cb blocks of v[t][b][tile][ci] * u[t][b][ci][co] (int32, wrapping),
 *          for the `points` points (shared by both m); v and u start at the part's first block and
 *          step `stride` blocks from point to point; `tiles` (1..8) of the group are live: with at most
 *          4, only tiles 0-3 are read and written (the last group of a layer does half the work).
 * output:  the exact direct sum (that of each of the `parts` M, added) + bias, requantized, for the group's tiles whose dst[tile]
 *          is not NULL: dst is the tile's top-left output pixel (channel of the block's first output
 *          channel); shape[tile] = rows << 4 | columns, the output rows and columns (1..m) the tile has;
 *          nc (1..8) channels stored; epilogue points at the block's bias[8], multiplier[8], shift[8]
 *          (stride co_pad between the three arrays). */
typedef struct {
  void (*input)(const int8_t* const* px, size_t in_c, size_t cb, int32_t input_zero_point, int16_t* v);
  void (*product)(size_t points, size_t tiles, size_t stride, size_t cb, const int16_t* v, const int16_t* u,
                  int32_t* m);
  void (*output)(const int32_t* m, size_t parts, size_t nc, const int32_t* epilogue, size_t co_pad,
                 const lite_qs8_gemm_params* params, int8_t* const dst[8], const uint8_t shape[8],
                 size_t row_stride, size_t pixel_stride);
  size_t tile; /* m: output pixels per tile side */
  const char* name;
} lite_qs8_winograd_kernel;

extern const lite_qs8_winograd_kernel lite_qs8_winograd_f23_portable;
extern const lite_qs8_winograd_kernel lite_qs8_winograd_f43_portable;
#if defined(__aarch64__)
extern const lite_qs8_winograd_kernel lite_qs8_winograd_f23_aarch64_neon;
extern const lite_qs8_winograd_kernel lite_qs8_winograd_f43_aarch64_neon;
#endif
#if defined(__arm__)
extern const lite_qs8_winograd_kernel lite_qs8_winograd_f23_armv7_neon;
extern const lite_qs8_winograd_kernel lite_qs8_winograd_f43_armv7_neon;
#endif

/* 3x3, stride 1, dilation 1, groups 1, nonempty: the shapes F(m,3) computes. */
int lite_qs8_winograd_applies(const lite_conv2d_params* p);

/* The fewest parts (1..4, contiguous runs of 8-channel input blocks) in which every output channel's
 * |sum w * (x - input_zero_point)| over a part stays below 2^29 (tile 2) or 2^25 (tile 4) for any int8 x
 * (weight in the .lite layout [out_c, 3, 3, in_c]); 0 where 4 parts are not enough (inexact). */
size_t lite_qs8_winograd_parts(const lite_conv2d_params* p, const int8_t* weight, int32_t input_zero_point,
                               size_t tile);

/* The cost rule: the tile (2 or 4) of the exact F(m,3) that takes the fewest instructions, or 0 where
 * the packed direct GEMM the CPU `features` select takes fewer (always with dotprod / i8mm, and
 * everywhere but ARM NEON). `saving` (may be NULL) gets the instructions per run the chosen tile saves
 * against the direct GEMM (0 for none). */
size_t lite_qs8_winograd_choose(uint32_t features, const lite_conv2d_params* p, const int8_t* weight,
                                int32_t input_zero_point, double* saving);

/* The fastest kernel for `features` and `tile` (portable where there is no NEON). */
const lite_qs8_winograd_kernel* lite_qs8_winograd_select(uint32_t features, size_t tile);

size_t lite_qs8_winograd_packed_size(const lite_conv2d_params* p, size_t tile);
/* bias may be NULL; multiplier / shift have out_c entries (requantize.h). `packed` 4-byte aligned.
 * Only for a tile whose lite_qs8_winograd_parts is not 0 (the packed weight records the parts). */
void lite_qs8_winograd_pack(const lite_conv2d_params* p, size_t tile, const int8_t* weight, const int32_t* bias,
                            int32_t input_zero_point, const int32_t* multiplier, const int32_t* shift, void* packed);

/* Groups of 8 tiles in the whole batch and blocks of 8 output channels: the units of work (any split of
 * [0, groups) x [0, blocks) across threads gives the same bytes). */
size_t lite_qs8_winograd_groups(const lite_conv2d_params* p, size_t tile);
size_t lite_qs8_winograd_blocks(const lite_conv2d_params* p);
/* Bytes of scratch one call of lite_qs8_winograd_run needs (16-byte aligned). */
size_t lite_qs8_winograd_scratch_size(const lite_conv2d_params* p, size_t tile);

/* Groups [group_begin, group_end) x output-channel blocks [block_begin, block_end) of the convolution of
 * x into y (NHWC int8); `packed` was packed for kernel->tile. Each call transforms its groups' input
 * again: a split over blocks repeats the input transform, not the products. */
void lite_qs8_winograd_run(const lite_qs8_winograd_kernel* kernel, const lite_conv2d_params* p, const void* packed,
                           const lite_qs8_gemm_params* params, const int8_t* x, int8_t* y, size_t group_begin,
                           size_t group_end, size_t block_begin, size_t block_end, void* scratch);

#ifdef __cplusplus
}
#endif

#endif
