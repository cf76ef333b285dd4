/* Resize of the H and W axes of channels-last (NHWC) data with ONNX Resize semantics
 * (opset 13-19: nearest / linear / cubic, every coordinate transformation mode except
 * tf_crop_and_resize). Enum values equal the .lite schema's ResizeMode, CoordinateMode, NearestMode. */
#ifndef LITE_KERNELS_RESIZE_H
#define LITE_KERNELS_RESIZE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { LITE_RESIZE_NEAREST = 0, LITE_RESIZE_LINEAR = 1, LITE_RESIZE_CUBIC = 2 } lite_resize_mode;

typedef enum {
  LITE_RESIZE_HALF_PIXEL = 0,           /* (x + 0.5) / scale - 0.5 */
  LITE_RESIZE_ASYMMETRIC = 1,           /* x / scale */
  LITE_RESIZE_ALIGN_CORNERS = 2,        /* x * (in - 1) / (out - 1), 0 when out == 1 */
  LITE_RESIZE_PYTORCH_HALF_PIXEL = 3,   /* half_pixel, 0 when out == 1 */
  LITE_RESIZE_TF_HALF_PIXEL_FOR_NN = 4, /* (x + 0.5) / scale */
  LITE_RESIZE_HALF_PIXEL_SYMMETRIC = 5  /* half_pixel around the centre of the input */
} lite_resize_coordinate_mode;

typedef enum {
  LITE_RESIZE_ROUND_PREFER_FLOOR = 0,
  LITE_RESIZE_ROUND_PREFER_CEIL = 1,
  LITE_RESIZE_FLOOR = 2,
  LITE_RESIZE_CEIL = 3
} lite_resize_nearest_mode;

typedef struct {
  size_t batch, in_h, in_w, channels;
  size_t out_h, out_w;
  /* The scales of the coordinate transform: the given scales, or out / in when sizes were given. */
  double scale_h, scale_w;
  int mode;            /* lite_resize_mode */
  int coordinate_mode; /* lite_resize_coordinate_mode */
  int nearest_mode;    /* lite_resize_nearest_mode */
  float cubic_coeff_a; /* -0.75 in ONNX, -0.5 in TensorFlow */
  int exclude_outside; /* cubic: taps outside the input get weight 0, the rest are renormalized */
} lite_resize_params;

/* The coordinate in the input (before any clamping) that output index `out_index` maps to. */
double lite_resize_source_coordinate(int coordinate_mode, size_t out_index, double scale, size_t in_len,
                                     size_t out_len);

/* Nearest neighbour; any element type of `element_size` bytes. */
void lite_resize_nearest_nhwc_ref(const lite_resize_params* params, size_t element_size, const void* input,
                                  void* output);

/* Bilinear, fp32 (source coordinates clamped to the input, as ONNX's edge padding does). */
void lite_f32_resize_linear_nhwc_ref(const lite_resize_params* params, const float* input, float* output);

/* The same two for output rows [row_begin, row_end) of the batch * out_h rows only, with the same
 * values (rows can be split across threads). */
void lite_resize_nearest_nhwc_rows(const lite_resize_params* params, size_t element_size, const void* input,
                                   void* output, size_t row_begin, size_t row_end);
void lite_f32_resize_linear_nhwc_rows(const lite_resize_params* params, const float* input, float* output,
                                      size_t row_begin, size_t row_end);

/* Bicubic, fp32, with cubic_coeff_a and exclude_outside. */
void lite_f32_resize_cubic_nhwc_ref(const lite_resize_params* params, const float* input, float* output);

#ifdef __cplusplus
}
#endif

#endif
