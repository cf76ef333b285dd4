// Depthwise convolution path of CONV_2D (groups == in_c == out_c): the weight is packed once at
// prepare into [KH*KW, C] and the variant for this CPU and C (lite_f32_dwconv_select_for) runs over output
// rows split into fixed-size tasks on the thread pool (bit-identical for any thread count).
#pragma once

#include "lite_kernels/conv2d.h"
#include "lite_kernels/f32_dwconv.h"
#include "op_api.h"

namespace lite {

class ThreadPool;

struct DepthwiseConv {
  float* packed = nullptr;  // [KH*KW, C]
  lite_f32_dwconv_fn fn = nullptr;
};

// True when the depthwise kernels serve this convolution (channel multiplier 1).
bool depthwise_conv_applies(const lite_conv2d_params& p);

// Packs the .lite weight [C, KH, KW, 1] in memory from op_allocate; nullptr, with the message in
// ctx's error sink, when it is refused.
DepthwiseConv* depthwise_conv_create(OpContext* ctx, const lite_conv2d_params& p, const float* weight);
void depthwise_conv_free(DepthwiseConv* dw);

// y = act(conv(x) + bias); bias and act may be null.
void depthwise_conv_run(const DepthwiseConv& dw, const lite_conv2d_params& p, ThreadPool* pool, const float* x,
                        const float* bias, const lite_activation* act, float* y);

}  // namespace lite
