/* Index of the extreme value of each slice, for fp32, int32 and int64 (one macro body). */
#include "lite_kernels/arg_minmax.h"

/* `better(x, best)`: x replaces the current best; `>=` / `<=` keep the last of equal values. */
#define DEFINE_ARG_MINMAX(name, T)                                                                    \
  void name(size_t outer, size_t axis_len, size_t inner, int is_min, int select_last_index,           \
            const T* input, int64_t* output) {                                                         \
    for (size_t o = 0; o < outer; ++o)                                                                 \
      for (size_t i = 0; i < inner; ++i) {                                                             \
        const T* x = input + o * axis_len * inner + i;                                                 \
        size_t best = 0;                                                                               \
        for (size_t k = 1; k < axis_len; ++k) {                                                        \
          const T v = x[k * inner], b = x[best * inner];                                               \
          const int better = is_min ? (select_last_index ? v <= b : v < b)                             \
                                    : (select_last_index ? v >= b : v > b);                            \
          if (better) best = k;                                                                        \
        }                                                                                              \
        output[o * inner + i] = (int64_t)best;                                                         \
      }                                                                                                \
  }

DEFINE_ARG_MINMAX(lite_f32_arg_minmax_ref, float)
DEFINE_ARG_MINMAX(lite_s32_arg_minmax_ref, int32_t)
DEFINE_ARG_MINMAX(lite_s64_arg_minmax_ref, int64_t)
