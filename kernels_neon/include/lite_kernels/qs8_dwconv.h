/* Fast int8 depthwise convolution (NHWC, groups == in_c == out_c), any kernel size, stride,
 * dilation and padding, giving exactly lite_qs8_conv2d_nhwc_ref's bytes.
 *
 * The weight is packed once (at prepare) with the input zero point folded into the bias
 * (bias - zp_in * sum of the channel's taps) and the per-channel requantization; a padded tap then
 * reads a row of zero-point bytes (real 0) that the packed buffer ends with, so every output pixel
 * is one loop over kernel_h * kernel_w tap pointers. Packed layout (see portable/qs8_dwconv_pack.c):
 * blocks of 32 channels; per block int32 bias[32], the taps in pairs as int16 (w_t0, w_t1) per
 * channel, int32 multiplier[32], shift[32], channels in the order vpunpck{l,h}wd leaves them
 * (per 128-bit lane: 4 channels in the low half, the next 4 in the high half). Which taps form a
 * pair is lite_qs8_dwconv_pair_slots: in order, or for 3x3 kernels of stride 1 (2) along W per kernel
 * row (kw0, kw1), (none, kw2) ((kw2, none)), so the interleaved pair of input columns (j, j+1) serves
 * two adjacent output pixels (lite_qs8_dwconv_3x3s{1,2}_avx512vnni reuse it). */
#ifndef LITE_KERNELS_QS8_DWCONV_H
#define LITE_KERNELS_QS8_DWCONV_H

#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/conv2d.h"
#include "lite_kernels/qs8_gemm_packed.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kernels with more taps (kernel_h * kernel_w) run the reference. */
#define LITE_QS8_DWCONV_MAX_TAPS 64

/* The taps of each weight pair: slots[2q], slots[2q + 1] (-1: no tap, weight 0); returns the number of
 * pairs. slots has room for LITE_QS8_DWCONV_MAX_TAPS * 2 entries. */
static inline size_t lite_qs8_dwconv_pair_slots(const lite_conv2d_params* p, int* slots) {
  const size_t taps = p->kernel_h * p->kernel_w;
  if (p->kernel_h == 3 && p->kernel_w == 3 && (p->stride_w == 1 || p->stride_w == 2) && p->dilation_w == 1) {
    for (int r = 0; r < 3; ++r) { /* stride 1: (kw0, kw1), (none, kw2); stride 2: (kw0, kw1), (kw2, none) */
      slots[4 * r] = 3 * r;
      slots[4 * r + 1] = 3 * r + 1;
      slots[4 * r + 2] = p->stride_w == 1 ? -1 : 3 * r + 2;
      slots[4 * r + 3] = p->stride_w == 1 ? 3 * r + 2 : -1;
    }
    return 6;
  }
  for (size_t t = 0; t < taps; ++t) slots[t] = (int)t;
  if (taps % 2) slots[taps] = -1;
  return (taps + 1) / 2;
}

/* Output rows [row_begin, row_end) of batch * out_h, from the packed weight. */
typedef void (*lite_qs8_dwconv_fn)(const lite_conv2d_params* p, const void* packed, const lite_qs8_gemm_params* params,
                                   const int8_t* input, int8_t* output, size_t row_begin, size_t row_end);

/* The fast kernel `features` allow for p, or NULL (then run lite_qs8_conv2d_nhwc_ref). */
lite_qs8_dwconv_fn lite_qs8_dwconv_select(uint32_t features, const lite_conv2d_params* p);

/* Whether p is a depthwise convolution the fast kernel takes and its int32 sums are exact
 * (lite_qs8_gemm_is_exact over the taps). */
int lite_qs8_dwconv_applies(const lite_conv2d_params* p, const int32_t* bias);

size_t lite_qs8_dwconv_packed_size(const lite_conv2d_params* p);

/* weight in the .lite layout [c, kh, kw, 1]; bias may be NULL; multiplier / shift per channel. */
void lite_qs8_dwconv_pack(const lite_conv2d_params* p, const int8_t* weight, const int32_t* bias,
                          int32_t input_zero_point, const int32_t* multiplier, const int32_t* shift, void* packed);

void lite_qs8_dwconv_avx512(const lite_conv2d_params* p, const void* packed, const lite_qs8_gemm_params* params,
                            const int8_t* input, int8_t* output, size_t row_begin, size_t row_end);
void lite_qs8_dwconv_avx2(const lite_conv2d_params* p, const void* packed, const lite_qs8_gemm_params* params,
                          const int8_t* input, int8_t* output, size_t row_begin, size_t row_end);
/* 3x3, stride_w 1 (2), dilation_w 1 only (any stride_h, dilation_h, padding). */
void lite_qs8_dwconv_3x3s1_avx512vnni(const lite_conv2d_params* p, const void* packed,
                                      const lite_qs8_gemm_params* params, const int8_t* input, int8_t* output,
                                      size_t row_begin, size_t row_end);
void lite_qs8_dwconv_3x3s2_avx512vnni(const lite_conv2d_params* p, const void* packed,
                                      const lite_qs8_gemm_params* params, const int8_t* input, int8_t* output,
                                      size_t row_begin, size_t row_end);
/* 5x5, stride_w 1, dilation_w 1 only (any stride_h, dilation_h, padding). */
void lite_qs8_dwconv_5x5s1_avx512vnni(const lite_conv2d_params* p, const void* packed,
                                      const lite_qs8_gemm_params* params, const int8_t* input, int8_t* output,
                                      size_t row_begin, size_t row_end);

#ifdef __cplusplus
}
#endif

#endif
