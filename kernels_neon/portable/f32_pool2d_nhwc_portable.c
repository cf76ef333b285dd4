/* fp32 MAX_POOL_2D / AVERAGE_POOL_2D rows, portable C (the shared body, vectorized with the baseline
 * ISA: SSE2 on x86-64, NEON on aarch64; scalar on armv7, where GCC keeps IEEE floats off NEON). */
#define LITE_F32_MAX_POOL_ROWS lite_f32_max_pool2d_nhwc_portable
#define LITE_F32_AVERAGE_POOL_ROWS lite_f32_average_pool2d_nhwc_portable
#include "f32_pool2d_nhwc_body.h"
