/* Portable activation and softmax exp over contiguous values: lite_activate per value and libm
 * expf (the reference semantics), used where no vector variant is compiled or allowed. */
#include <math.h>

#include "lite_kernels/f32_softmax.h"
#include "lite_kernels/f32_vactivation.h"

void lite_f32_vactivation_portable(const lite_activation* act, const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = lite_activate(act, x[i], i);
}

/* The reference softmax itself: the same maximum, expf, sequential sum and division. */
void lite_f32_vsoftmax_row_portable(const float* x, float* y, size_t n) { lite_f32_softmax_ref(1, n, 1, x, y); }

float lite_f32_vexp_sum_portable(const float* x, float shift, float* y, size_t n) {
  float sum = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    y[i] = expf(x[i] - shift);
    sum += y[i];
  }
  return sum;
}
