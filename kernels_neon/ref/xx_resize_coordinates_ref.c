/* The coordinate transformation modes of ONNX Resize: where an output index samples the input. */
#include "lite_kernels/resize.h"

double lite_resize_source_coordinate(int coordinate_mode, size_t out_index, double scale, size_t in_len,
                                     size_t out_len) {
  const double x = (double)out_index;
  switch (coordinate_mode) {
    case LITE_RESIZE_ASYMMETRIC: return x / scale;
    case LITE_RESIZE_ALIGN_CORNERS:
      return out_len <= 1 ? 0.0 : x * (double)(in_len - 1) / (double)(out_len - 1);
    case LITE_RESIZE_PYTORCH_HALF_PIXEL: return out_len > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
    case LITE_RESIZE_TF_HALF_PIXEL_FOR_NN: return (x + 0.5) / scale;
    case LITE_RESIZE_HALF_PIXEL_SYMMETRIC: {
      /* Differs from half_pixel only when out_len != scale * in_len (the output was rounded). */
      const double adjustment = (double)out_len / (scale * (double)in_len);
      const double center = (double)in_len / 2.0;
      return center * (1.0 - adjustment) + (x + 0.5) / scale - 0.5;
    }
    case LITE_RESIZE_HALF_PIXEL:
    default: return (x + 0.5) / scale - 0.5;
  }
}
