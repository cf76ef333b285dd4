/* Layer normalization rows, armv7 NEON-VFPv4: 4 floats per vector (the shared body). */
#include "f32_vector_armv7_neonfma.h"
#include "lite_kernels/f32_layer_norm.h"
#define LITE_LAYER_NORM_ENTRY lite_f32_layer_norm_armv7_neonfma
#include "../portable/f32_layer_norm_body.h"
