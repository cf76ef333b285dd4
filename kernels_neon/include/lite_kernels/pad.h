/* PAD (ONNX Pad-18 semantics) for any element size. */
#ifndef LITE_KERNELS_PAD_H
#define LITE_KERNELS_PAD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LITE_PAD_MAX_RANK 8

/* Values equal lite_fb::PadMode. */
typedef enum { LITE_PAD_CONSTANT = 0, LITE_PAD_REFLECT = 1, LITE_PAD_EDGE = 2, LITE_PAD_WRAP = 3 } lite_pad_mode;

/* Output dim k is in_dims[k] + pads_begin[k] + pads_end[k] (a negative pad crops). `value` is one
 * element for CONSTANT (NULL = zero bytes). Returns 0, or -1 when a non-constant mode must invent
 * values along an axis of size 0 or rank > LITE_PAD_MAX_RANK. */
int lite_pad_ref(size_t elem_size, int rank, const int64_t* in_dims, const int64_t* pads_begin,
                 const int64_t* pads_end, int mode, const void* value, const void* in, void* out);

#ifdef __cplusplus
}
#endif

#endif
