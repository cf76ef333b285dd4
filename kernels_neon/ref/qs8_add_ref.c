/* int8 ADD with rescaling of both inputs to the output scale (one shared shift). */
#include "lite_kernels/qs8_binary.h"

#include "lite_kernels/requantize.h"

void lite_qs8_add_ref(size_t count, const lite_qs8_add_params* p, const int8_t* a, const int64_t* a_index,
                      const int8_t* b, const int64_t* b_index, int8_t* output) {
  for (size_t i = 0; i < count; ++i) {
    const int64_t da = (int64_t)a[a_index != NULL ? (size_t)a_index[i] : i] - p->a_zero_point;
    const int64_t db = (int64_t)b[b_index != NULL ? (size_t)b_index[i] : i] - p->b_zero_point;
    int64_t v = lite_rounding_shift_right(da * p->a_multiplier + db * p->b_multiplier, p->shift) + p->output_zero_point;
    if (v < p->act_min) v = p->act_min;
    if (v > p->act_max) v = p->act_max;
    output[i] = (int8_t)v;
  }
}

void lite_qs8_add_periodic_ref(size_t count, const lite_qs8_add_params* p, const int8_t* a, const int8_t* b,
                               size_t b_period, int8_t* output) {
  size_t j = 0;
  for (size_t i = 0; i < count; ++i) {
    const int64_t da = (int64_t)a[i] - p->a_zero_point;
    const int64_t db = (int64_t)b[j] - p->b_zero_point;
    int64_t v = lite_rounding_shift_right(da * p->a_multiplier + db * p->b_multiplier, p->shift) + p->output_zero_point;
    if (v < p->act_min) v = p->act_min;
    if (v > p->act_max) v = p->act_max;
    output[i] = (int8_t)v;
    if (++j == b_period) j = 0;
  }
}
