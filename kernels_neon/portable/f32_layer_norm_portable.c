/* Layer normalization rows, portable C: the shared body over a 4-float "vector". */
#include "f32_dwconv_winograd_portable_vector.h"
#include "lite_kernels/f32_layer_norm.h"
#define LITE_LAYER_NORM_ENTRY lite_f32_layer_norm_portable
#include "f32_layer_norm_body.h"
