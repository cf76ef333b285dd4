/* fp32 reductions accumulated in double (so long sums keep full float accuracy), one switch per
 * input row rather than per element. */
#include <math.h>

#include "lite_kernels/reduce.h"

/* Folds one input row into its accumulator(s) with the expression EXPR of `a` (accumulator) and
 * `x` (input value). */
#define FOLD_ROW(EXPR)                                         \
  do {                                                         \
    if (inner_reduced) {                                       \
      double a = acc[0];                                       \
      for (size_t j = 0; j < len; ++j) {                       \
        const double x = row[j];                               \
        a = (EXPR);                                            \
      }                                                        \
      acc[0] = a;                                              \
    } else {                                                   \
      for (size_t j = 0; j < len; ++j) {                       \
        const double a = acc[j], x = row[j];                   \
        acc[j] = (EXPR);                                       \
      }                                                        \
    }                                                          \
  } while (0)

static double initial_value(int kind) {
  switch (kind) {
    case LITE_REDUCE_MAX:
    case LITE_REDUCE_LOG_SUM_EXP: return -INFINITY; /* LOG_SUM_EXP: the running maximum */
    case LITE_REDUCE_MIN: return INFINITY;
    case LITE_REDUCE_PROD: return 1.0;
    default: return 0.0;
  }
}

static void fold_row(int kind, const float* row, size_t len, int inner_reduced, double* acc) {
  switch (kind) {
    case LITE_REDUCE_MAX:
    case LITE_REDUCE_LOG_SUM_EXP: FOLD_ROW(x > a || x != x ? x : a); break; /* NaN wins */
    case LITE_REDUCE_MIN: FOLD_ROW(x < a || x != x ? x : a); break;
    case LITE_REDUCE_PROD: FOLD_ROW(a * x); break;
    case LITE_REDUCE_L1: FOLD_ROW(a + fabs(x)); break;
    case LITE_REDUCE_L2:
    case LITE_REDUCE_SUM_SQUARE: FOLD_ROW(a + x * x); break;
    default: FOLD_ROW(a + x); break; /* SUM, MEAN, LOG_SUM */
  }
}

/* Second pass of LOG_SUM_EXP: sum of exp(x - max) into `sum`, the maxima being in `max`. */
static void fold_row_exp(const float* row, size_t len, int inner_reduced, const double* max, double* sum) {
  if (inner_reduced) {
    double a = sum[0];
    const double m = isinf(max[0]) ? 0.0 : max[0];
    for (size_t j = 0; j < len; ++j) a += exp((double)row[j] - m);
    sum[0] = a;
  } else {
    for (size_t j = 0; j < len; ++j) sum[j] += exp((double)row[j] - (isinf(max[j]) ? 0.0 : max[j]));
  }
}

void lite_f32_reduce_ref(int kind, const lite_reduce_plan* plan, const float* input, float* output, double* scratch) {
  double* acc = scratch;
  double* sum = scratch + plan->out_count;
  const double initial = initial_value(kind);
  for (size_t i = 0; i < plan->out_count; ++i) {
    acc[i] = initial;
    sum[i] = 0.0;
  }
  for (size_t r = 0; r < plan->rows; ++r)
    fold_row(kind, input + r * plan->inner_len, plan->inner_len, plan->inner_reduced,
             acc + lite_reduce_row_output_offset(plan, r));
  if (kind == LITE_REDUCE_LOG_SUM_EXP) {
    for (size_t r = 0; r < plan->rows; ++r) {
      const size_t offset = lite_reduce_row_output_offset(plan, r);
      fold_row_exp(input + r * plan->inner_len, plan->inner_len, plan->inner_reduced, acc + offset, sum + offset);
    }
  }
  for (size_t i = 0; i < plan->out_count; ++i) {
    double v = acc[i];
    switch (kind) {
      case LITE_REDUCE_MEAN: v = v / (double)plan->reduce_count; break;
      case LITE_REDUCE_L2: v = sqrt(v); break;
      case LITE_REDUCE_LOG_SUM: v = log(v); break;
      case LITE_REDUCE_LOG_SUM_EXP: v = isinf(acc[i]) ? acc[i] : acc[i] + log(sum[i]); break;
      default: break;
    }
    output[i] = (float)v;
  }
}
