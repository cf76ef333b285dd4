/* SCATTER_ELEMENTS and SCATTER_ND (ONNX semantics, with reductions). The output must already hold
 * a copy of `data`; the kernels write the updates into it. Indices are INT32 or INT64, negative
 * values count from the end, out-of-range ones make the kernel return -1 (*bad_index = value)
 * before anything is written. Reductions other than NONE need an arithmetic dtype. */
#ifndef LITE_KERNELS_SCATTER_H
#define LITE_KERNELS_SCATTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LITE_SCATTER_MAX_RANK 8

/* Values equal ScatterOptions.reduction in the schema. */
typedef enum {
  LITE_SCATTER_NONE = 0,
  LITE_SCATTER_ADD = 1,
  LITE_SCATTER_MUL = 2,
  LITE_SCATTER_MAX = 3,
  LITE_SCATTER_MIN = 4
} lite_scatter_reduction;

/* True when `reduction` is implemented for dtype (lite_dtype). */
int lite_scatter_supported(int dtype, int reduction);

/* updates and indices share index_dims; out[i with coordinate axis replaced by indices[i]] op= updates[i]. */
int lite_scatter_elements_ref(int dtype, int rank, const int64_t* data_dims, void* out, const int64_t* index_dims,
                              const void* indices, int index_is_64, const void* updates, int axis, int reduction,
                              int64_t* bad_index);

/* updates shape = index_dims[:-1] + data_dims[index_dims[-1]:]. */
int lite_scatter_nd_ref(int dtype, int data_rank, const int64_t* data_dims, void* out, int index_rank,
                        const int64_t* index_dims, const void* indices, int index_is_64, const void* updates,
                        int reduction, int64_t* bad_index);

#ifdef __cplusplus
}
#endif

#endif
