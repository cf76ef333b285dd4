/* Element types understood by dtype-generic kernels. The values equal lite_fb::DType in the
 * schema, so the runtime passes a tensor's dtype straight through. */
#ifndef LITE_KERNELS_DTYPE_H
#define LITE_KERNELS_DTYPE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  LITE_DT_F32 = 0,
  LITE_DT_F16 = 1,
  LITE_DT_F64 = 2,
  LITE_DT_I8 = 3,
  LITE_DT_U8 = 4,
  LITE_DT_I16 = 5,
  LITE_DT_I32 = 6,
  LITE_DT_I64 = 7,
  LITE_DT_BOOL = 8, /* one byte, 0 or 1 */
  LITE_DT_U16 = 9,
  LITE_DT_U32 = 10,
  LITE_DT_U64 = 11
} lite_dtype;

/* Bytes per element; 0 for an unknown value. */
static inline size_t lite_dtype_size(int dtype) {
  switch (dtype) {
    case LITE_DT_I8: case LITE_DT_U8: case LITE_DT_BOOL: return 1;
    case LITE_DT_F16: case LITE_DT_I16: case LITE_DT_U16: return 2;
    case LITE_DT_F32: case LITE_DT_I32: case LITE_DT_U32: return 4;
    case LITE_DT_F64: case LITE_DT_I64: case LITE_DT_U64: return 8;
    default: return 0;
  }
}

#ifdef __cplusplus
}
#endif

#endif
