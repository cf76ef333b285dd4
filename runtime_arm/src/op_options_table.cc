#include "op_options_table.h"

namespace lite {

lite_fb::OpOptions expected_options(lite_fb::OpCode opcode) {
  using lite_fb::OpCode;
  using lite_fb::OpOptions;
  int code = static_cast<int>(opcode);
  if (code >= static_cast<int>(OpCode::ADD) && code <= static_cast<int>(OpCode::PRELU))
    return OpOptions::BinaryOptions;
  if (code >= static_cast<int>(OpCode::RELU) && code <= static_cast<int>(OpCode::IDENTITY))
    return OpOptions::UnaryOptions;
  if (code >= static_cast<int>(OpCode::REDUCE_SUM) && code <= static_cast<int>(OpCode::REDUCE_LOG_SUM_EXP))
    return OpOptions::ReduceOptions;
  switch (opcode) {
    case OpCode::CONV_2D: return OpOptions::Conv2DOptions;
    case OpCode::CONV_TRANSPOSE_2D: return OpOptions::ConvTranspose2DOptions;
    case OpCode::MAX_POOL_2D:
    case OpCode::AVERAGE_POOL_2D: return OpOptions::Pool2DOptions;
    case OpCode::RESIZE: return OpOptions::ResizeOptions;
    case OpCode::DEPTH_TO_SPACE:
    case OpCode::SPACE_TO_DEPTH: return OpOptions::DepthToSpaceOptions;
    case OpCode::FULLY_CONNECTED: return OpOptions::FullyConnectedOptions;
    case OpCode::MATMUL: return OpOptions::MatMulOptions;
    case OpCode::SOFTMAX:
    case OpCode::LOG_SOFTMAX:
    case OpCode::HARDMAX: return OpOptions::SoftmaxOptions;
    case OpCode::LAYER_NORM: return OpOptions::LayerNormOptions;
    case OpCode::INSTANCE_NORM_NHWC: return OpOptions::InstanceNormOptions;
    case OpCode::LRN_NHWC: return OpOptions::LrnOptions;
    case OpCode::ARG_MAX:
    case OpCode::ARG_MIN: return OpOptions::ArgOptions;
    case OpCode::CONCAT: return OpOptions::ConcatOptions;
    case OpCode::SPLIT: return OpOptions::SplitOptions;
    case OpCode::SLICE: return OpOptions::SliceOptions;
    case OpCode::RESHAPE: return OpOptions::ReshapeOptions;
    case OpCode::FLATTEN: return OpOptions::FlattenOptions;
    case OpCode::SQUEEZE:
    case OpCode::UNSQUEEZE: return OpOptions::SqueezeOptions;
    case OpCode::TRANSPOSE: return OpOptions::TransposeOptions;
    case OpCode::PAD: return OpOptions::PadOptions;
    case OpCode::GATHER:
    case OpCode::GATHER_ELEMENTS:
    case OpCode::GATHER_ND: return OpOptions::GatherOptions;
    case OpCode::CAST: return OpOptions::CastOptions;
    case OpCode::SHAPE: return OpOptions::ShapeOptions;
    case OpCode::CONSTANT_OF_SHAPE: return OpOptions::ConstantOfShapeOptions;
    case OpCode::CUMSUM: return OpOptions::CumSumOptions;
    case OpCode::TOP_K: return OpOptions::TopKOptions;
    case OpCode::ONE_HOT: return OpOptions::OneHotOptions;
    case OpCode::SCATTER_ELEMENTS:
    case OpCode::SCATTER_ND: return OpOptions::ScatterOptions;
    case OpCode::TRILU: return OpOptions::TriluOptions;
    case OpCode::QUANTIZE:
    case OpCode::DEQUANTIZE:
    case OpCode::REQUANTIZE: return OpOptions::QuantizeOptions;
    default: return OpOptions::NONE;
  }
}

}  // namespace lite
