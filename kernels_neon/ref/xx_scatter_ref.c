/* Reference SCATTER_ELEMENTS / SCATTER_ND. Indices are all validated first, so a bad index leaves
 * the output untouched; then each update is combined into its destination element in order. */
#include <string.h>

#include "index_util.h"
#include "lite_kernels/cast.h"
#include "lite_kernels/dtype.h"
#include "lite_kernels/scatter.h"

#define COMBINE(T)                                                      \
  do {                                                                  \
    T* d = (T*)dst;                                                     \
    const T* s = (const T*)src;                                         \
    for (int64_t i = 0; i < n; ++i) {                                   \
      switch (reduction) {                                              \
        case LITE_SCATTER_ADD: d[i] = (T)(d[i] + s[i]); break;          \
        case LITE_SCATTER_MUL: d[i] = (T)(d[i] * s[i]); break;          \
        case LITE_SCATTER_MAX: d[i] = d[i] > s[i] ? d[i] : s[i]; break; \
        case LITE_SCATTER_MIN: d[i] = d[i] < s[i] ? d[i] : s[i]; break; \
        default: d[i] = s[i]; break;                                    \
      }                                                                 \
    }                                                                   \
  } while (0)

/* Integer add/mul wrap: computed in the unsigned type of the same width. */
#define COMBINE_INT(T, U)                                                \
  do {                                                                   \
    T* d = (T*)dst;                                                      \
    const T* s = (const T*)src;                                          \
    for (int64_t i = 0; i < n; ++i) {                                    \
      switch (reduction) {                                               \
        case LITE_SCATTER_ADD: d[i] = (T)((U)d[i] + (U)s[i]); break;     \
        case LITE_SCATTER_MUL: d[i] = (T)((U)d[i] * (U)s[i]); break;     \
        case LITE_SCATTER_MAX: d[i] = d[i] > s[i] ? d[i] : s[i]; break;  \
        case LITE_SCATTER_MIN: d[i] = d[i] < s[i] ? d[i] : s[i]; break;  \
        default: d[i] = s[i]; break;                                     \
      }                                                                  \
    }                                                                    \
  } while (0)

int lite_scatter_supported(int dtype, int reduction) {
  if (lite_dtype_size(dtype) == 0 || reduction < LITE_SCATTER_NONE || reduction > LITE_SCATTER_MIN) return 0;
  return reduction == LITE_SCATTER_NONE || dtype != LITE_DT_BOOL;
}

/* dst[0..n) op= src[0..n) */
static void combine(int dtype, int reduction, void* dst, const void* src, int64_t n) {
  if (reduction == LITE_SCATTER_NONE) {
    memcpy(dst, src, (size_t)n * lite_dtype_size(dtype));
    return;
  }
  switch (dtype) {
    case LITE_DT_F32: COMBINE(float); break;
    case LITE_DT_F64: COMBINE(double); break;
    case LITE_DT_I8: COMBINE_INT(int8_t, unsigned); break;
    case LITE_DT_U8: COMBINE_INT(uint8_t, unsigned); break;
    case LITE_DT_I16: COMBINE_INT(int16_t, unsigned); break;
    case LITE_DT_U16: COMBINE_INT(uint16_t, unsigned); break;
    case LITE_DT_I32: COMBINE_INT(int32_t, uint32_t); break;
    case LITE_DT_U32: COMBINE_INT(uint32_t, uint32_t); break;
    case LITE_DT_I64: COMBINE_INT(int64_t, uint64_t); break;
    case LITE_DT_U64: COMBINE_INT(uint64_t, uint64_t); break;
    case LITE_DT_F16: {
      uint16_t* d = (uint16_t*)dst;
      const uint16_t* s = (const uint16_t*)src;
      for (int64_t i = 0; i < n; ++i) {
        float a = lite_f16_to_f32(d[i]);
        const float b = lite_f16_to_f32(s[i]);
        switch (reduction) {
          case LITE_SCATTER_ADD: a += b; break;
          case LITE_SCATTER_MUL: a *= b; break;
          case LITE_SCATTER_MAX: a = a > b ? a : b; break;
          default: a = a < b ? a : b; break;
        }
        d[i] = lite_f32_to_f16(a);
      }
      break;
    }
    default: break;
  }
}

int lite_scatter_elements_ref(int dtype, int rank, const int64_t* data_dims, void* out, const int64_t* index_dims,
                              const void* indices, int index_is_64, const void* updates, int axis, int reduction,
                              int64_t* bad_index) {
  if (rank < 1 || rank > LITE_SCATTER_MAX_RANK || !lite_scatter_supported(dtype, reduction)) return -1;
  const size_t elem = lite_dtype_size(dtype);
  int64_t strides[LITE_SCATTER_MAX_RANK], count = 1, stride = 1;
  for (int k = rank - 1; k >= 0; --k) {
    strides[k] = stride;
    stride *= data_dims[k];
    count *= index_dims[k];
  }
  for (int64_t n = 0; n < count; ++n) {
    int64_t i;
    const int64_t raw = lite_load_index(indices, index_is_64, n);
    if (!lite_wrap_index(raw, data_dims[axis], &i)) {
      *bad_index = raw;
      return -1;
    }
  }
  int64_t idx[LITE_SCATTER_MAX_RANK] = {0};
  for (int64_t n = 0; n < count; ++n) {
    int64_t i = 0;
    lite_wrap_index(lite_load_index(indices, index_is_64, n), data_dims[axis], &i);
    int64_t offset = 0;
    for (int k = 0; k < rank; ++k) offset += (k == axis ? i : idx[k]) * strides[k];
    combine(dtype, reduction, (char*)out + (size_t)offset * elem, (const char*)updates + (size_t)n * elem, 1);
    for (int k = rank - 1; k >= 0; --k) {
      if (++idx[k] < index_dims[k]) break;
      idx[k] = 0;
    }
  }
  return 0;
}

int lite_scatter_nd_ref(int dtype, int data_rank, const int64_t* data_dims, void* out, int index_rank,
                        const int64_t* index_dims, const void* indices, int index_is_64, const void* updates,
                        int reduction, int64_t* bad_index) {
  if (index_rank < 1 || !lite_scatter_supported(dtype, reduction)) return -1;
  const int64_t k = index_dims[index_rank - 1];
  if (k > data_rank || data_rank > LITE_SCATTER_MAX_RANK) return -1;
  const size_t elem = lite_dtype_size(dtype);
  int64_t tuples = 1, slice = 1;
  for (int d = 0; d < index_rank - 1; ++d) tuples *= index_dims[d];
  for (int d = (int)k; d < data_rank; ++d) slice *= data_dims[d];
  int64_t strides[LITE_SCATTER_MAX_RANK], stride = slice;
  for (int d = (int)k - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= data_dims[d];
  }
  for (int64_t n = 0; n < tuples * k; ++n) {
    int64_t i;
    const int64_t raw = lite_load_index(indices, index_is_64, n);
    if (!lite_wrap_index(raw, data_dims[n % k], &i)) {
      *bad_index = raw;
      return -1;
    }
  }
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = 0;
    for (int64_t j = 0; j < k; ++j) {
      int64_t i = 0;
      lite_wrap_index(lite_load_index(indices, index_is_64, t * k + j), data_dims[j], &i);
      offset += i * strides[j];
    }
    combine(dtype, reduction, (char*)out + (size_t)offset * elem, (const char*)updates + (size_t)(t * slice) * elem,
            slice);
  }
  return 0;
}
