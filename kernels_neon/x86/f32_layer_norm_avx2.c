/* Layer normalization rows, AVX2 + FMA: 8 floats per vector (the shared body). */
#include "f32_vector_avx2.h"
#include "lite_kernels/f32_layer_norm.h"
#define LITE_LAYER_NORM_ENTRY lite_f32_layer_norm_avx2
#include "../portable/f32_layer_norm_body.h"
