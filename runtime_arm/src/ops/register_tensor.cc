// Registers the tensor / data-movement op group (see docs/OPS.md).
#include "op_api.h"
#include "tensor_ops.h"

namespace lite {

void register_tensor_ops(OpRegistry& registry) {
  using lite_fb::OpCode;
  registry.add(OpCode::CONCAT, concat_kernel());
  registry.add(OpCode::SPLIT, split_kernel());
  registry.add(OpCode::SLICE, slice_kernel());
  registry.add(OpCode::RESHAPE, reshape_kernel());
  registry.add(OpCode::FLATTEN, flatten_kernel());
  registry.add(OpCode::SQUEEZE, squeeze_kernel());
  registry.add(OpCode::UNSQUEEZE, unsqueeze_kernel());
  registry.add(OpCode::TRANSPOSE, transpose_kernel());
  registry.add(OpCode::PAD, pad_kernel());
  registry.add(OpCode::GATHER, gather_kernel());
  registry.add(OpCode::GATHER_ELEMENTS, gather_elements_kernel());
  registry.add(OpCode::GATHER_ND, gather_nd_kernel());
  registry.add(OpCode::SCATTER_ELEMENTS, scatter_elements_kernel());
  registry.add(OpCode::SCATTER_ND, scatter_nd_kernel());
  registry.add(OpCode::SHAPE, shape_kernel());
  registry.add(OpCode::SIZE, size_kernel());
  registry.add(OpCode::EXPAND, expand_kernel());
  registry.add(OpCode::TILE, tile_kernel());
  registry.add(OpCode::RANGE, range_kernel());
  registry.add(OpCode::CONSTANT_OF_SHAPE, constant_of_shape_kernel());
  registry.add(OpCode::ONE_HOT, one_hot_kernel());
  registry.add(OpCode::TRILU, trilu_kernel());
  registry.add(OpCode::NON_ZERO, non_zero_kernel());
  registry.add(OpCode::REVERSE_SEQUENCE, reverse_sequence_kernel());
  registry.add(OpCode::IF, if_kernel());
  registry.add(OpCode::LOOP, loop_kernel());
  registry.add(OpCode::SCAN, scan_kernel());
  registry.add(OpCode::ASSIGN_VARIABLE, assign_variable_kernel());
#ifndef LITE_NO_SEQUENCES  // runtime_arm/CMakeLists.txt: LITE_RUNTIME_SEQUENCES
  for (int op = static_cast<int>(OpCode::SEQUENCE_CONSTRUCT); op <= static_cast<int>(OpCode::OPTIONAL_GET_ELEMENT); ++op)
    registry.add(static_cast<OpCode>(op), sequence_kernel());
#endif
}

}  // namespace lite
