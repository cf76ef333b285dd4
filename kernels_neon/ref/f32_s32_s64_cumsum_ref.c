/* Running sums along an axis. The previous output row is the running total, so every step is one
 * contiguous add over `inner` values. U is the type the addition runs in (unsigned for integers,
 * so overflow wraps). */
#include "lite_kernels/cumsum.h"

#define DEFINE_CUMSUM(name, T, U)                                                                      \
  void name(size_t outer, size_t axis_len, size_t inner, int exclusive, int reverse, const T* input,   \
            T* output) {                                                                                \
    for (size_t o = 0; o < outer; ++o) {                                                                \
      const T* x = input + o * axis_len * inner;                                                        \
      T* y = output + o * axis_len * inner;                                                             \
      for (size_t s = 0; s < axis_len; ++s) {                                                           \
        const size_t k = reverse ? axis_len - 1 - s : s;       /* row written now */                    \
        const size_t prev = reverse ? k + 1 : k - 1;           /* row written before (s > 0) */         \
        for (size_t i = 0; i < inner; ++i) {                                                            \
          U total = 0;                                                                                  \
          if (s > 0) total = (U)y[prev * inner + i] + (exclusive ? (U)x[prev * inner + i] : (U)0);       \
          if (!exclusive) total = total + (U)x[k * inner + i];                                         \
          y[k * inner + i] = (T)total;                                                                  \
        }                                                                                               \
      }                                                                                                 \
    }                                                                                                   \
  }

DEFINE_CUMSUM(lite_f32_cumsum_ref, float, float)
DEFINE_CUMSUM(lite_s32_cumsum_ref, int32_t, uint32_t)
DEFINE_CUMSUM(lite_s64_cumsum_ref, int64_t, uint64_t)
