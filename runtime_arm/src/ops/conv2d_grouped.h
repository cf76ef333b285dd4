// Grouped convolutions (groups > 1, not depthwise: ResNeXt's 32x4d blocks, RegNet, ShuffleNet v1's
// grouped 1x1) as one packed GEMM per group, for CONV_2D fp32 and int8. The input's channels are first
// regrouped, [N,H,W,G,Cg] -> [G,N,H,W,Cg] (in the scratch), so each group is an ordinary NHWC
// convolution of Cg channels that the groups == 1 im2col reads unchanged; each group's GEMM writes its
// Co / G columns of y in place (row stride Co). Every output element is one microkernel sum over the
// same im2col row for any thread count. Before, these convolutions ran the scalar reference kernel:
// about 10 (fp32) and 15 (int8) instructions per multiply-add under qemu cortex-a72.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lite_kernels/activation.h"
#include "lite_kernels/conv2d.h"
#include "lite_kernels/qs8_gemm_packed.h"
#include "op_api.h"
#include "thread_pool.h"

namespace lite {

struct GroupedConv;

// The caller's fp32 im2col (conv2d.cc's): the receptive fields of output pixels [first, first + rows)
// of the groups == 1 convolution p, as rows of kernel_h * kernel_w * in_c floats.
using Im2colF32Fn = void (*)(const lite_conv2d_params& p, const float* x, size_t first, size_t rows, float* out);

// Packs each group's weight [co / groups, kh, kw, ci / groups] (contiguous in the .lite weight) with
// its slice of the bias (may be null). Memory through op_allocate; null, with the message in ctx's
// error sink, when it is refused.
GroupedConv* grouped_conv_create_f32(OpContext* ctx, const lite_conv2d_params& p, const float* weight,
                                     const float* bias);
// int8: whether every group's int32 sums are exact (lite_qs8_gemm_is_exact); the reference kernel
// runs otherwise.
bool grouped_conv_int8_exact(const lite_conv2d_params& p, const int32_t* bias);
GroupedConv* grouped_conv_create_int8(OpContext* ctx, const lite_conv2d_params& p, const int8_t* weight,
                                      const int32_t* bias, int32_t input_zero_point, const int32_t* multiplier,
                                      const int32_t* shift, const lite_qs8_gemm_params& params);
void grouped_conv_free(GroupedConv* conv);

// Scratch bytes for `threads` threads: the regrouped input, then per thread one task's im2col rows.
size_t grouped_conv_scratch_bytes(const GroupedConv& conv, int threads);

// y = the convolution of x (NHWC). act: fp32's fused activation (PRELU slopes per output channel).
void grouped_conv_run_f32(const GroupedConv& conv, ThreadPool* pool, Im2colF32Fn im2col, const float* x,
                          const lite_activation* act, float* y, void* scratch);
void grouped_conv_run_int8(const GroupedConv& conv, ThreadPool* pool, const int8_t* x, int8_t* y, void* scratch);

}  // namespace lite
