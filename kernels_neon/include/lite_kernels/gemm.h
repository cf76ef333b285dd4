/* Dense matrix products: C[m, n] = A[m, k] · B[k, n] (+ bias[n], then activation), row-major with
 * leading dimensions. Used by MATMUL (B as given) and FULLY_CONNECTED (whose [n, k] weight is
 * transposed once into B). fp32, and int32 / int64 with two's-complement wraparound like ONNX
 * runtimes. */
#ifndef LITE_KERNELS_GEMM_H
#define LITE_KERNELS_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/activation.h"

#ifdef __cplusplus
extern "C" {
#endif

/* bias may be NULL; act may be NULL (no activation). C must not overlap A or B. */
void lite_f32_gemm_ref(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b, size_t ldb,
                       const float* bias, const lite_activation* act, float* c, size_t ldc);

void lite_s32_gemm_ref(size_t m, size_t n, size_t k, const int32_t* a, size_t lda, const int32_t* b, size_t ldb,
                       int32_t* c, size_t ldc);

void lite_s64_gemm_ref(size_t m, size_t n, size_t k, const int64_t* a, size_t lda, const int64_t* b, size_t ldb,
                       int64_t* c, size_t ldc);

/* out[c, r] = in[r, c] for a rows x cols matrix (e.g. a [n, k] weight into a [k, n] B). */
void lite_f32_transpose_2d_ref(size_t rows, size_t cols, const float* input, float* output);

#ifdef __cplusplus
}
#endif

#endif
