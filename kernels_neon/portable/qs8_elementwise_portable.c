/* The portable int8 ADD / MUL of qs8_elementwise.h: the reference kernels behind the plan interface
 * (a compiler does not vectorize the 64-bit rescale; the vector variants are per ISA). */
#include "lite_kernels/qs8_binary.h"
#include "lite_kernels/qs8_elementwise.h"

void lite_qs8_vadd_portable(size_t count, const lite_qs8_add_plan* plan, const int8_t* a, const int8_t* b,
                            size_t b_period, int8_t* output) {
  lite_qs8_add_periodic_ref(count, &plan->params, a, b, b_period, output);
}

void lite_qs8_vmul_portable(size_t count, const lite_qs8_mul_plan* plan, const int8_t* a, const int8_t* b,
                            size_t b_period, int8_t* output) {
  lite_qs8_mul_ref(count, &plan->params, a, b, b_period, output);
}
