#include "aligned_buffer.h"

#include <cstdlib>
#include <cstring>

#include "checked_math.h"

namespace lite {

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    data_ = other.data_;
    size_ = other.size_;
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

void* allocate_aligned(size_t size, bool zero) {
  size_t rounded;
  if (!checked_align_up(size == 0 ? 1 : size, kTensorAlignment, &rounded)) return nullptr;
  void* p = nullptr;
  if (posix_memalign(&p, kTensorAlignment, rounded) != 0) return nullptr;
  if (zero) std::memset(p, 0, rounded);
  return p;
}

bool AlignedBuffer::allocate(size_t size, bool zero) {
  reset();
  void* p = allocate_aligned(size, zero);
  if (p == nullptr) return false;
  data_ = p;
  size_ = size;
  return true;
}

void AlignedBuffer::reset() {
  std::free(data_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace lite
