// The bytes of a model: a read-only file mapping, a 64-byte aligned copy, or a borrowed caller
// buffer. Whatever the source, data() stays valid and unchanged for the model's lifetime.
#pragma once

#include <cstddef>
#include <cstdint>

#include "aligned_buffer.h"
#include "error_sink.h"

namespace lite {

class ModelBytes {
 public:
  ModelBytes() = default;
  ~ModelBytes();
  ModelBytes(const ModelBytes&) = delete;
  ModelBytes& operator=(const ModelBytes&) = delete;

  Status map_file(const char* path, ErrorSink* error);
  Status copy_from(const void* data, size_t size, ErrorSink* error);
  void borrow(const void* data, size_t size);

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* mapping_ = nullptr;
  size_t mapping_size_ = 0;
  AlignedBuffer copy_;
};

}  // namespace lite
