#include "cpu_backend.h"

#include <cstdlib>
#include <cstring>

#include "aligned_buffer.h"

namespace lite {

Status CpuBackend::allocate(TensorRef* tensor) {
  tensor->data = allocate_aligned(tensor->bytes(), false);
  return tensor->data != nullptr ? Status::kOk : Status::kOutOfMemory;
}

void CpuBackend::release(TensorRef* tensor) {
  std::free(tensor->data);
  tensor->data = nullptr;
}

Status CpuBackend::copy_from_host(const void* host, TensorRef* tensor) {
  if (tensor->bytes() > 0) std::memcpy(tensor->data, host, tensor->bytes());
  return Status::kOk;
}

Status CpuBackend::copy_to_host(const TensorRef& tensor, void* host) {
  if (tensor.bytes() > 0) std::memcpy(host, tensor.data, tensor.bytes());
  return Status::kOk;
}

}  // namespace lite
