/* Winograd F(m, 3) convolution transforms, x86 AVX-512F: 16 channels per vector (the shared body). */
#include "f32_vector_avx512.h"
#define LITE_WINOGRAD_ENTRY lite_f32_winograd_nhwc_avx512
#include "../portable/f32_winograd_nhwc_body.h"
