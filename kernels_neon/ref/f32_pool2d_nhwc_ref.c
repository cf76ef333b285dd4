/* Windowed pooling: each output row (channels floats) accumulates the input rows of the window taps
 * that fall inside the image, so the inner loop is a contiguous max / add over channels. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lite_kernels/f32_pool2d.h"
#include "pool_window.h"

static const float* tap_row(const lite_pool2d_params* p, const float* image, size_t oh, size_t ow, size_t kh,
                            size_t kw) {
  const size_t ih = oh * p->stride_h + kh * p->dilation_h - p->pad_top;
  const size_t iw = ow * p->stride_w + kw * p->dilation_w - p->pad_left;
  return image + (ih * p->in_w + iw) * p->channels;
}

void lite_f32_max_pool2d_nhwc_ref(const lite_pool2d_params* p, const float* input, const lite_activation* act,
                                  float* output) {
  const size_t c_n = p->channels;
  for (size_t n = 0; n < p->batch; ++n) {
    const float* image = input + n * p->in_h * p->in_w * c_n;
    for (size_t oh = 0; oh < p->out_h; ++oh) {
      size_t kh0, kh1;
      lite_pool_tap_range(oh, p->stride_h, p->dilation_h, p->pad_top, p->kernel_h, 0, (int64_t)p->in_h, &kh0, &kh1);
      for (size_t ow = 0; ow < p->out_w; ++ow) {
        size_t kw0, kw1;
        lite_pool_tap_range(ow, p->stride_w, p->dilation_w, p->pad_left, p->kernel_w, 0, (int64_t)p->in_w, &kw0, &kw1);
        float* restrict out = output + ((n * p->out_h + oh) * p->out_w + ow) * c_n;
        for (size_t c = 0; c < c_n; ++c) out[c] = -INFINITY;
        for (size_t kh = kh0; kh < kh1; ++kh)
          for (size_t kw = kw0; kw < kw1; ++kw) {
            const float* restrict in = tap_row(p, image, oh, ow, kh, kw);
            for (size_t c = 0; c < c_n; ++c) out[c] = in[c] > out[c] || in[c] != in[c] ? in[c] : out[c];
          }
        if (act != NULL) lite_activate_rows(act, out, 1, c_n);
      }
    }
  }
}

void lite_f32_average_pool2d_nhwc_ref(const lite_pool2d_params* p, const float* input,
                                      const lite_activation* act, float* output) {
  const size_t c_n = p->channels;
  for (size_t n = 0; n < p->batch; ++n) {
    const float* image = input + n * p->in_h * p->in_w * c_n;
    for (size_t oh = 0; oh < p->out_h; ++oh) {
      size_t kh0, kh1, ph0, ph1;
      lite_pool_tap_range(oh, p->stride_h, p->dilation_h, p->pad_top, p->kernel_h, 0, (int64_t)p->in_h, &kh0, &kh1);
      lite_pool_tap_range(oh, p->stride_h, p->dilation_h, p->pad_top, p->kernel_h, -(int64_t)p->pad_top,
                (int64_t)p->in_h + (int64_t)p->pad_bottom, &ph0, &ph1);
      for (size_t ow = 0; ow < p->out_w; ++ow) {
        size_t kw0, kw1, pw0, pw1;
        lite_pool_tap_range(ow, p->stride_w, p->dilation_w, p->pad_left, p->kernel_w, 0, (int64_t)p->in_w, &kw0, &kw1);
        lite_pool_tap_range(ow, p->stride_w, p->dilation_w, p->pad_left, p->kernel_w, -(int64_t)p->pad_left,
                  (int64_t)p->in_w + (int64_t)p->pad_right, &pw0, &pw1);
        float* restrict out = output + ((n * p->out_h + oh) * p->out_w + ow) * c_n;
        memset(out, 0, c_n * sizeof(float));
        for (size_t kh = kh0; kh < kh1; ++kh)
          for (size_t kw = kw0; kw < kw1; ++kw) {
            const float* restrict in = tap_row(p, image, oh, ow, kh, kw);
            for (size_t c = 0; c < c_n; ++c) out[c] += in[c];
          }
        const size_t count = p->count_include_pad ? (ph1 - ph0) * (pw1 - pw0) : (kh1 - kh0) * (kw1 - kw0);
        if (count > 0) {
          const float divisor = (float)count;
          for (size_t c = 0; c < c_n; ++c) out[c] /= divisor;
        }
        if (act != NULL) lite_activate_rows(act, out, 1, c_n);
      }
    }
  }
}

void lite_f32_global_average_pool_nhwc_range(size_t batch, size_t pixels, size_t channels, size_t c_begin,
                                             size_t c_end, const float* input, float* output) {
  /* Blocks of 16 channels summed in a local accumulator (registers once vectorized) over all
   * pixels, instead of a load-add-store of the output per pixel; each channel is still summed over
   * the pixels in order, so the result is the same for any channel range. */
  enum { kBlock = 16 };
  for (size_t n = 0; n < batch; ++n) {
    const float* image = input + n * pixels * channels;
    float* restrict out = output + n * channels;
    for (size_t c0 = c_begin; c0 < c_end; c0 += kBlock) {
      const size_t nc = c_end - c0 < kBlock ? c_end - c0 : kBlock;
      float acc[kBlock] = {0};
      if (nc == kBlock) {
        for (size_t i = 0; i < pixels; ++i)
          for (size_t c = 0; c < kBlock; ++c) acc[c] += image[i * channels + c0 + c];
      } else {
        for (size_t i = 0; i < pixels; ++i)
          for (size_t c = 0; c < nc; ++c) acc[c] += image[i * channels + c0 + c];
      }
      for (size_t c = 0; c < nc; ++c) out[c0 + c] = pixels > 0 ? acc[c] / (float)pixels : 0.0f;
    }
  }
}

void lite_f32_global_average_pool_nhwc_ref(size_t batch, size_t pixels, size_t channels, const float* input,
                                           float* output) {
  lite_f32_global_average_pool_nhwc_range(batch, pixels, channels, 0, channels, input, output);
}

void lite_f32_global_max_pool_nhwc_range(size_t batch, size_t pixels, size_t channels, size_t c_begin, size_t c_end,
                                         const float* input, float* output) {
  for (size_t n = 0; n < batch; ++n) {
    float* restrict out = output + n * channels;
    for (size_t c = c_begin; c < c_end; ++c) out[c] = -INFINITY;
    for (size_t i = 0; i < pixels; ++i) {
      const float* restrict in = input + (n * pixels + i) * channels;
      for (size_t c = c_begin; c < c_end; ++c) out[c] = in[c] > out[c] || in[c] != in[c] ? in[c] : out[c];
    }
  }
}

void lite_f32_global_max_pool_nhwc_ref(size_t batch, size_t pixels, size_t channels, const float* input,
                                       float* output) {
  lite_f32_global_max_pool_nhwc_range(batch, pixels, channels, 0, channels, input, output);
}
