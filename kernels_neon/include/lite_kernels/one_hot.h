/* ONE_HOT (ONNX OneHot): indices of any numeric dtype (floats are truncated), negative indices
 * count from depth, out-of-range ones give an all-off row; values = [off, on] of any element size. */
#ifndef LITE_KERNELS_ONE_HOT_H
#define LITE_KERNELS_ONE_HOT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* indices viewed as [outer, inner] (split at the output's one-hot axis); out = [outer, depth, inner].
 * Returns 0, or -1 for an unsupported index dtype (lite_dtype). */
int lite_one_hot_ref(int index_dtype, const void* indices, int64_t outer, int64_t inner, int64_t depth,
                     size_t elem_size, const void* off_value, const void* on_value, void* out);

#ifdef __cplusplus
}
#endif

#endif
