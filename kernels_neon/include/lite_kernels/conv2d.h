/* 2-D convolution on channels-last (NHWC) data, fp32.
 *
 * The weight is given in the .lite layout [out_c, kernel_h, kernel_w, in_c / groups] and packed once
 * by lite_f32_conv2d_pack_weight_ref into [kernel_h, kernel_w, in_c / groups, out_c]: with that
 * layout the innermost loop of the convolution runs over contiguous output channels, which the
 * compiler vectorizes without reassociating sums (so the result is the same at every -O level). */
#ifndef LITE_KERNELS_CONV2D_H
#define LITE_KERNELS_CONV2D_H

#include <stddef.h>

#include "lite_kernels/activation.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  size_t batch, in_h, in_w, in_c;
  size_t out_h, out_w, out_c;
  size_t kernel_h, kernel_w;
  size_t stride_h, stride_w;
  size_t dilation_h, dilation_w;
  size_t pad_top, pad_left; /* leading pads; trailing pads are implied by out_h / out_w */
  size_t groups;            /* in_c and out_c are multiples of groups; depthwise: groups == in_c */
} lite_conv2d_params;

/* Number of floats of the packed weight (equal to the number of weights). */
size_t lite_f32_conv2d_packed_weight_size(const lite_conv2d_params* params);

/* [out_c, kh, kw, in_c/groups] -> [kh, kw, in_c/groups, out_c]. */
void lite_f32_conv2d_pack_weight_ref(const lite_conv2d_params* params, const float* weight, float* packed);

/* output[n, oh, ow, oc] = act(bias[oc] + sum over kh, kw, ic of input * weight).
 * bias may be NULL; act may be NULL (no activation). */
void lite_f32_conv2d_nhwc_ref(const lite_conv2d_params* params, const float* input, const float* packed_weight,
                              const float* bias, const lite_activation* act, float* output);

#ifdef __cplusplus
}
#endif

#endif
