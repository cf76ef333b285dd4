// The int8 CONV_2D's state: how it runs and what prepare (conv2d_int8_prepare.cc, compiled for size on
// ARM: it runs once per model load) leaves for eval (conv2d_int8.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "conv2d_grouped.h"
#include "conv_gemm_int8.h"
#include "lite_kernels/qs8_dwconv.h"
#include "lite_kernels/qs8_gemm_packed_a.h"
#include "lite_kernels/qs8_gemm_packed_runs.h"
#include "lite_kernels/qs8_winograd.h"
#include "lite_kernels/s8_pad_channels.h"
#include "op_api.h"
#include "quant_params_int8.h"

namespace lite {

// How an int8 convolution runs; choose_algorithm is the one place that decides.
enum class ConvInt8Algorithm {
  kReference,   // lite_qs8_conv2d_nhwc_ref: any conv (computed weights, sums past int32)
  kGemm1x1,     // 1x1, stride 1, no padding: the NHWC input is the GEMM's A as it is
  kIm2colGemm,  // groups == 1: im2col of a block of output pixels into per-thread scratch + GEMM
  kRowsGemm,    // groups == 1 with a runs kernel (qs8_gemm_packed_runs.h): kernel rows read from the
                // input (or its channel-padded copy) in place; only pixels whose window crosses the
                // left / right padding copied
  kDepthwise,   // groups == in_c == out_c: lite_qs8_dwconv_select's kernel over packed taps
  kWinograd,    // 3x3 stride 1, groups 1, where lite_qs8_winograd_choose finds an exact F(m,3) cheaper
  kGrouped,     // groups > 1, not depthwise: one GEMM per group (conv2d_grouped.h)
};

struct ConvInt8State {
  lite_conv2d_params params{};
  QuantInt8 in, out;
  int32_t act_min = -128, act_max = 127;
  std::vector<int32_t> multiplier, shift;
  ConvInt8Algorithm algorithm = ConvInt8Algorithm::kReference;
  PackedGemmInt8* gemm = nullptr;
  size_t im2col_rows = 0;  // kIm2colGemm: output pixels per tile (per-thread scratch rows)
  // kIm2colGemm / kGemm1x1 with a packed-A kernel: the im2col rows (the input rows) are packed once
  // per tile of rows for it and used by every weight panel
  const lite_qs8_gemm_packed_a_kernel* packed_a = nullptr;
  size_t thread_scratch = 0;  // bytes of scratch per thread
  lite_qs8_dwconv_fn depthwise = nullptr;  // kDepthwise
  // kRowsGemm: output columns [interior_begin, interior_end) of every output row have their whole
  // window inside the input's width; a task is `task_rows` output rows; kernel rows above / below
  // the input read `pad_row` (input zero points)
  lite_qs8_gemm_runs_ukernel_fn runs = nullptr;
  size_t interior_begin = 0, interior_end = 0, task_rows = 0;
  int8_t* pad_row = nullptr;  // op_allocate'd
  // kRowsGemm: the geometry the rows GEMM runs. Its in_c exceeds params.in_c when the kernel rows
  // (kernel_w * in_c bytes) are not whole k-groups: eval then first copies x into the start of the
  // scratch (padded_input_bytes) with that many channels, and the packed weight has zeros there.
  lite_conv2d_params rows{};
  size_t padded_input_bytes = 0;
  lite_s8_pad_channels_fn pad_channels = nullptr;
  void* depthwise_packed = nullptr;
  const lite_qs8_winograd_kernel* winograd = nullptr;  // kWinograd
  void* winograd_packed = nullptr;                      // op_allocate'd
  GroupedConv* grouped = nullptr;                       // kGrouped
};

// 1x1 convolutions with a packed-A kernel (qs8_gemm_packed_a.h) pack A in tiles of this many pixels, all
// weight panels of a tile in one task (A packed once).
constexpr size_t kPackedA1x1Rows = 64;

// kRowsGemm: at most this many kernel rows (the runs' pointers live on the stack); about this many
// output pixels per task.
constexpr size_t kRowsGemmMaxKernelH = 16;
constexpr size_t kRowsGemmTaskPixels = 64;

Status conv2d_int8_prepare(OpContext* ctx);
void conv2d_int8_free_state(void* state);

}  // namespace lite
