/* Winograd F(m, 3) convolution transforms, armv7 NEON-VFPv4 (vfma): 4 channels per vector (the shared body). Built
 * with -mfpu=neon-vfpv4 (the armv7 toolchain file); the dispatcher requires NEON + VFPv4. */
#include "f32_vector_armv7_neonfma.h"
#define LITE_WINOGRAD_ENTRY lite_f32_winograd_nhwc_armv7_neonfma
#include "../portable/f32_winograd_nhwc_body.h"
