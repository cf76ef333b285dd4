/* fp32 GEMV over a B packed for the fp32 GEMM (f32_gemm_packed.h): c[0, n) = a[0, k) · B + bias,
 * one row of A. The GEMM microkernels run a single row as one dependent FMA chain per vector of a
 * panel, bound by FMA latency; a recurrent layer's per-step h · Rᵀ is exactly that shape (batch 1),
 * so the GEMV runs several panels at once to keep the FMA units busy. Each element is summed as the
 * microkernel of its packing sums it (f32_gemm_packed.h), so results equal the GEMM's. */
#ifndef LITE_KERNELS_F32_GEMV_PACKED_H
#define LITE_KERNELS_F32_GEMV_PACKED_H

#include <stddef.h>

#include "lite_kernels/f32_gemm_packed.h"

#ifdef __cplusplus
extern "C" {
#endif

/* c[j] = packed bias[j] + sum_p a[p] * B[p, j] for j in [0, n), B packed by lite_f32_gemm_pack_b for
 * the config the variant belongs to. */
typedef void (*lite_f32_gemv_packed_fn)(size_t n, size_t k, const float* a, const float* packed, float* c);

/* The GEMV variant for B packed for `config`, or NULL where there is none (callers then run the
 * GEMM with one row). */
lite_f32_gemv_packed_fn lite_f32_gemv_packed_select(const lite_f32_gemm_config* config);

void lite_f32_gemv_packed_16_avx2(size_t n, size_t k, const float* a, const float* packed, float* c);
void lite_f32_gemv_packed_16_aarch64_neonfma(size_t n, size_t k, const float* a, const float* packed, float* c);

#ifdef __cplusplus
}
#endif

#endif
