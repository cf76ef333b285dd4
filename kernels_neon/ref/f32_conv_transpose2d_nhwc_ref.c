/* Scatter form of the transposed convolution: walk the input once and add each pixel's products
 * into the output rows it reaches. The weight rows [kh, kw, :] are contiguous over output channels. */
#include <string.h>

#include "lite_kernels/conv_transpose2d.h"

void lite_f32_conv_transpose2d_nhwc_ref(const lite_conv_transpose2d_params* p, const float* input,
                                        const float* weight, const float* bias, const lite_activation* act,
                                        float* output) {
  const size_t cout = p->out_c, cig = p->in_c / p->groups, cog = cout / p->groups;
  const size_t out_pixels = p->batch * p->out_h * p->out_w;
  for (size_t i = 0; i < out_pixels; ++i) {
    if (bias != NULL)
      memcpy(output + i * cout, bias, cout * sizeof(float));
    else
      memset(output + i * cout, 0, cout * sizeof(float));
  }
  /* No input or output channel per group: nothing to scatter (skipped, however large the input). */
  const size_t batch = cig == 0 || cog == 0 ? 0 : p->batch;
  for (size_t n = 0; n < batch; ++n) {
    for (size_t ih = 0; ih < p->in_h; ++ih) {
      for (size_t iw = 0; iw < p->in_w; ++iw) {
        const float* in = input + ((n * p->in_h + ih) * p->in_w + iw) * p->in_c;
        for (size_t kh = 0; kh < p->kernel_h; ++kh) {
          const size_t oh_padded = ih * p->stride_h + kh * p->dilation_h;
          if (oh_padded < p->pad_top || oh_padded - p->pad_top >= p->out_h) continue;
          const size_t oh = oh_padded - p->pad_top;
          for (size_t kw = 0; kw < p->kernel_w; ++kw) {
            const size_t ow_padded = iw * p->stride_w + kw * p->dilation_w;
            if (ow_padded < p->pad_left || ow_padded - p->pad_left >= p->out_w) continue;
            const size_t ow = ow_padded - p->pad_left;
            float* restrict out = output + ((n * p->out_h + oh) * p->out_w + ow) * cout;
            for (size_t g = 0; g < p->groups; ++g) {
              float* restrict og = out + g * cog;
              for (size_t ci = 0; ci < cig; ++ci) {
                const size_t ic = g * cig + ci;
                const float x = in[ic];
                const float* restrict w = weight + ((ic * p->kernel_h + kh) * p->kernel_w + kw) * cog;
                for (size_t j = 0; j < cog; ++j) og[j] += x * w[j];
              }
            }
          }
        }
      }
    }
  }
  if (act != NULL) lite_activate_rows(act, output, out_pixels, cout);
}
