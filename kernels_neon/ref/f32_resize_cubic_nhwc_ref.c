/* Bicubic resize on NHWC data (Keys' cubic convolution with parameter a): a 4x4 neighbourhood per
 * output pixel, clamped to the input edge, or with outside taps dropped and the weights
 * renormalized when exclude_outside is set. */
#include <math.h>
#include <string.h>

#include "lite_kernels/resize.h"

typedef struct {
  size_t index[4];
  float weight[4];
} cubic_taps;

static cubic_taps cubic_taps_at(const lite_resize_params* p, size_t out_index, double scale, size_t in_len,
                                size_t out_len) {
  double x = lite_resize_source_coordinate(p->coordinate_mode, out_index, scale, in_len, out_len);
  if (!isfinite(x)) x = 0.0; /* the tap indices below are converted to size_t */
  const double lower = floor(x);
  const double t = x - lower, a = p->cubic_coeff_a;
  /* Keys' kernel evaluated at distances 1 + t, t, 1 - t, 2 - t from the taps lower-1 .. lower+2. */
  double w[4];
  w[0] = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a;
  w[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
  w[2] = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1;
  w[3] = ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a;
  double sum = 0.0;
  cubic_taps taps;
  for (int k = 0; k < 4; ++k) {
    const double i = lower - 1 + k;
    const int outside = i < 0.0 || i > (double)(in_len - 1);
    if (outside && p->exclude_outside) w[k] = 0.0;
    sum += w[k];
    taps.index[k] = i < 0.0 ? 0 : (i > (double)(in_len - 1) ? in_len - 1 : (size_t)i);
  }
  for (int k = 0; k < 4; ++k) taps.weight[k] = (float)(p->exclude_outside && sum != 0.0 ? w[k] / sum : w[k]);
  return taps;
}

void lite_f32_resize_cubic_nhwc_ref(const lite_resize_params* p, const float* input, float* output) {
  const size_t c_n = p->channels;
  for (size_t n = 0; n < p->batch; ++n) {
    const float* image = input + n * p->in_h * p->in_w * c_n;
    for (size_t oh = 0; oh < p->out_h; ++oh) {
      const cubic_taps ty = cubic_taps_at(p, oh, p->scale_h, p->in_h, p->out_h);
      for (size_t ow = 0; ow < p->out_w; ++ow) {
        const cubic_taps tx = cubic_taps_at(p, ow, p->scale_w, p->in_w, p->out_w);
        float* restrict out = output + ((n * p->out_h + oh) * p->out_w + ow) * c_n;
        memset(out, 0, c_n * sizeof(float));
        for (int i = 0; i < 4; ++i) {
          const float* row = image + ty.index[i] * p->in_w * c_n;
          for (int j = 0; j < 4; ++j) {
            const float w = ty.weight[i] * tx.weight[j];
            const float* restrict in = row + tx.index[j] * c_n;
            for (size_t ch = 0; ch < c_n; ++ch) out[ch] += w * in[ch];
          }
        }
      }
    }
  }
}
