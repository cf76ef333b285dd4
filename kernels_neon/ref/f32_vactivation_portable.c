/* Portable activation and softmax exp over contiguous values: lite_activate per value and libm
 * expf (the reference semantics), used where no vector variant is compiled or allowed. */
#include <math.h>

#include "lite_kernels/f32_vactivation.h"

void lite_f32_vactivation_portable(const lite_activation* act, const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = lite_activate(act, x[i], i);
}

void lite_f32_vsoftmax_row_portable(const float* x, float* y, size_t n) {
  float m = -INFINITY;
  for (size_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
  const float sum = lite_f32_vexp_sum_portable(x, m, y, n);
  for (size_t i = 0; i < n; ++i) y[i] /= sum;
}

float lite_f32_vexp_sum_portable(const float* x, float shift, float* y, size_t n) {
  float sum = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    y[i] = expf(x[i] - shift);
    sum += y[i];
  }
  return sum;
}
