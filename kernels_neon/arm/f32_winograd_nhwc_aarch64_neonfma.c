/* Winograd F(m, 3) convolution transforms, aarch64 NEON with FMA: 4 channels per vector (the shared body). */
#include "f32_vector_aarch64_neonfma.h"
#define LITE_WINOGRAD_ENTRY lite_f32_winograd_nhwc_aarch64_neonfma
#include "../ref/f32_winograd_nhwc_body.h"
