/* 2-D max / average pooling and global pooling on channels-last (NHWC) data, fp32. */
#ifndef LITE_KERNELS_POOL2D_H
#define LITE_KERNELS_POOL2D_H

#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/activation.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  size_t batch, in_h, in_w, channels;
  size_t out_h, out_w;
  size_t kernel_h, kernel_w;
  size_t stride_h, stride_w;
  size_t dilation_h, dilation_w;
  size_t pad_top, pad_left, pad_bottom, pad_right;
  /* Average only: divide by the number of window taps inside the padded input
   * [-pad_top, in_h + pad_bottom) (taps beyond it, from ceil_mode, never count) instead of the
   * number of taps inside the input itself. */
  int count_include_pad;
} lite_pool2d_params;

/* Window maximum over the taps inside the input (padding never wins). act may be NULL. */
void lite_f32_max_pool2d_nhwc_ref(const lite_pool2d_params* params, const float* input, const lite_activation* act,
                                  float* output);

/* Window mean, see count_include_pad. A window with no tap inside the input yields 0. */
void lite_f32_average_pool2d_nhwc_ref(const lite_pool2d_params* params, const float* input,
                                      const lite_activation* act, float* output);

/* The same results as the reference kernels above, bit for bit, for output rows
 * [row_begin, row_end) of the batch * out_h rows (so rows can be split across threads); vectorized
 * over channels (portable/f32_pool2d_nhwc_body.h). */
typedef void (*lite_f32_pool2d_rows_fn)(const lite_pool2d_params* params, const float* input,
                                        const lite_activation* act, float* output, size_t row_begin, size_t row_end);

/* The fastest variant these lite_cpu_features() bits allow; never NULL. */
lite_f32_pool2d_rows_fn lite_f32_max_pool2d_select(uint32_t features);
lite_f32_pool2d_rows_fn lite_f32_average_pool2d_select(uint32_t features);

void lite_f32_max_pool2d_nhwc_portable(const lite_pool2d_params* params, const float* input,
                                       const lite_activation* act, float* output, size_t row_begin, size_t row_end);
void lite_f32_average_pool2d_nhwc_portable(const lite_pool2d_params* params, const float* input,
                                           const lite_activation* act, float* output, size_t row_begin,
                                           size_t row_end);
void lite_f32_max_pool2d_nhwc_avx2(const lite_pool2d_params* params, const float* input, const lite_activation* act,
                                   float* output, size_t row_begin, size_t row_end);
void lite_f32_average_pool2d_nhwc_avx2(const lite_pool2d_params* params, const float* input,
                                       const lite_activation* act, float* output, size_t row_begin, size_t row_end);
void lite_f32_max_pool2d_nhwc_avx512(const lite_pool2d_params* params, const float* input, const lite_activation* act,
                                     float* output, size_t row_begin, size_t row_end);
void lite_f32_average_pool2d_nhwc_avx512(const lite_pool2d_params* params, const float* input,
                                         const lite_activation* act, float* output, size_t row_begin, size_t row_end);

/* [batch, pixels, channels] -> [batch, channels]: mean / maximum over all pixels. */
void lite_f32_global_average_pool_nhwc_ref(size_t batch, size_t pixels, size_t channels, const float* input,
                                           float* output);
void lite_f32_global_max_pool_nhwc_ref(size_t batch, size_t pixels, size_t channels, const float* input,
                                       float* output);
/* The same for channels [c_begin, c_end) only (c_begin a multiple of 16), with the same results:
 * channel ranges can be split across threads. */
void lite_f32_global_average_pool_nhwc_range(size_t batch, size_t pixels, size_t channels, size_t c_begin,
                                             size_t c_end, const float* input, float* output);
void lite_f32_global_max_pool_nhwc_range(size_t batch, size_t pixels, size_t channels, size_t c_begin, size_t c_end,
                                         const float* input, float* output);

#ifdef __cplusplus
}
#endif

#endif
