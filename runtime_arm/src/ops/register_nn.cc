// Registers the nn op group (see docs/OPS.md): each op file defines one `*_op_kernel()` factory;
// ops that share a file differ by op code at run time.
#include "op_api.h"

namespace lite {

OpKernel conv2d_op_kernel();
OpKernel conv_transpose2d_op_kernel();
OpKernel pool2d_op_kernel();
OpKernel global_pool_op_kernel();
OpKernel resize_op_kernel();
OpKernel depth_to_space_op_kernel();
OpKernel fully_connected_op_kernel();
OpKernel matmul_op_kernel();
OpKernel softmax_op_kernel();
OpKernel layer_norm_op_kernel();
OpKernel instance_norm_op_kernel();
OpKernel lrn_op_kernel();
OpKernel reduce_op_kernel();
OpKernel arg_minmax_op_kernel();
OpKernel cumsum_op_kernel();
OpKernel top_k_op_kernel();
OpKernel recurrent_op_kernel();  // LSTM, GRU, RNN
// int8 paths (issue 4), chosen by input 0's dtype through int8_dispatch (quant_params_int8.h)
OpKernel conv2d_int8_op_kernel();
OpKernel fully_connected_int8_op_kernel();
OpKernel max_pool_int8_op_kernel();
OpKernel global_average_pool_int8_op_kernel();
OpKernel conv_transpose2d_int8_op_kernel();
OpKernel int8_dispatch(lite_fb::OpCode opcode, const OpKernel& fp32, const OpKernel& int8);

void register_nn_ops(OpRegistry& registry) {
  using lite_fb::OpCode;
  registry.add(OpCode::CONV_2D, int8_dispatch(OpCode::CONV_2D, conv2d_op_kernel(), conv2d_int8_op_kernel()));
  registry.add(OpCode::CONV_TRANSPOSE_2D, int8_dispatch(OpCode::CONV_TRANSPOSE_2D, conv_transpose2d_op_kernel(),
                                                        conv_transpose2d_int8_op_kernel()));
  registry.add(OpCode::MAX_POOL_2D,
               int8_dispatch(OpCode::MAX_POOL_2D, pool2d_op_kernel(), max_pool_int8_op_kernel()));
  registry.add(OpCode::AVERAGE_POOL_2D, pool2d_op_kernel());
  registry.add(OpCode::GLOBAL_AVERAGE_POOL, int8_dispatch(OpCode::GLOBAL_AVERAGE_POOL, global_pool_op_kernel(),
                                                          global_average_pool_int8_op_kernel()));
  registry.add(OpCode::GLOBAL_MAX_POOL, global_pool_op_kernel());
  registry.add(OpCode::RESIZE, resize_op_kernel());
  registry.add(OpCode::DEPTH_TO_SPACE, depth_to_space_op_kernel());
  registry.add(OpCode::SPACE_TO_DEPTH, depth_to_space_op_kernel());
  registry.add(OpCode::FULLY_CONNECTED, int8_dispatch(OpCode::FULLY_CONNECTED, fully_connected_op_kernel(),
                                                      fully_connected_int8_op_kernel()));
  registry.add(OpCode::MATMUL, matmul_op_kernel());
  registry.add(OpCode::SOFTMAX, softmax_op_kernel());
  registry.add(OpCode::LOG_SOFTMAX, softmax_op_kernel());
  registry.add(OpCode::HARDMAX, softmax_op_kernel());
  registry.add(OpCode::LAYER_NORM, layer_norm_op_kernel());
  registry.add(OpCode::INSTANCE_NORM_NHWC, instance_norm_op_kernel());
  registry.add(OpCode::LRN_NHWC, lrn_op_kernel());
  for (int code = static_cast<int>(OpCode::REDUCE_SUM); code <= static_cast<int>(OpCode::REDUCE_LOG_SUM_EXP); ++code)
    registry.add(static_cast<OpCode>(code), reduce_op_kernel());
  registry.add(OpCode::ARG_MAX, arg_minmax_op_kernel());
  registry.add(OpCode::ARG_MIN, arg_minmax_op_kernel());
  registry.add(OpCode::CUMSUM, cumsum_op_kernel());
  registry.add(OpCode::TOP_K, top_k_op_kernel());
  registry.add(OpCode::LSTM, recurrent_op_kernel());
  registry.add(OpCode::GRU, recurrent_op_kernel());
  registry.add(OpCode::RNN, recurrent_op_kernel());
}

}  // namespace lite
