/* Reference elementwise unary ops. Float math per float type comes from f32_f64_unary_ref_body.h;
 * integer types support the sign/clamp family, BOOL supports LOGICAL_NOT, every type IDENTITY. */
#include <stdint.h>
#include <string.h>
#include <tgmath.h>

#include "lite_kernels/dtype.h"
#include "lite_kernels/elementwise_unary.h"

#define FT float
#define FSUFFIX f32
#include "f32_f64_unary_ref_body.h"
#undef FT
#undef FSUFFIX

#define FT double
#define FSUFFIX f64
#include "f32_f64_unary_ref_body.h"
#undef FT
#undef FSUFFIX

/* Converts a float clip bound into the integer range [tmin, tmax] without overflowing; a NaN bound
 * (from the model's options) is no bound: `if_nan` (tmin for the lower bound, tmax for the upper). */
#define CLAMP_BOUND(T, value, tmin, tmax, if_nan)                                                    \
  ((value) != (value) ? (T)(if_nan)                                                                  \
                      : ((value) >= (double)(tmax) ? (T)(tmax)                                       \
                                                   : ((value) <= (double)(tmin) ? (T)(tmin) : (T)(value))))

#define INT_MAP(T, EXPR)               \
  for (size_t i = 0; i < n; ++i) {     \
    const T v = x[i];                  \
    y[i] = (T)(EXPR);                  \
  }                                    \
  return 0

/* s = suffix, T = type, W = wrapping unsigned type for negation, TMIN/TMAX = range. */
#define SIGNED_UNARY(s, T, W, TMIN, TMAX)                                                    \
  static int unary_##s(int op, const lite_unary_params* p, const T* x, T* y, size_t n) {     \
    switch (op) {                                                                            \
      case LITE_UN_ABS: INT_MAP(T, v < 0 ? (T)(0u - (W)v) : v);                              \
      case LITE_UN_NEG: INT_MAP(T, (T)(0u - (W)v));                                          \
      case LITE_UN_SIGN: INT_MAP(T, v > 0 ? 1 : (v < 0 ? -1 : 0));                           \
      case LITE_UN_RELU: INT_MAP(T, v > 0 ? v : 0);                                          \
      case LITE_UN_CLIP: {                                                                   \
        const T lo = CLAMP_BOUND(T, (double)p->alpha, TMIN, TMAX, TMIN);                     \
        const T hi = CLAMP_BOUND(T, (double)p->beta, TMIN, TMAX, TMAX);                      \
        INT_MAP(T, v < lo ? lo : (v > hi ? hi : v));                                         \
      }                                                                                      \
      default: return -1;                                                                    \
    }                                                                                        \
  }

#define UNSIGNED_UNARY(s, T, TMAX)                                                           \
  static int unary_##s(int op, const lite_unary_params* p, const T* x, T* y, size_t n) {     \
    switch (op) {                                                                            \
      case LITE_UN_ABS:                                                                      \
      case LITE_UN_RELU: INT_MAP(T, v);                                                      \
      case LITE_UN_SIGN: INT_MAP(T, v > 0 ? 1 : 0);                                          \
      case LITE_UN_CLIP: {                                                                   \
        const T lo = CLAMP_BOUND(T, (double)p->alpha, 0, TMAX, 0);                           \
        const T hi = CLAMP_BOUND(T, (double)p->beta, 0, TMAX, TMAX);                         \
        INT_MAP(T, v < lo ? lo : (v > hi ? hi : v));                                         \
      }                                                                                      \
      default: return -1;                                                                    \
    }                                                                                        \
  }

SIGNED_UNARY(i8, int8_t, unsigned, INT8_MIN, INT8_MAX)
SIGNED_UNARY(i16, int16_t, unsigned, INT16_MIN, INT16_MAX)
SIGNED_UNARY(i32, int32_t, uint32_t, INT32_MIN, INT32_MAX)
SIGNED_UNARY(i64, int64_t, uint64_t, INT64_MIN, INT64_MAX)
UNSIGNED_UNARY(u8, uint8_t, UINT8_MAX)
UNSIGNED_UNARY(u16, uint16_t, UINT16_MAX)
UNSIGNED_UNARY(u32, uint32_t, UINT32_MAX)
UNSIGNED_UNARY(u64, uint64_t, UINT64_MAX)

static int unary_bool(int op, const uint8_t* x, uint8_t* y, size_t n) {
  if (op != LITE_UN_LOGICAL_NOT) return -1;
  for (size_t i = 0; i < n; ++i) y[i] = x[i] ? 0 : 1;
  return 0;
}

static int dispatch(int op, int dtype, const lite_unary_params* p, const void* x, void* y, size_t n) {
  switch (dtype) {
    case LITE_DT_F32: return unary_f32(op, p, (const float*)x, y, n);
    case LITE_DT_F64: return unary_f64(op, p, (const double*)x, y, n);
    case LITE_DT_I8: return unary_i8(op, p, (const int8_t*)x, (int8_t*)y, n);
    case LITE_DT_I16: return unary_i16(op, p, (const int16_t*)x, (int16_t*)y, n);
    case LITE_DT_I32: return unary_i32(op, p, (const int32_t*)x, (int32_t*)y, n);
    case LITE_DT_I64: return unary_i64(op, p, (const int64_t*)x, (int64_t*)y, n);
    case LITE_DT_U8: return unary_u8(op, p, (const uint8_t*)x, (uint8_t*)y, n);
    case LITE_DT_U16: return unary_u16(op, p, (const uint16_t*)x, (uint16_t*)y, n);
    case LITE_DT_U32: return unary_u32(op, p, (const uint32_t*)x, (uint32_t*)y, n);
    case LITE_DT_U64: return unary_u64(op, p, (const uint64_t*)x, (uint64_t*)y, n);
    case LITE_DT_BOOL: return unary_bool(op, (const uint8_t*)x, (uint8_t*)y, n);
    default: return -1;
  }
}

int lite_unary_outputs_bool(int op) {
  return op == LITE_UN_IS_NAN || op == LITE_UN_IS_INF || op == LITE_UN_LOGICAL_NOT;
}

int lite_unary_supported(int op, int dtype) {
  if (op == LITE_UN_IDENTITY) return lite_dtype_size(dtype) != 0;
  /* Probe with one zero element: every op/dtype pair that is implemented accepts it. */
  const uint64_t zero = 0;
  uint64_t sink = 0;
  const lite_unary_params params = {0.0f, 0.0f, 0.0f, 0};
  return dispatch(op, dtype, &params, &zero, &sink, 1) == 0;
}

int lite_unary_ref(int op, int dtype, const lite_unary_params* params, const void* x, void* y, size_t n) {
  if (op == LITE_UN_IDENTITY) {
    const size_t size = lite_dtype_size(dtype);
    if (size == 0) return -1;
    if (x != y && n > 0) memcpy(y, x, n * size);
    return 0;
  }
  return dispatch(op, dtype, params, x, y, n);
}
