/* int8 depthwise convolution for aarch64 NEON (qs8_dwconv.h); the body is shared with armv7. */
#include "qs8_dwconv_ukernels_arm.h"
#define QS8_DWCONV_NEON_FN lite_qs8_dwconv_aarch64_neon
#include "qs8_dwconv_neon_body.h"
