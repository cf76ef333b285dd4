/* Multiplier/shift computation of lite_kernels/requantize.h (docs/QUANTIZATION.md). */
#include <math.h>

#include "lite_kernels/requantize.h"

int lite_quantize_multiplier(double real, int32_t* multiplier, int* shift) {
  *multiplier = 0;
  *shift = 1;
  if (!(real >= 0.0) || isinf(real)) return -1;
  if (real == 0.0) return 0;
  int e = 0;
  const double q = frexp(real, &e);
  int64_t m = (int64_t)floor(q * 2147483648.0 + 0.5);
  if (m == ((int64_t)1 << 31)) {
    m /= 2;
    e += 1;
  }
  const int s = 31 - e;
  if (s < 1) return -1;
  if (s > 62) return 0;
  *multiplier = (int32_t)m;
  *shift = s;
  return 0;
}

int lite_quantize_multiplier_pair(double real_a, double real_b, int32_t* multiplier_a, int32_t* multiplier_b,
                                  int* shift) {
  *multiplier_a = *multiplier_b = 0;
  *shift = 1;
  if (!(real_a >= 0.0) || !(real_b >= 0.0) || isinf(real_a) || isinf(real_b)) return -1;
  int32_t unused = 0;
  int s = 1;
  if (lite_quantize_multiplier(real_a > real_b ? real_a : real_b, &unused, &s) != 0) return -1;
  if (unused == 0) return 0;
  *shift = s;
  *multiplier_a = (int32_t)floor(ldexp(real_a, s) + 0.5);
  *multiplier_b = (int32_t)floor(ldexp(real_b, s) + 0.5);
  return 0;
}
