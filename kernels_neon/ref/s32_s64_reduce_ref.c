/* Integer reductions (int32 and int64 inputs) in int64 accumulators with unsigned arithmetic, so
 * overflow wraps like the int32 / int64 kernels of other runtimes instead of being undefined. */
#include <stdint.h>

#include "lite_kernels/reduce.h"

static int64_t wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t wrap_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static int64_t wrap_abs(int64_t a) { return a < 0 ? (int64_t)(0u - (uint64_t)a) : a; }

static int supported(int kind) {
  return kind == LITE_REDUCE_SUM || kind == LITE_REDUCE_MEAN || kind == LITE_REDUCE_MAX || kind == LITE_REDUCE_MIN ||
         kind == LITE_REDUCE_PROD || kind == LITE_REDUCE_L1 || kind == LITE_REDUCE_SUM_SQUARE;
}

static int64_t initial_value(int kind) {
  switch (kind) {
    case LITE_REDUCE_MAX: return INT64_MIN;
    case LITE_REDUCE_MIN: return INT64_MAX;
    case LITE_REDUCE_PROD: return 1;
    default: return 0;
  }
}

#define FOLD_ROW(EXPR)                     \
  do {                                     \
    if (inner_reduced) {                   \
      int64_t a = acc[0];                  \
      for (size_t j = 0; j < len; ++j) {   \
        const int64_t x = row[j];          \
        a = (EXPR);                        \
      }                                    \
      acc[0] = a;                          \
    } else {                               \
      for (size_t j = 0; j < len; ++j) {   \
        const int64_t a = acc[j], x = row[j]; \
        acc[j] = (EXPR);                   \
      }                                    \
    }                                      \
  } while (0)

/* Defines fold_row_<suffix> for one input element type. */
#define DEFINE_FOLD_ROW(suffix, T)                                                          \
  static void fold_row_##suffix(int kind, const T* row, size_t len, int inner_reduced, int64_t* acc) { \
    switch (kind) {                                                                         \
      case LITE_REDUCE_MAX: FOLD_ROW(x > a ? x : a); break;                                  \
      case LITE_REDUCE_MIN: FOLD_ROW(x < a ? x : a); break;                                  \
      case LITE_REDUCE_PROD: FOLD_ROW(wrap_mul(a, x)); break;                                \
      case LITE_REDUCE_L1: FOLD_ROW(wrap_add(a, wrap_abs(x))); break;                        \
      case LITE_REDUCE_SUM_SQUARE: FOLD_ROW(wrap_add(a, wrap_mul(x, x))); break;             \
      default: FOLD_ROW(wrap_add(a, x)); break;                                              \
    }                                                                                       \
  }

DEFINE_FOLD_ROW(s32, int32_t)
DEFINE_FOLD_ROW(s64, int64_t)

/* Defines lite_<suffix>_reduce_ref. MEAN divides the (wrapped) sum, truncating toward zero. */
#define DEFINE_REDUCE(suffix, T, T_MIN, T_MAX)                                                          \
  int lite_##suffix##_reduce_ref(int kind, const lite_reduce_plan* plan, const T* input, T* output,     \
                                 int64_t* scratch) {                                                    \
    if (!supported(kind)) return 0;                                                                     \
    const int64_t initial = initial_value(kind);                                                        \
    for (size_t i = 0; i < plan->out_count; ++i) scratch[i] = initial;                                  \
    for (size_t r = 0; r < plan->rows; ++r)                                                             \
      fold_row_##suffix(kind, input + r * plan->inner_len, plan->inner_len, plan->inner_reduced,        \
                        scratch + lite_reduce_row_output_offset(plan, r));                              \
    for (size_t i = 0; i < plan->out_count; ++i) {                                                      \
      int64_t v = scratch[i];                                                                           \
      if (kind == LITE_REDUCE_MEAN) v = plan->reduce_count == 0 ? 0 : v / (int64_t)plan->reduce_count; \
      if (plan->reduce_count == 0 && kind == LITE_REDUCE_MAX) v = T_MIN;                                \
      if (plan->reduce_count == 0 && kind == LITE_REDUCE_MIN) v = T_MAX;                                \
      output[i] = (T)v;                                                                                 \
    }                                                                                                   \
    return 1;                                                                                           \
  }

DEFINE_REDUCE(s32, int32_t, INT32_MIN, INT32_MAX)
DEFINE_REDUCE(s64, int64_t, INT64_MIN, INT64_MAX)
