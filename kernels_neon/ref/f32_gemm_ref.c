/* i-k-j loop order: each row of C is the accumulator and each A[i, p] is broadcast over the
 * contiguous row p of B, so the inner loop vectorizes without reassociating sums. */
#include <string.h>

#include "lite_kernels/gemm.h"

void lite_f32_gemm_ref(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b, size_t ldb,
                       const float* bias, const lite_activation* act, float* c, size_t ldc) {
  for (size_t i = 0; i < m; ++i) {
    float* restrict c_row = c + i * ldc;
    const float* restrict a_row = a + i * lda;
    if (n == 1) { /* matrix-vector product: a plain dot product */
      float sum = bias != NULL ? bias[0] : 0.0f;
      for (size_t p = 0; p < k; ++p) sum += a_row[p] * b[p * ldb];
      c_row[0] = sum;
    } else {
      if (bias != NULL)
        memcpy(c_row, bias, n * sizeof(float));
      else
        memset(c_row, 0, n * sizeof(float));
      for (size_t p = 0; p < k; ++p) {
        const float x = a_row[p];
        const float* restrict b_row = b + p * ldb;
        for (size_t j = 0; j < n; ++j) c_row[j] += x * b_row[j];
      }
    }
    if (act != NULL) lite_activate_rows(act, c_row, 1, n);
  }
}

void lite_f32_transpose_2d_ref(size_t rows, size_t cols, const float* input, float* output) {
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) output[c * rows + r] = input[r * cols + c];
}
