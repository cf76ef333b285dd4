/* ARG_MAX / ARG_MIN along one axis of a tensor viewed as [outer, axis_len, inner]; output int64
 * [outer, inner]. Ties pick the first index, or the last with select_last_index. */
#ifndef LITE_KERNELS_ARG_MINMAX_H
#define LITE_KERNELS_ARG_MINMAX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void lite_f32_arg_minmax_ref(size_t outer, size_t axis_len, size_t inner, int is_min, int select_last_index,
                             const float* input, int64_t* output);
void lite_s32_arg_minmax_ref(size_t outer, size_t axis_len, size_t inner, int is_min, int select_last_index,
                             const int32_t* input, int64_t* output);
void lite_s64_arg_minmax_ref(size_t outer, size_t axis_len, size_t inner, int is_min, int select_last_index,
                             const int64_t* input, int64_t* output);

#ifdef __cplusplus
}
#endif

#endif
