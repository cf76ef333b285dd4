/* Reference NON_ZERO: a typed "is nonzero" test, then an odometer walk over the coordinates. */
#include "lite_kernels/dtype.h"
#include "lite_kernels/nonzero.h"

/* 1 if element i is nonzero, 0 if zero, -1 for an unknown dtype. */
static int is_nonzero(int dtype, const void* x, int64_t i) {
  switch (dtype) {
    case LITE_DT_F32: return ((const float*)x)[i] != 0.0f;
    case LITE_DT_F64: return ((const double*)x)[i] != 0.0;
    case LITE_DT_F16: return (((const uint16_t*)x)[i] & 0x7fffu) != 0;
    case LITE_DT_I8: case LITE_DT_U8: case LITE_DT_BOOL: return ((const uint8_t*)x)[i] != 0;
    case LITE_DT_I16: case LITE_DT_U16: return ((const uint16_t*)x)[i] != 0;
    case LITE_DT_I32: case LITE_DT_U32: return ((const uint32_t*)x)[i] != 0;
    case LITE_DT_I64: case LITE_DT_U64: return ((const uint64_t*)x)[i] != 0;
    default: return -1;
  }
}

int64_t lite_nonzero_count(int dtype, const void* x, int64_t n) {
  if (lite_dtype_size(dtype) == 0) return -1;
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += is_nonzero(dtype, x, i);
  return count;
}

int lite_nonzero_ref(int dtype, int rank, const int64_t* dims, const void* x, int64_t count, int64_t* out) {
  if (lite_dtype_size(dtype) == 0 || rank > 16) return -1;
  int64_t n = 1;
  for (int d = 0; d < rank; ++d) n *= dims[d];
  int64_t idx[16] = {0};
  int64_t j = 0;
  for (int64_t i = 0; i < n && j < count; ++i) {
    if (is_nonzero(dtype, x, i)) {
      for (int d = 0; d < rank; ++d) out[d * count + j] = idx[d];
      ++j;
    }
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
  return 0;
}
