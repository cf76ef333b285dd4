/* int8 2-D convolution (NHWC), including grouped / depthwise: the oracle of optimized int8 convs. */
#include "lite_kernels/qs8_conv2d_fully_connected.h"
#include "lite_kernels/requantize.h"

void lite_qs8_conv2d_nhwc_ref(const lite_conv2d_params* p, const lite_qs8_requant_params* rq,
                              const int8_t* input, const int8_t* weight, const int32_t* bias, int8_t* output) {
  const size_t cin_g = p->in_c / p->groups, cout_g = p->out_c / p->groups;
  for (size_t n = 0; n < p->batch; ++n)
    for (size_t oh = 0; oh < p->out_h; ++oh)
      for (size_t ow = 0; ow < p->out_w; ++ow)
        for (size_t oc = 0; oc < p->out_c; ++oc) {
          const size_t g = oc / cout_g;
          int64_t acc = bias != NULL ? bias[oc] : 0;
          for (size_t kh = 0; kh < p->kernel_h; ++kh) {
            const size_t ih_padded = oh * p->stride_h + kh * p->dilation_h;
            if (ih_padded < p->pad_top || ih_padded - p->pad_top >= p->in_h) continue;
            const size_t ih = ih_padded - p->pad_top;
            for (size_t kw = 0; kw < p->kernel_w; ++kw) {
              const size_t iw_padded = ow * p->stride_w + kw * p->dilation_w;
              if (iw_padded < p->pad_left || iw_padded - p->pad_left >= p->in_w) continue;
              const size_t iw = iw_padded - p->pad_left;
              const int8_t* x = input + ((n * p->in_h + ih) * p->in_w + iw) * p->in_c + g * cin_g;
              const int8_t* w = weight + ((oc * p->kernel_h + kh) * p->kernel_w + kw) * cin_g;
              for (size_t ic = 0; ic < cin_g; ++ic) acc += (int64_t)((int32_t)x[ic] - rq->input_zero_point) * w[ic];
            }
          }
          output[((n * p->out_h + oh) * p->out_w + ow) * p->out_c + oc] = lite_requantize_to_int8(
              acc, rq->multiplier[oc], rq->shift[oc], rq->output_zero_point, rq->act_min, rq->act_max);
        }
}
