/* int8 MAX_POOL_2D rows, portable C (the shared body, vectorized with the baseline ISA: NEON on
 * aarch64 / armv7, SSE2 on x86-64). */
#define LITE_MAX_POOL_ENTRY lite_qs8_max_pool2d_nhwc_portable
#include "qs8_max_pool2d_nhwc_body.h"
