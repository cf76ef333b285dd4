/* int8 pooling of NHWC data with the same scale and zero point in and out: global average pool and
 * windowed max pool; the reference, the portable variants and their selectors. */
#ifndef LITE_KERNELS_QS8_POOL2D_H
#define LITE_KERNELS_QS8_POOL2D_H

#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/conv2d.h"

#ifdef __cplusplus
extern "C" {
#endif

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
void lite_qs8_global_average_pool_nhwc_aarch64_neon(size_t batch, size_t spatial, size_t channels,
                                                    int32_t zero_point, const int8_t* input,
                                                    int8_t* output); /* aarch64 builds only */
void lite_qs8_global_average_pool_nhwc_armv7_neon(size_t batch, size_t spatial, size_t channels, int32_t zero_point,
                                                  const int8_t* input, int8_t* output); /* armv7 builds only */

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

#ifdef __cplusplus
}
#endif

#endif
