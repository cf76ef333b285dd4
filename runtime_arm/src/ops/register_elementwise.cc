// Registers the elementwise op group (see docs/OPS.md): binary ops, unary ops, CAST, WHERE.
#include "elementwise_ops.h"
#include "op_api.h"
#include "tensor_ops.h"

namespace lite {

// int8 (issue 4): ADD / MUL / table activations pick their int8 path by input 0's dtype;
// QUANTIZE / DEQUANTIZE (quantize.cc).
OpKernel binary_int8_op_kernel();  // ADD, MUL
OpKernel lookup_int8_op_kernel();  // HARD_SWISH, HARD_SIGMOID, SIGMOID, TANH, SILU through a 256-entry table
OpKernel requantize_table_op_kernel();  // REQUANTIZE(x, int8[256] table): a composed chain of int8 maps
OpKernel quantize_op_kernel();
OpKernel dequantize_op_kernel();
OpKernel int8_dispatch(lite_fb::OpCode opcode, const OpKernel& fp32, const OpKernel& int8);

void register_elementwise_ops(OpRegistry& registry) {
  using lite_fb::OpCode;
  const OpKernel binary = binary_op_kernel();
  for (int code = static_cast<int>(OpCode::ADD); code <= static_cast<int>(OpCode::PRELU); ++code)
    registry.add(static_cast<OpCode>(code), binary);
  const OpKernel unary = unary_op_kernel();
  for (int code = static_cast<int>(OpCode::RELU); code < static_cast<int>(OpCode::IDENTITY); ++code)
    registry.add(static_cast<OpCode>(code), unary);
  registry.add(OpCode::IDENTITY, identity_kernel());  // shares the input's memory
  registry.add(OpCode::CAST, cast_op_kernel());
  registry.add(OpCode::WHERE, where_op_kernel());
  const OpKernel binary_int8 = binary_int8_op_kernel();
  for (OpCode code : {OpCode::ADD, OpCode::MUL}) registry.add(code, int8_dispatch(code, binary, binary_int8));
  for (OpCode code : {OpCode::HARD_SWISH, OpCode::HARD_SIGMOID, OpCode::SIGMOID, OpCode::TANH, OpCode::SILU})
    registry.add(code, int8_dispatch(code, unary, lookup_int8_op_kernel()));
  registry.add(OpCode::QUANTIZE, quantize_op_kernel());
  registry.add(OpCode::DEQUANTIZE, dequantize_op_kernel());
  registry.add(OpCode::REQUANTIZE, requantize_table_op_kernel());
}

}  // namespace lite
