/* Layer normalization rows, AVX-512F: 16 floats per vector (the shared body). */
#include "f32_vector_avx512.h"
#include "lite_kernels/f32_layer_norm.h"
#define LITE_LAYER_NORM_ENTRY lite_f32_layer_norm_avx512
#include "../portable/f32_layer_norm_body.h"
