/* 2-D transposed convolution (the gradient of CONV_2D with respect to its input) on NHWC data, fp32.
 * Weight layout [in_c, kernel_h, kernel_w, out_c / groups] as in the .lite format. */
#ifndef LITE_KERNELS_CONV_TRANSPOSE2D_H
#define LITE_KERNELS_CONV_TRANSPOSE2D_H

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
  size_t pad_top, pad_left; /* leading pads cropped from the full result */
  size_t groups;
} lite_conv_transpose2d_params;

/* Every input pixel (n, ih, iw) adds input * weight[ic, kh, kw, :] to output pixel
 * (ih * stride_h + kh * dilation_h - pad_top, iw * stride_w + kw * dilation_w - pad_left) when that
 * pixel is inside the output. bias may be NULL; act may be NULL. */
void lite_f32_conv_transpose2d_nhwc_ref(const lite_conv_transpose2d_params* params, const float* input,
                                        const float* weight, const float* bias, const lite_activation* act,
                                        float* output);

#ifdef __cplusplus
}
#endif

#endif
