/* Copies a strided view of a tensor into a contiguous buffer, for any element size. One kernel
 * serves every pure data rearrangement: TRANSPOSE (permuted strides), SLICE (scaled, possibly
 * negative strides), EXPAND (stride 0 on broadcast dims) and TILE (a rank-2r view with stride 0
 * on the repeat dims). */
#ifndef LITE_KERNELS_STRIDED_COPY_H
#define LITE_KERNELS_STRIDED_COPY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LITE_STRIDED_COPY_MAX_RANK 16

/* out[i_0, ..., i_{rank-1}] (contiguous, shape dims) = in[sum_k i_k * in_strides[k]]; strides are
 * in elements, may be 0 or negative; `in` points at the view's first element. rank <= 16;
 * rank 0 copies one element. */
void lite_strided_copy_ref(size_t elem_size, int rank, const int64_t* dims, const void* in,
                           const int64_t* in_strides, void* out);

#ifdef __cplusplus
}
#endif

#endif
