/* The ARM int8 depthwise kernels (contract and packed layout: lite_kernels/qs8_dwconv.h), declared
 * beside their sources for dispatch/qs8_gemm_config_arm.c and the ARM kernel test. */
#ifndef LITE_KERNELS_ARM_QS8_DWCONV_UKERNELS_ARM_H
#define LITE_KERNELS_ARM_QS8_DWCONV_UKERNELS_ARM_H

#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/qs8_dwconv.h"

#ifdef __cplusplus
extern "C" {
#endif

void lite_qs8_dwconv_aarch64_neon(const lite_conv2d_params* p, const void* packed, const lite_qs8_gemm_params* params,
                                  const int8_t* input, int8_t* output, size_t row_begin, size_t row_end);
/* 3x3 kernels only (any stride, dilation, padding); the rest run lite_qs8_dwconv_aarch64_neon. */
void lite_qs8_dwconv_3x3_aarch64_neon(const lite_conv2d_params* p, const void* packed,
                                      const lite_qs8_gemm_params* params, const int8_t* input, int8_t* output,
                                      size_t row_begin, size_t row_end);
/* 3x3 kernels only (any stride, dilation, padding); the rest run lite_qs8_dwconv_armv7_neon. */
void lite_qs8_dwconv_3x3_armv7_neon(const lite_conv2d_params* p, const void* packed, const lite_qs8_gemm_params* params,
                                    const int8_t* input, int8_t* output, size_t row_begin, size_t row_end);
void lite_qs8_dwconv_armv7_neon(const lite_conv2d_params* p, const void* packed, const lite_qs8_gemm_params* params,
                                const int8_t* input, int8_t* output, size_t row_begin, size_t row_end);

#ifdef __cplusplus
}
#endif

#endif
