// Builds small .lite models in memory with the flatbuffers C++ builder, including deliberately
// broken ones (the verifier tests set raw indices, dtypes and op codes the converter never writes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schema/lite_generated.h"

namespace lite_test {

struct TensorSpec {
  std::string name;
  int dtype = 0;  // raw, so tests can write invalid values
  std::vector<int64_t> shape;
  bool has_shape = true;
  uint32_t buffer = 0;  // 0: activation
  // Quantization (written when scales is non-empty or force_quantization).
  std::vector<float> scales;
  std::vector<int64_t> zero_points;
  int quant_axis = -1;
  bool force_quantization = false;
};

struct OpSpec {
  int opcode = 0;  // raw
  std::string name;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  bool has_outputs = true;
  lite_fb::OpOptions options_type = lite_fb::OpOptions::NONE;  // BinaryOptions and Conv2DOptions supported
};

class ModelBuilder {
 public:
  ModelBuilder() { buffers_.emplace_back(); }  // buffer 0 is always empty

  int add_tensor(const std::string& name, lite_fb::DType dtype, std::vector<int64_t> shape);
  // A constant: the bytes go into a new buffer.
  int add_constant(const std::string& name, lite_fb::DType dtype, std::vector<int64_t> shape, const void* data,
                   size_t bytes);
  int add_op(lite_fb::OpCode opcode, const std::string& name, std::vector<int32_t> inputs,
             std::vector<int32_t> outputs);

  TensorSpec& tensor(int i) { return tensors_[static_cast<size_t>(i)]; }
  OpSpec& op(int i) { return ops_[static_cast<size_t>(i)]; }
  std::vector<std::vector<uint8_t>>& buffers() { return buffers_; }
  std::vector<int32_t> inputs, outputs;
  uint32_t schema_version = 1;
  bool has_graph = true;

  std::vector<uint8_t> finish() const;

 private:
  std::vector<TensorSpec> tensors_;
  std::vector<OpSpec> ops_;
  std::vector<std::vector<uint8_t>> buffers_;
};

}  // namespace lite_test
