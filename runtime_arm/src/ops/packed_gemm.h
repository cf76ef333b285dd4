// A constant B (weights + bias) packed once for the fp32 GEMM microkernel chosen from the CPU
// features, and the threaded tile loop over it. Shared by CONV_2D, FULLY_CONNECTED and MATMUL.
#pragma once

#include <cstddef>

#include "lite_kernels/activation.h"
#include "lite_kernels/f32_gemm_packed.h"
#include "op_api.h"
#include "thread_pool.h"

namespace lite {

struct PackedGemm {
  const lite_f32_gemm_config* config = nullptr;
  float* packed = nullptr;  // lite_f32_gemm_packed_size floats
  size_t n = 0, k = 0;
  const void* source = nullptr;  // the B and bias it was packed from (packed_gemm_still_valid)
  const void* bias = nullptr;
  uint64_t value_version = 0;
  size_t bytes = 0;  // of `packed`, counted against the memory bound  // B's TensorRef::value_version when packed from a body's value input
};

// Packs B[p, j] = b[p * stride_k + j * stride_n] with bias (may be null), in memory from op_allocate;
// null, with the message in ctx's error sink, when it is refused.
PackedGemm* packed_gemm_create(OpContext* ctx, size_t n, size_t k, const float* b, size_t stride_k,
                               size_t stride_n, const float* bias);
void packed_gemm_free(PackedGemm* gemm);

// Whether `state` (a PackedGemm or null) was packed from `b` and `bias` (may be null) as they are now:
// both constants of the model file (is_constant: their data never changes), or B a body's value
// input of the same value_version, with the same n and k.
bool packed_gemm_still_valid(const void* state, size_t n, size_t k, const TensorRef& b, const TensorRef* bias);
// At a re-prepare: whether ctx->state (kept by the core, OpKernel::keeps_constant_state) is still
// valid, and its memory counted again against the bound (false when it no longer fits).
bool packed_gemm_keep(OpContext* ctx, size_t n, size_t k, const TensorRef& b, const TensorRef* bias);

// C[m, n] = act(A[m, k] · B + bias), split into tiles of whole microkernel tiles (at most about
// 64 x 128, at least 8 where the shape allows, sized evenly) run on the pool; every element is one
// microkernel sum, so results do not depend on the split.
void packed_gemm_run(const PackedGemm& gemm, ThreadPool* pool, size_t m, const float* a, size_t lda,
                     const lite_activation* act, float* c, size_t ldc);

}  // namespace lite
