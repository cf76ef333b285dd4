/* Local response normalization across channels, with the window clipped at the channel edges. */
#include <math.h>

#include "lite_kernels/f32_normalization.h"

void lite_f32_lrn_nhwc_ref(size_t pixels, size_t channels, size_t size, float alpha, float beta, float bias,
                           const float* input, float* output) {
  const size_t before = (size - 1) / 2, after = size / 2; /* floor and ceil of (size - 1) / 2 */
  const float alpha_over_size = alpha / (float)size;
  for (size_t i = 0; i < pixels; ++i) {
    const float* x = input + i * channels;
    float* y = output + i * channels;
    for (size_t c = 0; c < channels; ++c) {
      const size_t first = c >= before ? c - before : 0;
      const size_t last = c + after < channels ? c + after : channels - 1;
      float square_sum = 0.0f;
      for (size_t k = first; k <= last; ++k) square_sum += x[k] * x[k];
      y[c] = x[c] / powf(bias + alpha_over_size * square_sum, beta);
    }
  }
}
