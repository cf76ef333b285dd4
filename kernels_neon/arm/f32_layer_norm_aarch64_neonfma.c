/* Layer normalization rows, aarch64 NEON: 4 floats per vector (the shared body). */
#include "f32_vector_aarch64_neonfma.h"
#include "lite_kernels/f32_layer_norm.h"
#define LITE_LAYER_NORM_ENTRY lite_f32_layer_norm_aarch64_neonfma
#include "../portable/f32_layer_norm_body.h"
