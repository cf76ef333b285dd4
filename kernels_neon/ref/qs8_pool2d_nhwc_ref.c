/* int8 pooling on NHWC data; input and output share one scale and zero point. */
#include "lite_kernels/qs8_pool2d.h"
#include "pool_window.h"

void lite_qs8_global_average_pool_nhwc_ref(size_t batch, size_t spatial, size_t channels, int32_t zero_point,
                                           const int8_t* input, int8_t* output) {
  enum { kBlock = 64 }; /* channels summed side by side: the input is read in its NHWC order */
  const int64_t count = (int64_t)spatial;
  for (size_t n = 0; n < batch; ++n)
    for (size_t c0 = 0; c0 < channels; c0 += kBlock) {
      const size_t width = channels - c0 < kBlock ? channels - c0 : kBlock;
      int64_t sums[kBlock] = {0};
      for (size_t s = 0; s < spatial; ++s) {
        const int8_t* pixel = input + (n * spatial + s) * channels + c0;
        for (size_t j = 0; j < width; ++j) sums[j] += pixel[j];
      }
      for (size_t j = 0; j < width; ++j) {
        const int64_t sum = sums[j] - (int64_t)zero_point * count;
        const int64_t rounded = count == 0 ? 0 : (sum >= 0 ? (sum + count / 2) / count : (sum - count / 2) / count);
        int64_t v = rounded + zero_point;
        if (v < -128) v = -128;
        if (v > 127) v = 127;
        output[n * channels + c0 + j] = (int8_t)v;
      }
    }
}

void lite_qs8_max_pool2d_nhwc_ref(const lite_conv2d_params* p, const int8_t* input, int8_t* output) {
  for (size_t n = 0; n < p->batch; ++n)
    for (size_t oh = 0; oh < p->out_h; ++oh)
      for (size_t ow = 0; ow < p->out_w; ++ow)
        for (size_t c = 0; c < p->out_c; ++c) {
          int32_t best = -128;
          size_t kh0, kh1, kw0, kw1;
          lite_pool_tap_range(oh, p->stride_h, p->dilation_h, p->pad_top, p->kernel_h, 0, (int64_t)p->in_h, &kh0, &kh1);
          lite_pool_tap_range(ow, p->stride_w, p->dilation_w, p->pad_left, p->kernel_w, 0, (int64_t)p->in_w, &kw0, &kw1);
          for (size_t kh = kh0; kh < kh1; ++kh) {
            const size_t ih_padded = oh * p->stride_h + kh * p->dilation_h;
            if (ih_padded < p->pad_top || ih_padded - p->pad_top >= p->in_h) continue;
            for (size_t kw = kw0; kw < kw1; ++kw) {
              const size_t iw_padded = ow * p->stride_w + kw * p->dilation_w;
              if (iw_padded < p->pad_left || iw_padded - p->pad_left >= p->in_w) continue;
              const int8_t v = input[((n * p->in_h + ih_padded - p->pad_top) * p->in_w + iw_padded - p->pad_left) *
                                         p->in_c + c];
              if (v > best) best = v;
            }
          }
          output[((n * p->out_h + oh) * p->out_w + ow) * p->out_c + c] = (int8_t)best;
        }
}
