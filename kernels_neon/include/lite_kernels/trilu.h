/* TRILU (ONNX Trilu) for any element size: keeps the upper or lower triangle of each matrix of the
 * last two dims, relative to diagonal k, and zeroes the rest. */
#ifndef LITE_KERNELS_TRILU_H
#define LITE_KERNELS_TRILU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* x and out are [batch, rows, cols]; upper keeps j - i >= k, lower keeps j - i <= k. */
void lite_trilu_ref(size_t elem_size, int64_t batch, int64_t rows, int64_t cols, int64_t k, int upper,
                    const void* x, void* out);

#ifdef __cplusplus
}
#endif

#endif
