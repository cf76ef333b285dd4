/* int8 GLOBAL_AVERAGE_POOL, armv7 NEON (the shared NEON body: vaddw into int16 runs of 256 pixels). */
#define LITE_GAP_NEON_ENTRY lite_qs8_global_average_pool_nhwc_armv7_neon
#include "qs8_global_average_pool_nhwc_neon_body.h"
