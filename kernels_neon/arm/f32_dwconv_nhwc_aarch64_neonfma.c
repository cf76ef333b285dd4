/* Depthwise convolution, aarch64 NEON with FMA: 4 channels per vector. 3x3 stride 1/2 layers run the
 * aarch64 rows of f32_dwconv_3x3_aarch64_neonfma.c; every other shape or activation, and the rows
 * those leave, run the shared body (portable/f32_dwconv_nhwc_body.h). */
#include "f32_dwconv_3x3_aarch64_neonfma.h"
#include "f32_vector_aarch64_neonfma.h"

/* The shared body, instantiated with internal linkage (this declaration makes its definition static). */
static void dw_shared_rows(const lite_conv2d_params* p, const float* input, const float* packed_weight,
                           const float* bias, const lite_activation* act, float* output, size_t row_begin,
                           size_t row_end);
#define LITE_DWCONV_ENTRY dw_shared_rows
#include "../portable/f32_dwconv_nhwc_body.h"

void lite_f32_dwconv_nhwc_aarch64_neonfma(const lite_conv2d_params* p, const float* input, const float* packed_weight,
                                          const float* bias, const lite_activation* act, float* output,
                                          size_t row_begin, size_t row_end) {
  if (act != NULL && act->kind == LITE_ACT_NONE) act = NULL;
  if (!lite_f32_dwconv_3x3_aarch64_applies(p, act)) {
    dw_shared_rows(p, input, packed_weight, bias, act, output, row_begin, row_end);
    return;
  }
  for (size_t r = row_begin; r < row_end;) {
    const size_t done = lite_f32_dwconv_3x3_aarch64_rows(p, input, packed_weight, bias, act, output, r, row_end);
    if (done == 0) dw_shared_rows(p, input, packed_weight, bias, act, output, r, r + 1);
    r += done > 0 ? done : 1;
  }
}
