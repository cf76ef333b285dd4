/* Portable fp32 ADD/SUB/MUL/DIV/PRELU rows: the body of lite_kernels/f32_vbinary.h with one-float
 * "vectors", for CPUs (or LITE_CPU_FEATURES_MASK settings) without a SIMD variant. */
#include "lite_kernels/elementwise_binary.h"
#include "lite_kernels/f32_vbinary.h"

static inline float vb_load(const float* p) { return *p; }
static inline void vb_store(float* p, float v) { *p = v; }

#define VB_T float
#define VB_W 1
#define VB_LOAD(p) vb_load(p)
#define VB_STORE(p, v) vb_store((p), (v))
#define VB_SET1(x) (x)
#define VB_ADD(a, b) ((a) + (b))
#define VB_SUB(a, b) ((a) - (b))
#define VB_MUL(a, b) ((a) * (b))
#define VB_DIV(a, b) ((a) / (b))
#define VB_PRELU(a, b) ((a) < 0 ? (b) * (a) : (a))
#define VB_FN lite_f32_vbinary_portable

#include "f32_vbinary_body.h"
