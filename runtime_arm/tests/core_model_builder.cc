#include "core_model_builder.h"

#include <cstring>

namespace lite_test {

int ModelBuilder::add_tensor(const std::string& name, lite_fb::DType dtype, std::vector<int64_t> shape) {
  TensorSpec t;
  t.name = name;
  t.dtype = static_cast<int>(dtype);
  t.shape = std::move(shape);
  tensors_.push_back(t);
  return static_cast<int>(tensors_.size()) - 1;
}

int ModelBuilder::add_constant(const std::string& name, lite_fb::DType dtype, std::vector<int64_t> shape,
                               const void* data, size_t bytes) {
  int index = add_tensor(name, dtype, std::move(shape));
  std::vector<uint8_t> buffer(bytes);
  if (bytes > 0) std::memcpy(buffer.data(), data, bytes);
  buffers_.push_back(buffer);
  tensors_[static_cast<size_t>(index)].buffer = static_cast<uint32_t>(buffers_.size() - 1);
  return index;
}

int ModelBuilder::add_op(lite_fb::OpCode opcode, const std::string& name, std::vector<int32_t> op_inputs,
                         std::vector<int32_t> op_outputs) {
  OpSpec op;
  op.opcode = static_cast<int>(opcode);
  op.name = name;
  op.inputs = std::move(op_inputs);
  op.outputs = std::move(op_outputs);
  ops_.push_back(op);
  return static_cast<int>(ops_.size()) - 1;
}

std::vector<uint8_t> ModelBuilder::finish() const {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<lite_fb::Buffer>> buffers;
  for (const auto& b : buffers_) {
    if (b.empty()) {
      buffers.push_back(lite_fb::CreateBuffer(fbb));
    } else {
      buffers.push_back(lite_fb::CreateBufferDirect(fbb, &b));
    }
  }
  std::vector<flatbuffers::Offset<lite_fb::Tensor>> tensors;
  for (const auto& t : tensors_) {
    flatbuffers::Offset<lite_fb::Quantization> q = 0;
    if (!t.scales.empty() || t.force_quantization) {
      q = lite_fb::CreateQuantizationDirect(fbb, t.scales.empty() ? nullptr : &t.scales,
                                            t.zero_points.empty() ? nullptr : &t.zero_points, t.quant_axis);
    }
    tensors.push_back(lite_fb::CreateTensorDirect(fbb, t.name.c_str(), static_cast<lite_fb::DType>(t.dtype),
                                                  t.has_shape ? &t.shape : nullptr, nullptr, t.buffer, q));
  }
  std::vector<flatbuffers::Offset<lite_fb::Operator>> ops;
  for (const auto& op : ops_) {
    flatbuffers::Offset<void> options = 0;
    if (op.options_type == lite_fb::OpOptions::BinaryOptions) {
      options = lite_fb::CreateBinaryOptions(fbb).Union();
    } else if (op.options_type == lite_fb::OpOptions::Conv2DOptions) {
      options = lite_fb::CreateConv2DOptions(fbb).Union();
    }
    ops.push_back(lite_fb::CreateOperatorDirect(fbb, static_cast<lite_fb::OpCode>(op.opcode), op.name.c_str(),
                                                &op.inputs, op.has_outputs ? &op.outputs : nullptr,
                                                options.IsNull() ? lite_fb::OpOptions::NONE : op.options_type, options));
  }
  flatbuffers::Offset<lite_fb::Graph> graph = 0;
  if (has_graph) graph = lite_fb::CreateGraphDirect(fbb, &tensors, &ops, &inputs, &outputs);
  auto model = lite_fb::CreateModelDirect(fbb, schema_version, "core_tests", "test", graph, &buffers);
  lite_fb::FinishModelBuffer(fbb, model);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace lite_test
