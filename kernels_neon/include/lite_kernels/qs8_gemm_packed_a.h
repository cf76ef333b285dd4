/* An int8 GEMM whose A is packed too: for im2col convolutions, where A is a scratch copy anyway, a
 * microkernel can read rows already arranged the way its multiply instruction wants them (the i8mm
 * smmla wants two rows' 8 bytes side by side) instead of rearranging them for every weight panel.
 * Packing A once per row block costs about what the kernel saved on ONE panel, and a layer has n / NR
 * panels. The bytes are those of lite_qs8_gemm_packed_compute (same packed weights, same epilogue).
 *
 * lite_qs8_gemm_packed_a_select(config) gives the packed-A kernel of a GEMM config (packed weights
 * made by config->pack), or NULL when it has none (then use lite_qs8_gemm_packed_compute). */
#ifndef LITE_KERNELS_QS8_GEMM_PACKED_A_H
#define LITE_KERNELS_QS8_GEMM_PACKED_A_H

#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/qs8_gemm_packed.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  /* bytes of A packed from m rows of depth k */
  size_t (*packed_a_bytes)(size_t m, size_t k);
  /* packs rows [0, m) of A (row stride lda; reads bytes [0, k) of each row only) */
  void (*pack_a)(size_t m, size_t k, const int8_t* a, size_t lda, int8_t* packed_a);
  /* C rows [0, m), all n columns (row stride ldc) from packed A and the config's packed weight */
  void (*compute)(const lite_qs8_gemm_config* config, size_t m, size_t n, size_t k, const int8_t* packed_a,
                  const void* packed_w, const lite_qs8_gemm_params* params, int8_t* c, size_t ldc);
} lite_qs8_gemm_packed_a_kernel;

const lite_qs8_gemm_packed_a_kernel* lite_qs8_gemm_packed_a_select(const lite_qs8_gemm_config* config);

#ifdef __cplusplus
}
#endif

#endif
