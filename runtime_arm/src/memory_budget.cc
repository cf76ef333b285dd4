#include "memory_budget.h"

#include "aligned_buffer.h"

namespace lite {

bool MemoryBudget::reserve(size_t bytes) {
  if (!fits(bytes)) return false;
  used_ += bytes;
  return true;
}

void* MemoryBudget::allocate(size_t bytes, bool* over_limit) {
  *over_limit = !fits(bytes);
  if (*over_limit) return nullptr;
  void* p = allocate_aligned(bytes, false);
  if (p != nullptr) used_ += bytes;
  return p;
}

}  // namespace lite
