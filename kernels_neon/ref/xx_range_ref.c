/* Reference RANGE for float and integer dtypes. */
#include <float.h>
#include <math.h>

#include "lite_kernels/dtype.h"
#include "lite_kernels/range.h"

/* Reads one element of a numeric dtype as double; returns 0 for an unsupported dtype. */
static int read_as_double(int dtype, const void* p, double* v) {
  switch (dtype) {
    case LITE_DT_F32: *v = *(const float*)p; return 1;
    case LITE_DT_F64: *v = *(const double*)p; return 1;
    case LITE_DT_I8: *v = *(const int8_t*)p; return 1;
    case LITE_DT_I16: *v = *(const int16_t*)p; return 1;
    case LITE_DT_I32: *v = *(const int32_t*)p; return 1;
    case LITE_DT_I64: *v = (double)*(const int64_t*)p; return 1;
    case LITE_DT_U8: *v = *(const uint8_t*)p; return 1;
    case LITE_DT_U16: *v = *(const uint16_t*)p; return 1;
    case LITE_DT_U32: *v = *(const uint32_t*)p; return 1;
    case LITE_DT_U64: *v = (double)*(const uint64_t*)p; return 1;
    default: return 0;
  }
}

int64_t lite_range_count(int dtype, const void* start, const void* limit, const void* delta) {
  double s, l, d;
  if (!read_as_double(dtype, start, &s) || !read_as_double(dtype, limit, &l) || !read_as_double(dtype, delta, &d))
    return -1;
  if (d == 0.0) return -1;
  /* limit - start in the element type first, then the division in double, like onnxruntime. */
  const double raw = l - s;
  /* (float) of a double beyond FLT_MAX is undefined in C: such a difference is +-infinity. */
  const double diff = dtype != LITE_DT_F32 ? raw
                      : fabs(raw) > FLT_MAX ? (raw > 0 ? INFINITY : -INFINITY)
                                            : (double)(float)raw;
  const double n = ceil(diff / d);
  if (!(n > 0.0)) return 0;
  if (n > 9.0e15) return -1;
  return (int64_t)n;
}

#define RANGE_LOOP(T, U)                       \
  do {                                         \
    T v = *(const T*)start;                    \
    const T d = *(const T*)delta;              \
    T* o = (T*)out;                            \
    for (int64_t i = 0; i < n; ++i) {          \
      o[i] = v;                                \
      v = (T)((U)v + (U)d);                    \
    }                                          \
    return 0;                                  \
  } while (0)

int lite_range_ref(int dtype, const void* start, const void* delta, void* out, int64_t n) {
  switch (dtype) {
    case LITE_DT_F32: RANGE_LOOP(float, float);
    case LITE_DT_F64: RANGE_LOOP(double, double);
    case LITE_DT_I8: RANGE_LOOP(int8_t, unsigned);
    case LITE_DT_I16: RANGE_LOOP(int16_t, unsigned);
    case LITE_DT_I32: RANGE_LOOP(int32_t, uint32_t);
    case LITE_DT_I64: RANGE_LOOP(int64_t, uint64_t);
    case LITE_DT_U8: RANGE_LOOP(uint8_t, unsigned);
    case LITE_DT_U16: RANGE_LOOP(uint16_t, unsigned);
    case LITE_DT_U32: RANGE_LOOP(uint32_t, uint32_t);
    case LITE_DT_U64: RANGE_LOOP(uint64_t, uint64_t);
    default: return -1;
  }
}
