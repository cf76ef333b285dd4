/* Direct NHWC convolution over a packed [kh, kw, cin/g, cout] weight: for every output pixel the
 * output row (cout floats) is the accumulator, and every input value is broadcast over the output
 * channels of its group, so the inner loop is a contiguous multiply-add. */
#include <string.h>

#include "lite_kernels/conv2d.h"

size_t lite_f32_conv2d_packed_weight_size(const lite_conv2d_params* p) {
  return p->out_c * p->kernel_h * p->kernel_w * (p->in_c / p->groups);
}

void lite_f32_conv2d_pack_weight_ref(const lite_conv2d_params* p, const float* weight, float* packed) {
  const size_t cig = p->in_c / p->groups, taps = p->kernel_h * p->kernel_w;
  for (size_t oc = 0; oc < p->out_c; ++oc)
    for (size_t t = 0; t < taps; ++t)
      for (size_t ci = 0; ci < cig; ++ci) packed[(t * cig + ci) * p->out_c + oc] = weight[(oc * taps + t) * cig + ci];
}

/* Adds the contribution of one input pixel through one kernel tap to one output row. */
static void accumulate_tap(const lite_conv2d_params* p, const float* restrict in, const float* restrict w,
                           float* restrict out) {
  const size_t cout = p->out_c, cig = p->in_c / p->groups, cog = cout / p->groups;
  if (cig == 1 && cog == 1) { /* depthwise, multiplier 1 */
    for (size_t c = 0; c < cout; ++c) out[c] += in[c] * w[c];
  } else if (p->groups == 1) {
    for (size_t ci = 0; ci < cig; ++ci) {
      const float x = in[ci];
      const float* restrict wr = w + ci * cout;
      for (size_t oc = 0; oc < cout; ++oc) out[oc] += x * wr[oc];
    }
  } else {
    for (size_t g = 0; g < p->groups; ++g) {
      float* restrict og = out + g * cog;
      for (size_t ci = 0; ci < cig; ++ci) {
        const float x = in[g * cig + ci];
        const float* restrict wr = w + ci * cout + g * cog;
        for (size_t j = 0; j < cog; ++j) og[j] += x * wr[j];
      }
    }
  }
}

void lite_f32_conv2d_nhwc_ref(const lite_conv2d_params* p, const float* input, const float* packed_weight,
                              const float* bias, const lite_activation* act, float* output) {
  const size_t cout = p->out_c, cig = p->in_c / p->groups;
  const size_t tap_stride = cig * cout;
  /* No input channel: every tap adds nothing (skipped, however large the kernel). */
  const size_t kernel_h = cig == 0 ? 0 : p->kernel_h;
  for (size_t n = 0; n < p->batch; ++n) {
    const float* image = input + n * p->in_h * p->in_w * p->in_c;
    for (size_t oh = 0; oh < p->out_h; ++oh) {
      for (size_t ow = 0; ow < p->out_w; ++ow) {
        float* out = output + ((n * p->out_h + oh) * p->out_w + ow) * cout;
        if (bias != NULL)
          memcpy(out, bias, cout * sizeof(float));
        else
          memset(out, 0, cout * sizeof(float));
        for (size_t kh = 0; kh < kernel_h; ++kh) {
          /* ih = oh * stride + kh * dilation - pad, skipped when outside the image */
          const size_t ih_padded = oh * p->stride_h + kh * p->dilation_h;
          if (ih_padded < p->pad_top || ih_padded - p->pad_top >= p->in_h) continue;
          const size_t ih = ih_padded - p->pad_top;
          for (size_t kw = 0; kw < p->kernel_w; ++kw) {
            const size_t iw_padded = ow * p->stride_w + kw * p->dilation_w;
            if (iw_padded < p->pad_left || iw_padded - p->pad_left >= p->in_w) continue;
            const size_t iw = iw_padded - p->pad_left;
            accumulate_tap(p, image + (ih * p->in_w + iw) * p->in_c,
                           packed_weight + (kh * p->kernel_w + kw) * tap_stride, out);
          }
        }
        if (act != NULL) lite_activate_rows(act, out, 1, cout);
      }
    }
  }
}
