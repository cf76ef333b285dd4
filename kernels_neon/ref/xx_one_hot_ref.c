/* Reference ONE_HOT: fill with the off value, then set one element per index. */
#include <string.h>

#include "lite_kernels/dtype.h"
#include "lite_kernels/fill.h"
#include "lite_kernels/one_hot.h"

/* Reads index i as int64 (floats truncated toward zero); returns 0 for an unsupported dtype. */
static int load_any_index(int dtype, const void* p, int64_t i, int64_t* v) {
  switch (dtype) {
    case LITE_DT_I8: *v = ((const int8_t*)p)[i]; return 1;
    case LITE_DT_U8: *v = ((const uint8_t*)p)[i]; return 1;
    case LITE_DT_I16: *v = ((const int16_t*)p)[i]; return 1;
    case LITE_DT_U16: *v = ((const uint16_t*)p)[i]; return 1;
    case LITE_DT_I32: *v = ((const int32_t*)p)[i]; return 1;
    case LITE_DT_U32: *v = ((const uint32_t*)p)[i]; return 1;
    case LITE_DT_I64: *v = ((const int64_t*)p)[i]; return 1;
    case LITE_DT_U64: *v = (int64_t)((const uint64_t*)p)[i]; return 1;
    case LITE_DT_F32:
    case LITE_DT_F64: {
      const double f = dtype == LITE_DT_F32 ? ((const float*)p)[i] : ((const double*)p)[i];
      *v = (f > -9.0e18 && f < 9.0e18) ? (int64_t)f : INT64_MIN;
      return 1;
    }
    default: return 0;
  }
}

int lite_one_hot_ref(int index_dtype, const void* indices, int64_t outer, int64_t inner, int64_t depth,
                     size_t elem_size, const void* off_value, const void* on_value, void* out) {
  int64_t probe;
  if (outer * inner > 0 && !load_any_index(index_dtype, indices, 0, &probe)) return -1;
  lite_fill_ref(elem_size, off_value, out, (size_t)(outer * depth * inner));
  char* dst = (char*)out;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      int64_t k = 0;
      load_any_index(index_dtype, indices, o * inner + i, &k);
      if (k < 0) k += depth;
      if (k < 0 || k >= depth) continue;
      memcpy(dst + (size_t)((o * depth + k) * inner + i) * elem_size, on_value, elem_size);
    }
  }
  return 0;
}
