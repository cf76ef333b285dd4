// Registers the elementwise op group (see docs/OPS.md): binary ops, unary ops, CAST, WHERE.
#include "elementwise_ops.h"
#include "op_api.h"
#include "tensor_ops.h"

namespace lite {

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
}

}  // namespace lite
