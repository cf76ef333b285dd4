/* int8 MUL with one requantization of the 64-bit product, b repeating with a period. */
#include "lite_kernels/qs8_binary.h"
#include "lite_kernels/requantize.h"

void lite_qs8_mul_ref(size_t count, const lite_qs8_mul_params* p, const int8_t* a, const int8_t* b,
                      size_t b_period, int8_t* output) {
  size_t j = 0;
  for (size_t i = 0; i < count; ++i) {
    const int64_t product = ((int64_t)a[i] - p->a_zero_point) * ((int64_t)b[j] - p->b_zero_point);
    int64_t v = lite_rounding_shift_right(product * p->multiplier, p->shift) + p->output_zero_point;
    if (v < p->act_min) v = p->act_min;
    if (v > p->act_max) v = p->act_max;
    output[i] = (int8_t)v;
    if (++j == b_period) j = 0;
  }
}
