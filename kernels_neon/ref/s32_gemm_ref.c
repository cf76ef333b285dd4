/* Integer matrix product; arithmetic runs in uint32_t so that overflow wraps (two's complement)
 * instead of being undefined behaviour. */
#include <string.h>

#include "lite_kernels/gemm.h"

void lite_s32_gemm_ref(size_t m, size_t n, size_t k, const int32_t* a, size_t lda, const int32_t* b, size_t ldb,
                       int32_t* c, size_t ldc) {
  for (size_t i = 0; i < m; ++i) {
    int32_t* restrict c_row = c + i * ldc;
    memset(c_row, 0, n * sizeof(int32_t));
    for (size_t p = 0; p < k; ++p) {
      const uint32_t x = (uint32_t)a[i * lda + p];
      const int32_t* restrict b_row = b + p * ldb;
      for (size_t j = 0; j < n; ++j) c_row[j] = (int32_t)((uint32_t)c_row[j] + x * (uint32_t)b_row[j]);
    }
  }
}
