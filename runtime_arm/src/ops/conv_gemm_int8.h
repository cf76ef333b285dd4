// A constant int8 weight packed once (at prepare) for the int8 GEMM microkernel chosen from the CPU
// features, with the input zero point and per-channel requantization folded in
// (lite_kernels/qs8_gemm_packed.h), and the threaded tile loop over it. Shared by int8 CONV_2D
// (1x1 directly, other kernels through im2col) and FULLY_CONNECTED.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lite_kernels/conv2d.h"
#include "lite_kernels/qs8_gemm_packed.h"
#include "op_api.h"
#include "thread_pool.h"

namespace lite {

struct PackedGemmInt8 {
  const lite_qs8_gemm_config* config = nullptr;
  void* packed = nullptr;  // lite_qs8_gemm_packed_size bytes
  size_t n = 0, k = 0;
  lite_qs8_gemm_params params{};
};

// Packs W[p, j] = w[p * stride_k + j * stride_n]; multiplier / shift have n entries. Memory through
// op_allocate (counted against the interpreter's bound); null, with the message in ctx's error
// sink, when it is refused. The caller checks lite_qs8_gemm_is_exact first (else the reference
// kernel must run).
PackedGemmInt8* packed_gemm_int8_create(OpContext* ctx, size_t n, size_t k, const int8_t* w, size_t stride_k,
                                        size_t stride_n, const int32_t* bias, int32_t input_zero_point,
                                        const int32_t* multiplier, const int32_t* shift,
                                        const lite_qs8_gemm_params& params);
void packed_gemm_int8_free(PackedGemmInt8* gemm);

// C[m, n] (row stride ldc) from A[m, k] (row stride lda), split into fixed tiles run on the pool.
void packed_gemm_int8_run(const PackedGemmInt8& gemm, ThreadPool* pool, size_t m, const int8_t* a, size_t lda,
                          int8_t* c, size_t ldc);

// Output pixels per im2col tile for depth k (a multiple of mr, about 32 KiB of int8 columns).
size_t im2col_int8_tile_rows(size_t k, size_t mr);

// Copies the receptive fields of output pixels [first, first + rows) into rows of k bytes in the
// weight's (kh, kw, ci) order; taps in the padding are the input zero point (real 0).
void im2col_int8_rows(const lite_conv2d_params& p, const int8_t* x, int8_t pad_value, size_t first, size_t rows,
                      int8_t* out);

}  // namespace lite
