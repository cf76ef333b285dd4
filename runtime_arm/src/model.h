// A loaded, fully verified model: the bytes, the flatbuffer root, and the constant data of every
// tensor (in place when 64-byte aligned, else an aligned copy). Immutable after load, so any
// number of interpreters may share it across threads.
#pragma once

#include <memory>
#include <vector>

#include "aligned_buffer.h"
#include "error_sink.h"
#include "model_bytes.h"
#include "op_api.h"

namespace lite {

class Model {
 public:
  enum class Source { kFile, kCopy, kBorrow };

  // `registry` must outlive the model; the verifier requires every op code to be registered.
  static Status load_file(const char* path, const OpRegistry& registry, std::unique_ptr<Model>* out,
                          ErrorSink* error);
  static Status load_memory(const void* data, size_t size, bool copy, const OpRegistry& registry,
                            std::unique_ptr<Model>* out, ErrorSink* error);

  const lite_fb::Model* fb() const { return fb_; }
  const lite_fb::Graph* graph() const { return fb_->graph(); }
  const OpRegistry& registry() const { return *registry_; }
  int num_tensors() const { return num_tensors(0); }
  // Constant data of tensor `index` (non-null for every constant, even an empty one), or nullptr.
  const void* constant_data(int index) const { return constant_data(0, index); }
  // Subgraphs: 0 is the main graph, s >= 1 the body Model.subgraphs[s - 1] (control-flow ops).
  int num_subgraphs() const { return static_cast<int>(constant_data_.size()); }
  const lite_fb::Graph* graph(int s) const {
    return s == 0 ? fb_->graph() : fb_->subgraphs()->Get(static_cast<flatbuffers::uoffset_t>(s - 1));
  }
  int num_tensors(int s) const { return static_cast<int>(constant_data_[static_cast<size_t>(s)].size()); }
  const void* constant_data(int s, int index) const {
    return constant_data_[static_cast<size_t>(s)][static_cast<size_t>(index)];
  }
  // Bytes copied because they were not 64-byte aligned (0 for files the converter writes).
  size_t realigned_bytes() const { return realigned_bytes_; }

 private:
  Model() = default;
  Status finish_load(ErrorSink* error);

  ModelBytes bytes_;
  const lite_fb::Model* fb_ = nullptr;
  const OpRegistry* registry_ = nullptr;
  std::vector<std::vector<const void*>> constant_data_;  // per subgraph, per tensor
  std::vector<AlignedBuffer> realigned_;
  size_t realigned_bytes_ = 0;
};

}  // namespace lite
