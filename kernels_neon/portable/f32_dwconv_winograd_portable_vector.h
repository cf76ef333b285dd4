/* A portable 4-lane "vector" (a struct of 4 floats with inline operations) for the portable
 * instantiations of the depthwise and Winograd bodies. Channels-last kernels want the channel loop
 * innermost; with a one-float vector the bodies would walk the image once per channel, so the
 * portable variants process 4 channels at a time like NEON does, and the compiler is free to map
 * the struct onto whatever SIMD the target has (no intrinsics). With GCC/Clang the type is a generic
 * vector (__attribute__((vector_size))), which these compilers lower to the target's SIMD or to
 * scalar code on any target; other compilers get the plain struct. */
#ifndef LITE_F32_DWCONV_WINOGRAD_PORTABLE_VECTOR_H
#define LITE_F32_DWCONV_WINOGRAD_PORTABLE_VECTOR_H

#include <string.h>

#if defined(__GNUC__)
typedef float lite_pv4 __attribute__((vector_size(16)));
static inline lite_pv4 lite_pv4_load(const float* p) {
  lite_pv4 r;
  memcpy(&r, p, sizeof(r));
  return r;
}
static inline void lite_pv4_store(float* p, lite_pv4 a) { memcpy(p, &a, sizeof(a)); }
static inline lite_pv4 lite_pv4_set1(float x) { return (lite_pv4){x, x, x, x}; }
static inline lite_pv4 lite_pv4_add(lite_pv4 a, lite_pv4 b) { return a + b; }
static inline lite_pv4 lite_pv4_sub(lite_pv4 a, lite_pv4 b) { return a - b; }
static inline lite_pv4 lite_pv4_mul(lite_pv4 a, lite_pv4 b) { return a * b; }
static inline lite_pv4 lite_pv4_max(lite_pv4 a, lite_pv4 b) {
  for (int i = 0; i < 4; ++i) a[i] = b[i] > a[i] ? b[i] : a[i]; /* NaN in a stays */
  return a;
}
static inline lite_pv4 lite_pv4_min(lite_pv4 a, lite_pv4 b) {
  for (int i = 0; i < 4; ++i) a[i] = b[i] < a[i] ? b[i] : a[i]; /* NaN in a stays */
  return a;
}
static inline lite_pv4 lite_pv4_fma(lite_pv4 acc, lite_pv4 a, lite_pv4 b) { return acc + a * b; }
#else
typedef struct {
  float v[4];
} lite_pv4;

static inline lite_pv4 lite_pv4_load(const float* p) {
  lite_pv4 r;
  memcpy(r.v, p, sizeof(r.v));
  return r;
}
static inline void lite_pv4_store(float* p, lite_pv4 a) { memcpy(p, a.v, sizeof(a.v)); }
static inline lite_pv4 lite_pv4_set1(float x) {
  lite_pv4 r = {{x, x, x, x}};
  return r;
}
#define LITE_PV4_BINARY(name, expr)                       \
  static inline lite_pv4 name(lite_pv4 a, lite_pv4 b) {   \
    lite_pv4 r;                                           \
    for (int i = 0; i < 4; ++i) r.v[i] = (expr);          \
    return r;                                             \
  }
LITE_PV4_BINARY(lite_pv4_add, a.v[i] + b.v[i])
LITE_PV4_BINARY(lite_pv4_sub, a.v[i] - b.v[i])
LITE_PV4_BINARY(lite_pv4_mul, a.v[i] * b.v[i])
LITE_PV4_BINARY(lite_pv4_max, b.v[i] > a.v[i] ? b.v[i] : a.v[i])
LITE_PV4_BINARY(lite_pv4_min, b.v[i] < a.v[i] ? b.v[i] : a.v[i])
#undef LITE_PV4_BINARY
static inline lite_pv4 lite_pv4_fma(lite_pv4 acc, lite_pv4 a, lite_pv4 b) {
  lite_pv4 r;
  for (int i = 0; i < 4; ++i) r.v[i] = acc.v[i] + a.v[i] * b.v[i];
  return r;
}
#endif

#define LV_T lite_pv4
#define LV_W 4
#define LV_LOAD(p) lite_pv4_load(p)
#define LV_STORE(p, x) lite_pv4_store((p), (x))
#define LV_SET1(x) lite_pv4_set1(x)
#define LV_ADD(a, b) lite_pv4_add((a), (b))
#define LV_SUB(a, b) lite_pv4_sub((a), (b))
#define LV_MUL(a, b) lite_pv4_mul((a), (b))
#define LV_FMA(acc, a, b) lite_pv4_fma((acc), (a), (b))
#define LV_MAX(a, b) lite_pv4_max((a), (b))
#define LV_MIN(a, b) lite_pv4_min((a), (b))

#endif
