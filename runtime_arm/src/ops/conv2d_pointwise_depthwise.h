// A 1x1 CONV_2D and the depthwise CONV_2D reading its output, run together (CONV_2D's
// absorb_producer): the depthwise op computes the 1x1 output a band of rows at a time into a
// per-thread buffer and consumes it while it is in cache, instead of the 1x1 writing the whole
// tensor (MobileNetV2's 112x112x96: 4.8 MB) for the depthwise op to read back. Each value is the
// same GEMM microkernel sum and the same depthwise kernel sum as in the two separate ops, so the
// results are the same bytes, for any thread count.
#pragma once

#include <cstddef>

#include "conv2d_depthwise.h"
#include "lite_kernels/activation.h"
#include "lite_kernels/conv2d.h"
#include "packed_gemm.h"

namespace lite {

class ThreadPool;

// Whether running the pair as bands pays: the intermediate tensor is larger than L2 (intermediate
// bytes below kL2Bytes stay cached between the two ops anyway), and every depthwise output row
// reads at least one image row (pads smaller than the window).
bool pointwise_depthwise_applies(const lite_conv2d_params& depthwise, size_t intermediate_bytes);

// Image rows of the 1x1 output kept per thread: about kBandBytes, at least one window's height.
size_t pointwise_depthwise_band_rows(const lite_conv2d_params& depthwise);

// Scratch bytes of the band buffers for num_threads workers.
size_t pointwise_depthwise_scratch_bytes(const lite_conv2d_params& depthwise, int num_threads);

struct PointwiseStage {
  const PackedGemm* gemm = nullptr;         // the 1x1's packed weight and bias: K = its in_c, N = depthwise.in_c
  const lite_activation* act = nullptr;     // the 1x1's fused activation (may be null)
  const float* x = nullptr;                 // the 1x1's input [N, H, W, K]
};

// y = depthwise(pointwise(x)) for the whole batch; bias / act are the depthwise op's.
void pointwise_depthwise_run(const PointwiseStage& pointwise, const DepthwiseConv& dw, const lite_conv2d_params& p,
                             ThreadPool* pool, const float* bias, const lite_activation* act, float* y,
                             void* scratch);

}  // namespace lite
