// Winograd path of CONV_2D (3x3, stride 1 or 2, dilation 1, groups 1): the cost rules
// (lite_f32_winograd_choose: F(2,3), F(4,3), F(6,3) or none; lite_f32_winograd_choose_stride2:
// F(7,2) on the input phases or none) pick the tile; the weight is transformed and packed for the
// GEMM microkernel once at prepare when the model's packed-weight budget allows
// (lite_interpreter_options.packed_weight_ratio, MemoryBudget::take_transformed), else transformed
// one panel at a time at every run from the model's weight (same values; F(7,2) then goes to
// im2col + GEMM instead); eval splits the tile rows over the thread pool, each worker with its own
// scratch (bit-identical for any thread count).
#pragma once

#include <cstddef>

#include "lite_kernels/conv2d.h"
#include "lite_kernels/f32_winograd.h"
#include "op_api.h"

namespace lite {

class ThreadPool;

struct WinogradConv {
  int m = 0;  // output tile size: 2, 4 or 6; 7 for stride 2 (F(7,2) on the input phases)
  const lite_f32_gemm_config* gemm = nullptr;
  lite_f32_winograd_fn fn = nullptr;
  float* packed = nullptr;     // null: transformed per panel at every run from `weight`
  const float* weight = nullptr;  // the model's [Co, 3, 3, Ci] weight (read when packed is null)
  size_t scratch_floats = 0;  // per worker
  size_t rows_per_task = 1;   // tile rows
};

// The tile size the cost rule picks for this convolution, 0 for none (or not applicable).
int winograd_conv_choose(const lite_conv2d_params& p);

// Whether the transformed weight is kept (always without a packed-weight bound; under one, when the
// interpreter grants this op's offer, see conv2d_winograd.cc), and the tile size *m to run with (call
// once per prepare).
bool winograd_conv_keeps_transformed(OpContext* ctx, const lite_conv2d_params& p, int* m);

// With `keep`: transforms and packs the .lite weight [Co, 3, 3, Ci] in memory from op_allocate; else
// remembers `weight` (the model's, alive as long as the interpreter) for the run-time transform.
// nullptr, with the message in ctx's error sink, when it is refused.
WinogradConv* winograd_conv_create(OpContext* ctx, const lite_conv2d_params& p, int m, const float* weight,
                                   bool keep);
void winograd_conv_free(WinogradConv* wg);

// Scratch bytes for num_threads workers (request it at prepare).
size_t winograd_conv_scratch_bytes(const WinogradConv& wg, int num_threads);

// y = act(conv(x) + bias); bias and act may be null; scratch as requested.
void winograd_conv_run(const WinogradConv& wg, const lite_conv2d_params& p, ThreadPool* pool, const float* x,
                       const float* bias, const lite_activation* act, float* y, void* scratch);

}  // namespace lite
