/* Numerically stable softmax: subtract the slice maximum before exp so that exp never overflows. */
#include <math.h>

#include "lite_kernels/f32_softmax.h"

static float slice_max(const float* x, size_t len, size_t stride) {
  float m = -INFINITY;
  for (size_t k = 0; k < len; ++k) m = x[k * stride] > m ? x[k * stride] : m;
  return m;
}

void lite_f32_softmax_ref(size_t outer, size_t axis_len, size_t inner, const float* input, float* output) {
  for (size_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < inner; ++i) {
      const float* x = input + o * axis_len * inner + i;
      float* y = output + o * axis_len * inner + i;
      const float m = slice_max(x, axis_len, inner);
      float sum = 0.0f;
      for (size_t k = 0; k < axis_len; ++k) {
        y[k * inner] = expf(x[k * inner] - m);
        sum += y[k * inner];
      }
      for (size_t k = 0; k < axis_len; ++k) y[k * inner] /= sum;
    }
}

void lite_f32_log_softmax_ref(size_t outer, size_t axis_len, size_t inner, const float* input, float* output) {
  for (size_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < inner; ++i) {
      const float* x = input + o * axis_len * inner + i;
      float* y = output + o * axis_len * inner + i;
      const float m = slice_max(x, axis_len, inner);
      float sum = 0.0f;
      for (size_t k = 0; k < axis_len; ++k) sum += expf(x[k * inner] - m);
      const float log_sum = logf(sum);
      for (size_t k = 0; k < axis_len; ++k) y[k * inner] = x[k * inner] - m - log_sum;
    }
}

void lite_f32_hardmax_ref(size_t outer, size_t axis_len, size_t inner, const float* input, float* output) {
  for (size_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < inner; ++i) {
      const float* x = input + o * axis_len * inner + i;
      float* y = output + o * axis_len * inner + i;
      size_t best = 0;
      for (size_t k = 1; k < axis_len; ++k)
        if (x[k * inner] > x[best * inner]) best = k;
      for (size_t k = 0; k < axis_len; ++k) y[k * inner] = k == best ? 1.0f : 0.0f;
    }
}
