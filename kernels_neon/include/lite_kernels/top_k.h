/* TOP_K along one axis of a tensor viewed as [outer, axis_len, inner]: the k largest (or smallest)
 * values of every slice and their int64 indices, output [outer, k, inner]. The result is always
 * sorted best first, ties broken by the lower index (ONNX TopK); sorted output is also a valid
 * answer when the model asked for unsorted. */
#ifndef LITE_KERNELS_TOP_K_H
#define LITE_KERNELS_TOP_K_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* k <= axis_len. scratch: k int64 values. */
void lite_f32_top_k_ref(size_t outer, size_t axis_len, size_t inner, size_t k, int largest, const float* input,
                        float* values, int64_t* indices, int64_t* scratch);
void lite_s32_top_k_ref(size_t outer, size_t axis_len, size_t inner, size_t k, int largest, const int32_t* input,
                        int32_t* values, int64_t* indices, int64_t* scratch);
void lite_s64_top_k_ref(size_t outer, size_t axis_len, size_t inner, size_t k, int largest, const int64_t* input,
                        int64_t* values, int64_t* indices, int64_t* scratch);

#ifdef __cplusplus
}
#endif

#endif
