/* int8 GLOBAL_AVERAGE_POOL, portable C (the shared body, vectorized with the baseline ISA: NEON on
 * aarch64 / armv7, SSE2 on x86-64). */
#define LITE_GAP_ENTRY lite_qs8_global_average_pool_nhwc_portable
#include "qs8_global_average_pool_nhwc_body.h"
