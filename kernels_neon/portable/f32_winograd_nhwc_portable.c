/* Winograd F(m, 3) convolution transforms, portable C: the shared body over a 4-float struct
 * "vector" (f32_dwconv_winograd_portable_vector.h), channels innermost like the SIMD variants. */
#include "f32_dwconv_winograd_portable_vector.h"
#define LITE_WINOGRAD_ENTRY lite_f32_winograd_nhwc_portable
#include "f32_winograd_nhwc_body.h"
