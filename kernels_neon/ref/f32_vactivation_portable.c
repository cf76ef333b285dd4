/* Portable activation over contiguous values: lite_activate per value (the reference semantics,
 * libm expf), used where no vector variant is compiled or allowed. */
#include "lite_kernels/f32_vactivation.h"

void lite_f32_vactivation_portable(const lite_activation* act, const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = lite_activate(act, x[i], i);
}
