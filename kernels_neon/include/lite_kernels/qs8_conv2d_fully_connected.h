/* int8 convolution and fully-connected reference kernels and their requantization parameters (the
 * scheme: docs/QUANTIZATION.md).
 *
 * Activations are asymmetric per-tensor int8 (real = scale * (q - zero_point)); conv / fully-connected
 * weights are symmetric per-output-channel int8 (zero point 0) with an int32 bias of scale
 * s_in * s_w[c]. Every output is requantized with lite_requantize_to_int8 (requantize.h) and clamped to
 * [act_min, act_max], which is how a fused RELU / CLIP is applied. */
#ifndef LITE_KERNELS_QS8_CONV2D_FULLY_CONNECTED_H
#define LITE_KERNELS_QS8_CONV2D_FULLY_CONNECTED_H

#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/conv2d.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int32_t input_zero_point;
  int32_t output_zero_point;
  int32_t act_min, act_max;  /* quantized clamp, within [-128, 127] */
  const int32_t* multiplier; /* one per output channel */
  const int32_t* shift;      /* one per output channel */
} lite_qs8_requant_params;

/* output[n,oh,ow,oc] = requant(bias[oc] + sum (input - input_zp) * weight), weight in the .lite layout
 * [out_c, kh, kw, in_c/groups] (not packed); padding contributes input_zp (real 0). bias may be NULL. */
void lite_qs8_conv2d_nhwc_ref(const lite_conv2d_params* params, const lite_qs8_requant_params* rq,
                              const int8_t* input, const int8_t* weight, const int32_t* bias, int8_t* output);

/* output[r, n] = requant(bias[n] + sum_k (input[r, k] - input_zp) * weight[n, k]). */
void lite_qs8_fully_connected_ref(size_t rows, size_t depth, size_t out_features, const lite_qs8_requant_params* rq,
                                  const int8_t* input, const int8_t* weight, const int32_t* bias, int8_t* output);

#ifdef __cplusplus
}
#endif

#endif
