/* Depthwise convolution, x86 AVX2 + FMA: 8 channels per vector (the shared body). */
#include "f32_vector_avx2.h"
#define LITE_DWCONV_EDGE_GROUP 4 /* border pixels 4 at a time (see the body) */
#define LITE_DWCONV_ENTRY lite_f32_dwconv_nhwc_avx2
#include "../portable/f32_dwconv_nhwc_body.h"
