// GEMM path of CONV_TRANSPOSE_2D (groups 1, constant weight and bias): for each kernel row kh the
// weight slice [Ci, KW*Co] is packed once for the fp32 GEMM microkernel, and every output row is
// one task that multiplies the input rows reaching it by their kh slice. The reference kernel
// instead scatters one input channel at a time, which for the 2x2 stride-2 heads of detection
// models (PP-OCR's DB head: 24 -> 1 channels) runs at a fraction of a GFLOP/s.
//
// Two forms, chosen at prepare:
//   - non-overlapping (kernel == stride, dilation 1, no left crop): an input row's GEMM result
//     [W, KW*Co] is exactly a run of adjacent output pixels, so the microkernel writes the output
//     row itself with bias and activation fused;
//   - general: the GEMM result goes to per-thread scratch and is added into the output row.
// Each output value is computed within one task in a fixed order: bit-identical for any thread count.
#pragma once

#include <cstddef>

#include "lite_kernels/activation.h"
#include "lite_kernels/conv_transpose2d.h"
#include "op_api.h"

namespace lite {

class ThreadPool;
struct PackedGemm;

struct ConvTransposeGemm {
  PackedGemm** slices = nullptr;  // kernel_h packed B matrices [Ci, KW*Co]
  size_t num_slices = 0;
  bool non_overlapping = false;   // slices hold the bias (repeated per kw); no scratch needed
  float* bias = nullptr;          // general form: [Co] copy of the bias (null: zeros)
};

// True when the GEMM path serves these parameters (groups 1, non-empty channels, bounded rows).
bool conv_transpose_gemm_applies(const lite_conv_transpose2d_params& p);

// Packs the .lite weight [Ci, KH, KW, Co] (+ bias, may be null) in memory from op_allocate;
// nullptr, with the message in ctx's error sink, when it is refused.
ConvTransposeGemm* conv_transpose_gemm_create(OpContext* ctx, const lite_conv_transpose2d_params& p,
                                              const float* weight, const float* bias);
void conv_transpose_gemm_free(ConvTransposeGemm* g);

// Bytes of scratch eval needs for num_threads workers (0 for the non-overlapping form).
size_t conv_transpose_gemm_scratch_bytes(const ConvTransposeGemm& g, const lite_conv_transpose2d_params& p,
                                         int num_threads);

// y = act(conv_transpose(x) + bias); act may be null.
void conv_transpose_gemm_run(const ConvTransposeGemm& g, const lite_conv_transpose2d_params& p, ThreadPool* pool,
                             const float* x, const lite_activation* act, float* y, void* scratch);

}  // namespace lite
