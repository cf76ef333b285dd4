/* float32 <-> int8 conversion (QUANTIZE / DEQUANTIZE), reference kernels; the vector variants are
 * qs8_elementwise.h's. */
#ifndef LITE_KERNELS_QS8_QUANTIZE_H
#define LITE_KERNELS_QS8_QUANTIZE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* q = clamp(rint(x / scale) + zero_point, -128, 127) in float32 (rint: round half to even); NaN -> zero_point. */
void lite_qs8_quantize_f32_ref(size_t count, float scale, int32_t zero_point, const float* input, int8_t* output);

/* x = scale * (float)(q - zero_point) in float32. */
void lite_qs8_dequantize_f32_ref(size_t count, float scale, int32_t zero_point, const int8_t* input, float* output);

#ifdef __cplusplus
}
#endif

#endif
