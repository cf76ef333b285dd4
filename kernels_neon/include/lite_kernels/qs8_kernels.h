/* int8 reference kernels (the scheme: docs/QUANTIZATION.md).
 *
 * Activations are asymmetric per-tensor int8 (real = scale * (q - zero_point)); conv / fully-connected
 * weights are symmetric per-output-channel int8 (zero point 0) with an int32 bias of scale
 * s_in * s_w[c]. Every output is requantized with lite_requantize_to_int8 (requantize.h) and clamped to
 * [act_min, act_max], which is how a fused RELU / CLIP is applied. */
#ifndef LITE_KERNELS_QS8_KERNELS_H
#define LITE_KERNELS_QS8_KERNELS_H

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

/* Elementwise int8 ADD of two same-shaped tensors: out = zp_out + round(((a - zp_a) * ma + (b - zp_b) * mb)
 * * 2^-shift), clamped to [act_min, act_max]; ma, mb share `shift` (lite_quantize_multiplier_pair). */
typedef struct {
  int32_t a_zero_point, b_zero_point, output_zero_point;
  int32_t a_multiplier, b_multiplier;
  int shift;
  int32_t act_min, act_max;
} lite_qs8_add_params;

/* Broadcasting through strides: a_stride / b_stride per element index are given by the caller as
 * flat index maps; NULL means "same index as the output". */
void lite_qs8_add_ref(size_t count, const lite_qs8_add_params* p, const int8_t* a, const int64_t* a_index,
                      const int8_t* b, const int64_t* b_index, int8_t* output);

/* Global average pool over H*W of NHWC data, same scale and zero point in and out:
 * out = zp + round_half_away_from_zero(sum (x - zp) / (H*W)). */
void lite_qs8_global_average_pool_nhwc_ref(size_t batch, size_t spatial, size_t channels, int32_t zero_point,
                                           const int8_t* input, int8_t* output);

/* lite_qs8_global_average_pool_nhwc_ref's bytes from int32 channel sums a compiler vectorizes. */
typedef void (*lite_qs8_global_average_pool_fn)(size_t batch, size_t spatial, size_t channels, int32_t zero_point,
                                                const int8_t* input, int8_t* output);
void lite_qs8_global_average_pool_nhwc_portable(size_t batch, size_t spatial, size_t channels, int32_t zero_point,
                                                const int8_t* input, int8_t* output);
void lite_qs8_global_average_pool_nhwc_avx2(size_t batch, size_t spatial, size_t channels, int32_t zero_point,
                                            const int8_t* input, int8_t* output); /* x86-64 builds only */

/* The fastest global average pool kernel `features` allow; never NULL. */
lite_qs8_global_average_pool_fn lite_qs8_global_average_pool_select(uint32_t features);

/* Max pool of NHWC int8 data (same quantization in and out); padded cells are ignored. */
void lite_qs8_max_pool2d_nhwc_ref(const lite_conv2d_params* params, const int8_t* input, int8_t* output);

/* The output rows [row_begin, row_end) of batch * out_h of lite_qs8_max_pool2d_nhwc_ref (same bytes),
 * as a loop compilers vectorize on every ISA; disjoint row ranges may run on different threads. */
typedef void (*lite_qs8_max_pool2d_fn)(const lite_conv2d_params* params, const int8_t* input, int8_t* output,
                                       size_t row_begin, size_t row_end);
void lite_qs8_max_pool2d_nhwc_portable(const lite_conv2d_params* params, const int8_t* input, int8_t* output,
                                       size_t row_begin, size_t row_end);
void lite_qs8_max_pool2d_nhwc_avx2(const lite_conv2d_params* params, const int8_t* input, int8_t* output,
                                   size_t row_begin, size_t row_end); /* x86-64 builds only */

/* The fastest max pool kernel `features` (lite_cpu_features() bits) allow; never NULL. */
lite_qs8_max_pool2d_fn lite_qs8_max_pool2d_select(uint32_t features);

/* q = clamp(rint(x / scale) + zero_point, -128, 127) in float32 (rint: round half to even); NaN -> zero_point. */
void lite_qs8_quantize_f32_ref(size_t count, float scale, int32_t zero_point, const float* input, int8_t* output);

/* x = scale * (float)(q - zero_point) in float32. */
void lite_qs8_dequantize_f32_ref(size_t count, float scale, int32_t zero_point, const int8_t* input, float* output);

#ifdef __cplusplus
}
#endif

#endif
