/* Array entry points over the C reference arithmetic (kernels_neon/ref: qs8_requantize_ref.c,
 * qs8_quantize_ref.c, qs8_add_ref.c, qs8_mul_ref.c, requantize.h), compiled by
 * tests/test_int8_arithmetic.py into a small shared library so that lite_converter.int8 is checked
 * against the very C functions the runtime runs, element for element. The real multipliers of ADD /
 * MUL are formed from the float32 scales as runtime_arm/src/ops/binary_int8.cc does. */
#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/qs8_binary.h"
#include "lite_kernels/requantize.h"

void shim_requantize(size_t n, const int64_t* acc, const int32_t* multiplier, const int32_t* shift,
                     int32_t zero_point, int32_t low, int32_t high, int8_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = lite_requantize_to_int8(acc[i], multiplier[i], shift[i], zero_point, low, high);
}

void shim_quantize_multiplier(size_t n, const double* real, int32_t* multiplier, int32_t* shift, int32_t* status) {
  for (size_t i = 0; i < n; ++i) {
    int s = 0;
    status[i] = lite_quantize_multiplier(real[i], &multiplier[i], &s);
    shift[i] = s;
  }
}

void shim_quantize_multiplier_pair(size_t n, const double* real_a, const double* real_b, int32_t* multiplier_a,
                                   int32_t* multiplier_b, int32_t* shift, int32_t* status) {
  for (size_t i = 0; i < n; ++i) {
    int s = 0;
    status[i] = lite_quantize_multiplier_pair(real_a[i], real_b[i], &multiplier_a[i], &multiplier_b[i], &s);
    shift[i] = s;
  }
}

/* out[i] = ADD(a[i], b[i]) with (scale, zero point) per tensor; returns the multiplier status. */
int shim_add(size_t n, const int8_t* a, const int8_t* b, float scale_a, int32_t zero_a, float scale_b, int32_t zero_b,
             float scale_y, int32_t zero_y, int32_t low, int32_t high, int8_t* out) {
  lite_qs8_add_params p;
  const double real_a = (double)scale_a / (double)scale_y;
  const double real_b = (double)scale_b / (double)scale_y;
  const int status = lite_quantize_multiplier_pair(real_a, real_b, &p.a_multiplier, &p.b_multiplier, &p.shift);
  p.a_zero_point = zero_a;
  p.b_zero_point = zero_b;
  p.output_zero_point = zero_y;
  p.act_min = low;
  p.act_max = high;
  lite_qs8_add_periodic_ref(n, &p, a, b, n, out);
  return status;
}

int shim_mul(size_t n, const int8_t* a, const int8_t* b, float scale_a, int32_t zero_a, float scale_b, int32_t zero_b,
             float scale_y, int32_t zero_y, int32_t low, int32_t high, int8_t* out) {
  lite_qs8_mul_params p;
  const double real = (double)scale_a * (double)scale_b / (double)scale_y;
  const int status = lite_quantize_multiplier(real, &p.multiplier, &p.shift);
  p.a_zero_point = zero_a;
  p.b_zero_point = zero_b;
  p.output_zero_point = zero_y;
  p.act_min = low;
  p.act_max = high;
  lite_qs8_mul_ref(n, &p, a, b, n, out);
  return status;
}
