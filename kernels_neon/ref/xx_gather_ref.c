/* Reference GATHER, GATHER_ELEMENTS, GATHER_ND: bounds-checked index walks with block copies. */
#include <string.h>

#include "index_util.h"
#include "lite_kernels/gather.h"

int lite_gather_ref(size_t elem_size, const void* data, int64_t outer, int64_t axis_dim, int64_t inner,
                    const void* indices, int index_is_64, int64_t num_indices, void* out, int64_t* bad_index) {
  const size_t block = (size_t)inner * elem_size;
  for (int64_t j = 0; j < num_indices; ++j) {
    int64_t i;
    if (!lite_wrap_index(lite_load_index(indices, index_is_64, j), axis_dim, &i)) {
      *bad_index = lite_load_index(indices, index_is_64, j);
      return -1;
    }
  }
  const char* src = (const char*)data;
  char* dst = (char*)out;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < num_indices; ++j) {
      int64_t i = 0;
      lite_wrap_index(lite_load_index(indices, index_is_64, j), axis_dim, &i);
      memcpy(dst, src + (size_t)(o * axis_dim + i) * block, block);
      dst += block;
    }
  }
  return 0;
}

int lite_gather_elements_ref(size_t elem_size, int rank, const int64_t* data_dims, const void* data,
                             const int64_t* index_dims, const void* indices, int index_is_64, int axis,
                             void* out, int64_t* bad_index) {
  if (rank < 1 || rank > LITE_GATHER_MAX_RANK) return -1;
  int64_t strides[LITE_GATHER_MAX_RANK], count = 1, stride = 1;
  for (int k = rank - 1; k >= 0; --k) {
    strides[k] = stride;
    stride *= data_dims[k];
    count *= index_dims[k];
  }
  int64_t idx[LITE_GATHER_MAX_RANK] = {0};
  const char* src = (const char*)data;
  char* dst = (char*)out;
  for (int64_t n = 0; n < count; ++n) {
    const int64_t raw = lite_load_index(indices, index_is_64, n);
    int64_t i;
    if (!lite_wrap_index(raw, data_dims[axis], &i)) {
      *bad_index = raw;
      return -1;
    }
    int64_t offset = 0;
    for (int k = 0; k < rank; ++k) offset += (k == axis ? i : idx[k]) * strides[k];
    memcpy(dst + (size_t)n * elem_size, src + (size_t)offset * elem_size, elem_size);
    for (int k = rank - 1; k >= 0; --k) {
      if (++idx[k] < index_dims[k]) break;
      idx[k] = 0;
    }
  }
  return 0;
}

int lite_gather_nd_ref(size_t elem_size, int data_rank, const int64_t* data_dims, const void* data,
                       int index_rank, const int64_t* index_dims, const void* indices, int index_is_64,
                       int batch_dims, void* out, int64_t* bad_index) {
  if (index_rank < 1) return -1;
  const int64_t k = index_dims[index_rank - 1];
  if (batch_dims + k > data_rank) return -1;
  int64_t batches = 1, tuples = 1, slice = 1;
  for (int d = 0; d < batch_dims; ++d) batches *= data_dims[d];
  for (int d = batch_dims; d < index_rank - 1; ++d) tuples *= index_dims[d];
  for (int d = batch_dims + (int)k; d < data_rank; ++d) slice *= data_dims[d];
  /* Element stride of each indexed data dim, within one batch. */
  int64_t strides[LITE_GATHER_MAX_RANK];
  int64_t stride = slice;
  for (int d = batch_dims + (int)k - 1; d >= batch_dims; --d) {
    strides[d - batch_dims] = stride;
    stride *= data_dims[d];
  }
  const int64_t batch_elems = stride;
  const size_t slice_bytes = (size_t)slice * elem_size;
  const char* src = (const char*)data;
  char* dst = (char*)out;
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t t = 0; t < tuples; ++t) {
      const int64_t base = (b * tuples + t) * k;
      int64_t offset = b * batch_elems;
      for (int64_t j = 0; j < k; ++j) {
        const int64_t raw = lite_load_index(indices, index_is_64, base + j);
        int64_t i;
        if (!lite_wrap_index(raw, data_dims[batch_dims + j], &i)) {
          *bad_index = raw;
          return -1;
        }
        offset += i * strides[j];
      }
      memcpy(dst, src + (size_t)offset * elem_size, slice_bytes);
      dst += slice_bytes;
    }
  }
  return 0;
}
