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

bool AlignedBuffer::allocate(size_t size, bool zero) {
  reset();
  size_t rounded;
  if (!checked_align_up(size == 0 ? 1 : size, kTensorAlignment, &rounded)) return false;
  void* p = nullptr;
  if (posix_memalign(&p, kTensorAlignment, rounded) != 0 || p == nullptr) return false;
  if (zero) std::memset(p, 0, rounded);
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
