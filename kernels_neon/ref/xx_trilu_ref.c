/* Reference TRILU: per row, one zeroed run and one copied run. */
#include <string.h>

#include "lite_kernels/trilu.h"

static int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

void lite_trilu_ref(size_t elem_size, int64_t batch, int64_t rows, int64_t cols, int64_t k, int upper,
                    const void* x, void* out) {
  const char* src = (const char*)x;
  char* dst = (char*)out;
  const size_t row_bytes = (size_t)cols * elem_size;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < rows; ++i) {
      /* Columns [first, last) are kept. Clamp k + i before it can overflow. */
      const int64_t diag = clamp(k, -cols - rows, cols + rows) + i;
      const int64_t first = upper ? clamp(diag, 0, cols) : 0;
      const int64_t last = upper ? cols : clamp(diag + 1, 0, cols);
      const size_t offset = (size_t)(b * rows + i) * row_bytes;
      memset(dst + offset, 0, row_bytes);
      if (last > first)
        memcpy(dst + offset + (size_t)first * elem_size, src + offset + (size_t)first * elem_size,
               (size_t)(last - first) * elem_size);
    }
  }
}
