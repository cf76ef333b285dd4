// An owned, 64-byte aligned heap block: weights and the activation arena live in one, so kernels
// can use aligned SIMD loads. Allocation failure is reported, never thrown.
#pragma once

#include <cstddef>

namespace lite {

constexpr size_t kTensorAlignment = 64;

// `size` bytes (at least one alignment unit) aligned to kTensorAlignment, zero-filled when asked;
// nullptr when out of memory. Release with std::free.
void* allocate_aligned(size_t size, bool zero);

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  ~AlignedBuffer() { reset(); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  AlignedBuffer(AlignedBuffer&& other) noexcept : data_(other.data_), size_(other.size_) {
    other.data_ = nullptr;
    other.size_ = 0;
  }
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept;

  // Replaces the content with `size` bytes (at least one alignment unit is allocated so the
  // pointer is never null); false when out of memory. `zero` fills the block with zeros.
  bool allocate(size_t size, bool zero);
  void reset();

  void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace lite
