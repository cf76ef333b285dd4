/* int8 GLOBAL_AVERAGE_POOL, x86 AVX2 (the shared body: 8 channels per vpmovsxbd + vpaddd). */
#define LITE_GAP_ENTRY lite_qs8_global_average_pool_nhwc_avx2
#include "../portable/qs8_global_average_pool_nhwc_body.h"
