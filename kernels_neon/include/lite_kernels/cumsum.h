/* CUMSUM along one axis of a tensor viewed as [outer, axis_len, inner] (ONNX CumSum: exclusive
 * shifts the sums by one, reverse sums from the end). fp32, int32, int64 (int wraps). */
#ifndef LITE_KERNELS_CUMSUM_H
#define LITE_KERNELS_CUMSUM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void lite_f32_cumsum_ref(size_t outer, size_t axis_len, size_t inner, int exclusive, int reverse,
                         const float* input, float* output);
void lite_s32_cumsum_ref(size_t outer, size_t axis_len, size_t inner, int exclusive, int reverse,
                         const int32_t* input, int32_t* output);
void lite_s64_cumsum_ref(size_t outer, size_t axis_len, size_t inner, int exclusive, int reverse,
                         const int64_t* input, int64_t* output);

#ifdef __cplusplus
}
#endif

#endif
