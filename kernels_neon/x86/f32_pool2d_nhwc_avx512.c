/* fp32 MAX_POOL_2D / AVERAGE_POOL_2D rows, x86 AVX-512 (the shared body: a 32-channel block is two
 * zmm registers). */
#define LITE_F32_MAX_POOL_ROWS lite_f32_max_pool2d_nhwc_avx512
#define LITE_F32_AVERAGE_POOL_ROWS lite_f32_average_pool2d_nhwc_avx512
#include "../portable/f32_pool2d_nhwc_body.h"
