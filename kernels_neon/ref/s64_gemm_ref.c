/* Integer matrix product; arithmetic runs in uint64_t so that overflow wraps (two's complement)
 * instead of being undefined behaviour. */
#include <string.h>

#include "lite_kernels/gemm.h"

void lite_s64_gemm_ref(size_t m, size_t n, size_t k, const int64_t* a, size_t lda, const int64_t* b, size_t ldb,
                       int64_t* c, size_t ldc) {
  for (size_t i = 0; i < m; ++i) {
    int64_t* restrict c_row = c + i * ldc;
    memset(c_row, 0, n * sizeof(int64_t));
    for (size_t p = 0; p < k; ++p) {
      const uint64_t x = (uint64_t)a[i * lda + p];
      const int64_t* restrict b_row = b + p * ldb;
      for (size_t j = 0; j < n; ++j) c_row[j] = (int64_t)((uint64_t)c_row[j] + x * (uint64_t)b_row[j]);
    }
  }
}
