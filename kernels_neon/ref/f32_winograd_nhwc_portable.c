/* Winograd F(m, 3) convolution transforms, portable C: the shared body over a one-lane "vector" (a float). */
#define LV_T float
#define LV_W 1
#define LV_LOAD(p) (*(p))
#define LV_STORE(p, v) (*(p) = (v))
#define LV_SET1(x) (x)
#define LV_ADD(a, b) ((a) + (b))
#define LV_SUB(a, b) ((a) - (b))
#define LV_MUL(a, b) ((a) * (b))
#define LV_FMA(acc, a, b) ((acc) + (a) * (b))
#define LV_MAX(a, b) ((a) > (b) ? (a) : (b))
#define LV_MIN(a, b) ((a) < (b) ? (a) : (b))
#define LITE_WINOGRAD_ENTRY lite_f32_winograd_nhwc_portable
#include "f32_winograd_nhwc_body.h"
