/* The ISA-independent part of the vector int8 ADD / MUL: b repeating with a period becomes rows with a
 * contiguous b. Included by each ISA file after it defines
 *   static void add_contiguous(size_t n, const lite_qs8_add_plan*, const int8_t* a, const int8_t* b, int8_t* y);
 *   static void mul_contiguous(size_t n, const lite_qs8_mul_plan*, const int8_t* a, const int8_t* b, int8_t* y);
 * and LITE_QS8_ROWS_SUFFIX (the ISA name in the exported function names).
 * A short period (a per-channel b of a few channels) is repeated into a buffer of whole periods first so
 * rows stay long; a scalar b of ADD is folded into the biases (lite_qs8_add_plan_fold_b). */
#include <string.h>

#include "lite_kernels/qs8_elementwise.h"

#define LITE_QS8_ROWS_CAT2(a, b) a##b
#define LITE_QS8_ROWS_CAT(a, b) LITE_QS8_ROWS_CAT2(a, b)
#define LITE_QS8_SHORT_PERIOD 512
#define LITE_QS8_REPEAT_BYTES 2048

/* b (period < LITE_QS8_SHORT_PERIOD) repeated into `buffer`; returns the new period (a multiple of it). */
static size_t lite_qs8_repeat_period(const int8_t* b, size_t period, int8_t buffer[LITE_QS8_REPEAT_BYTES]) {
  const size_t copies = LITE_QS8_REPEAT_BYTES / period;
  for (size_t c = 0; c < copies; ++c) memcpy(buffer + c * period, b, period);
  return copies * period;
}

void LITE_QS8_ROWS_CAT(lite_qs8_vadd_, LITE_QS8_ROWS_SUFFIX)(size_t count, const lite_qs8_add_plan* plan,
                                                            const int8_t* a, const int8_t* b, size_t b_period,
                                                            int8_t* output) {
  if (!plan->exact || b_period == 0) {
    lite_qs8_add_periodic_ref(count, &plan->params, a, b, b_period, output);
    return;
  }
  if (b_period == 1) {
    lite_qs8_add_plan folded;
    lite_qs8_add_plan_fold_b(plan, b[0], &folded);
    if (folded.exact) {
      add_contiguous(count, &folded, a, a, output); /* b's multipliers are 0: any readable b */
      return;
    }
    lite_qs8_add_periodic_ref(count, &plan->params, a, b, b_period, output);
    return;
  }
  int8_t repeated[LITE_QS8_REPEAT_BYTES];
  if (b_period < LITE_QS8_SHORT_PERIOD && b_period < count) {
    b_period = lite_qs8_repeat_period(b, b_period, repeated);
    b = repeated;
  }
  for (size_t i = 0; i < count; i += b_period) {
    const size_t n = count - i < b_period ? count - i : b_period;
    add_contiguous(n, plan, a + i, b, output + i);
  }
}

void LITE_QS8_ROWS_CAT(lite_qs8_vmul_, LITE_QS8_ROWS_SUFFIX)(size_t count, const lite_qs8_mul_plan* plan,
                                                            const int8_t* a, const int8_t* b, size_t b_period,
                                                            int8_t* output) {
  if (!plan->exact || b_period == 0) {
    lite_qs8_mul_ref(count, &plan->params, a, b, b_period, output);
    return;
  }
  int8_t repeated[LITE_QS8_REPEAT_BYTES];
  if (b_period < LITE_QS8_SHORT_PERIOD && b_period < count) {
    b_period = lite_qs8_repeat_period(b, b_period, repeated);
    b = repeated;
  }
  for (size_t i = 0; i < count; i += b_period) {
    const size_t n = count - i < b_period ? count - i : b_period;
    mul_contiguous(n, plan, a + i, b, output + i);
  }
}
