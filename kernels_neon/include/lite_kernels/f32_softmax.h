/* SOFTMAX, LOG_SOFTMAX and HARDMAX along one axis, fp32. The tensor is viewed as
 * [outer, axis_len, inner]: the axis elements of one slice are `inner` apart. */
#ifndef LITE_KERNELS_SOFTMAX_H
#define LITE_KERNELS_SOFTMAX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* exp(x - max) / sum(exp(x - max)) over the axis. */
void lite_f32_softmax_ref(size_t outer, size_t axis_len, size_t inner, const float* input, float* output);

/* x - max - log(sum(exp(x - max))) over the axis. */
void lite_f32_log_softmax_ref(size_t outer, size_t axis_len, size_t inner, const float* input, float* output);

/* 1 at the first maximum of each slice, 0 elsewhere. */
void lite_f32_hardmax_ref(size_t outer, size_t axis_len, size_t inner, const float* input, float* output);

#ifdef __cplusplus
}
#endif

#endif
