/* int8 MAX_POOL_2D rows, x86 AVX2 (the shared body: 32 channels per vpmaxsb). */
#define LITE_MAX_POOL_ENTRY lite_qs8_max_pool2d_nhwc_avx2
#include "../portable/qs8_max_pool2d_nhwc_body.h"
