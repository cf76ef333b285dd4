/* An int8 GEMM microkernel whose A rows are not contiguous: row i's k bytes are `runs` runs of
 * run_bytes bytes each, run s at a[s] + i * a_stride. A KxK convolution over an NHWC input reads
 * its kernel rows in place this way (a kernel row of an interior output pixel is kernel_w * in_c
 * adjacent bytes, the next pixel's starts stride_w * in_c bytes later), so it needs no im2col copy
 * except for the pixels whose window crosses the left / right padding.
 *
 * Same packed weights (config->pack), same epilogue and bytes as config->ukernel on the
 * concatenated rows (qs8_gemm_packed.h); run_bytes must be a multiple of config->kr (no k tail),
 * runs * run_bytes == k, 1 <= mr <= MR, 1 <= nc <= NR. Reads bytes [0, run_bytes) of each run only.
 *
 * lite_qs8_gemm_runs_ukernel_select(config) is NULL when the config has no such kernel (then copy
 * the rows: im2col + config->ukernel). */
#ifndef LITE_KERNELS_QS8_GEMM_PACKED_RUNS_H
#define LITE_KERNELS_QS8_GEMM_PACKED_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/qs8_gemm_packed.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*lite_qs8_gemm_runs_ukernel_fn)(size_t mr, size_t nc, size_t runs, size_t run_bytes,
                                               const int8_t* const* a, size_t a_stride, const void* w, int8_t* c,
                                               size_t c_stride, const lite_qs8_gemm_params* params);

lite_qs8_gemm_runs_ukernel_fn lite_qs8_gemm_runs_ukernel_select(const lite_qs8_gemm_config* config);

void lite_qs8_gemm_runs_ukernel_8x16c4_avx512vnni(size_t mr, size_t nc, size_t runs, size_t run_bytes,
                                                  const int8_t* const* a, size_t a_stride, const void* w, int8_t* c,
                                                  size_t c_stride, const lite_qs8_gemm_params* params);
void lite_qs8_gemm_runs_ukernel_8x24c4_avx512vnni(size_t mr, size_t nc, size_t runs, size_t run_bytes,
                                                  const int8_t* const* a, size_t a_stride, const void* w, int8_t* c,
                                                  size_t c_stride, const lite_qs8_gemm_params* params);
void lite_qs8_gemm_runs_ukernel_8x32c4_avx512vnni(size_t mr, size_t nc, size_t runs, size_t run_bytes,
                                                  const int8_t* const* a, size_t a_stride, const void* w, int8_t* c,
                                                  size_t c_stride, const lite_qs8_gemm_params* params);

/* aarch64 dotprod: 4-row tiles (8-row ones for a panel of <= 8 columns and runs of a multiple of 16
 * bytes), intrinsics for mr < 4 or runs shorter than 16 bytes. */
void lite_qs8_gemm_runs_ukernel_64x16c4_aarch64_neondot(size_t mr, size_t nc, size_t runs, size_t run_bytes,
                                                        const int8_t* const* a, size_t a_stride, const void* w,
                                                        int8_t* c, size_t c_stride,
                                                        const lite_qs8_gemm_params* params);

#ifdef __cplusplus
}
#endif

#endif
