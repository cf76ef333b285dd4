/* Layer normalization with a two-pass variance (mean first), which stays accurate when the mean is
 * large compared with the spread. */
#include <math.h>

#include "lite_kernels/f32_normalization.h"

void lite_f32_layer_norm_ref(size_t outer, size_t inner, const float* input, const float* scale, const float* bias,
                             float epsilon, float* output, float* mean, float* inv_std_dev) {
  for (size_t o = 0; o < outer; ++o) {
    const float* x = input + o * inner;
    float* y = output + o * inner;
    double sum = 0.0;
    for (size_t i = 0; i < inner; ++i) sum += x[i];
    const float mu = (float)(sum / (double)inner);
    double squares = 0.0;
    for (size_t i = 0; i < inner; ++i) squares += (double)(x[i] - mu) * (double)(x[i] - mu);
    const float inv = (float)(1.0 / sqrt(squares / (double)inner + (double)epsilon));
    for (size_t i = 0; i < inner; ++i) {
      float v = (x[i] - mu) * inv;
      if (scale != NULL) v *= scale[i];
      if (bias != NULL) v += bias[i];
      y[i] = v;
    }
    if (mean != NULL) mean[o] = mu;
    if (inv_std_dev != NULL) inv_std_dev[o] = inv;
  }
}
