/* GATHER, GATHER_ELEMENTS and GATHER_ND (ONNX semantics) for any element size. Indices are INT32 or
 * INT64 (index_is_64), negative values count from the end. Every index is bounds-checked before
 * use: an out-of-range index makes the kernel return -1 with the offending value in *bad_index,
 * never a read outside `data`. */
#ifndef LITE_KERNELS_GATHER_H
#define LITE_KERNELS_GATHER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LITE_GATHER_MAX_RANK 8

/* data viewed as [outer, axis_dim, inner]; out = [outer, num_indices, inner]. */
int lite_gather_ref(size_t elem_size, const void* data, int64_t outer, int64_t axis_dim, int64_t inner,
                    const void* indices, int index_is_64, int64_t num_indices, void* out, int64_t* bad_index);

/* out has the indices' shape; out[i] = data[i with coordinate `axis` replaced by indices[i]]. */
int lite_gather_elements_ref(size_t elem_size, int rank, const int64_t* data_dims, const void* data,
                             const int64_t* index_dims, const void* indices, int index_is_64, int axis,
                             void* out, int64_t* bad_index);

/* ONNX GatherND with batch_dims: out shape = index_dims[:-1] + data_dims[batch_dims + index_dims[-1]:]. */
int lite_gather_nd_ref(size_t elem_size, int data_rank, const int64_t* data_dims, const void* data,
                       int index_rank, const int64_t* index_dims, const void* indices, int index_is_64,
                       int batch_dims, void* out, int64_t* bad_index);

#ifdef __cplusplus
}
#endif

#endif
