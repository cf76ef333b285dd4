/* NON_ZERO (ONNX NonZero): coordinates of the nonzero elements, row-major order. */
#ifndef LITE_KERNELS_NONZERO_H
#define LITE_KERNELS_NONZERO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of nonzero elements of x (n elements of dtype, a lite_dtype), or -1 for an unknown dtype.
 * Float -0.0 counts as zero, NaN as nonzero. */
int64_t lite_nonzero_count(int dtype, const void* x, int64_t n);

/* out is int64 [rank, count]: out[d * count + j] = coordinate d of the j-th nonzero element. */
int lite_nonzero_ref(int dtype, int rank, const int64_t* dims, const void* x, int64_t count, int64_t* out);

#ifdef __cplusplus
}
#endif

#endif
