/* DEPTH_TO_SPACE / SPACE_TO_DEPTH on channels-last (NHWC) data with ONNX channel orders, for any
 * element type. With block b and C' = C / (b * b), output pixel (h * b + i, w * b + j) channel c
 * comes from input pixel (h, w) channel
 *   DCR: (i * b + j) * C' + c     CRD: c * b * b + i * b + j
 * SPACE_TO_DEPTH is the exact inverse of DEPTH_TO_SPACE in the same mode (ONNX defines DCR only). */
#ifndef LITE_KERNELS_DEPTH_TO_SPACE_H
#define LITE_KERNELS_DEPTH_TO_SPACE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* input [batch, in_h, in_w, in_c] -> output [batch, in_h * block, in_w * block, in_c / block^2]. */
void lite_depth_to_space_nhwc_ref(size_t batch, size_t in_h, size_t in_w, size_t in_c, size_t block, int crd,
                                  size_t element_size, const void* input, void* output);

/* input [batch, in_h, in_w, in_c] -> output [batch, in_h / block, in_w / block, in_c * block^2]. */
void lite_space_to_depth_nhwc_ref(size_t batch, size_t in_h, size_t in_w, size_t in_c, size_t block, int crd,
                                  size_t element_size, const void* input, void* output);

#ifdef __cplusplus
}
#endif

#endif
