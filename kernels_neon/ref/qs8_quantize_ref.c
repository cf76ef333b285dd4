/* fp32 <-> int8 conversion at the borders of the int8 part of a graph (QUANTIZE / DEQUANTIZE). */
#include <math.h>

#include "lite_kernels/qs8_quantize.h"

void lite_qs8_quantize_f32_ref(size_t count, float scale, int32_t zero_point, const float* input, int8_t* output) {
  for (size_t i = 0; i < count; ++i) {
    float r = nearbyintf(input[i] / scale) + (float)zero_point;
    if (r != r) r = (float)zero_point;
    if (r < -128.0f) r = -128.0f;
    if (r > 127.0f) r = 127.0f;
    output[i] = (int8_t)r;
  }
}

void lite_qs8_dequantize_f32_ref(size_t count, float scale, int32_t zero_point, const int8_t* input, float* output) {
  for (size_t i = 0; i < count; ++i) output[i] = scale * (float)((int32_t)input[i] - zero_point);
}
