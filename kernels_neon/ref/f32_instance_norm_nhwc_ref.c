/* Instance normalization on NHWC data: per-channel statistics accumulate over pixel rows, so every
 * loop runs over contiguous channels. Double accumulators keep large images accurate. */
#include <math.h>

#include "lite_kernels/f32_normalization.h"

void lite_f32_instance_norm_nhwc_ref(size_t batch, size_t pixels, size_t channels, const float* input,
                                     const float* scale, const float* bias, float epsilon, float* output,
                                     double* scratch) {
  double* mean = scratch;
  double* inv_std = scratch + channels;
  for (size_t n = 0; n < batch; ++n) {
    const float* x = input + n * pixels * channels;
    float* y = output + n * pixels * channels;
    for (size_t c = 0; c < channels; ++c) mean[c] = inv_std[c] = 0.0;
    for (size_t i = 0; i < pixels; ++i)
      for (size_t c = 0; c < channels; ++c) mean[c] += x[i * channels + c];
    for (size_t c = 0; c < channels; ++c) mean[c] /= (double)pixels;
    for (size_t i = 0; i < pixels; ++i)
      for (size_t c = 0; c < channels; ++c) {
        const double d = x[i * channels + c] - mean[c];
        inv_std[c] += d * d;
      }
    for (size_t c = 0; c < channels; ++c) inv_std[c] = 1.0 / sqrt(inv_std[c] / (double)pixels + (double)epsilon);
    for (size_t i = 0; i < pixels; ++i)
      for (size_t c = 0; c < channels; ++c)
        y[i * channels + c] = (float)((x[i * channels + c] - mean[c]) * inv_std[c] * scale[c] + bias[c]);
  }
}
