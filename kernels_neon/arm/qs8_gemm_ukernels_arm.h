/* The ARM int8 GEMM microkernels (contract: lite_kernels/qs8_gemm_packed.h). Declared here, beside
 * their sources, because only dispatch/qs8_gemm_config_arm.c and the ARM kernel test name them; each is
 * compiled only for the ISA in its file name (kernels_neon/CMakeLists.txt). */
#ifndef LITE_KERNELS_ARM_QS8_GEMM_UKERNELS_ARM_H
#define LITE_KERNELS_ARM_QS8_GEMM_UKERNELS_ARM_H

#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/qs8_gemm_packed.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LITE_QS8_GEMM_UKERNEL(name)                                                                            \
  void name(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride, const void* w, int8_t* c, \
            size_t c_stride, const lite_qs8_gemm_params* params)

/* aarch64: sdot (dotprod), smmla (i8mm), smull + smlal2 + sadalp (any ARMv8 NEON, e.g. Cortex-A53). */
LITE_QS8_GEMM_UKERNEL(lite_qs8_gemm_ukernel_64x16c4_aarch64_neondot);
LITE_QS8_GEMM_UKERNEL(lite_qs8_gemm_ukernel_4x16c8_aarch64_neoni8mm);
LITE_QS8_GEMM_UKERNEL(lite_qs8_gemm_ukernel_36x8c16_aarch64_neon);
/* armv7: vmull.s8 + vmlal.s8 + vpadal.s16. */
LITE_QS8_GEMM_UKERNEL(lite_qs8_gemm_ukernel_72x4c16_armv7_neon);

#undef LITE_QS8_GEMM_UKERNEL

/* The i8mm kernel's packed-A kernel (lite_kernels/qs8_gemm_packed_a.h). */
size_t lite_qs8_gemm_i8mm_packed_a_bytes(size_t m, size_t k);
void lite_qs8_gemm_i8mm_pack_a(size_t m, size_t k, const int8_t* a, size_t lda, int8_t* packed_a);
void lite_qs8_gemm_i8mm_packed_a_compute(const lite_qs8_gemm_config* config, size_t m, size_t n, size_t k,
                                         const int8_t* packed_a, const void* packed_w,
                                         const lite_qs8_gemm_params* params, int8_t* c, size_t ldc);

#ifdef __cplusplus
}
#endif

#endif
