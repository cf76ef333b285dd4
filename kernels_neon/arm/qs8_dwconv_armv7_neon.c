/* int8 depthwise convolution for 32-bit ARM NEON (qs8_dwconv.h); the body is shared with aarch64. */
#include "qs8_dwconv_ukernels_arm.h"
#define QS8_DWCONV_NEON_FN lite_qs8_dwconv_armv7_neon
#include "qs8_dwconv_neon_body.h"
