#include "core_test_backend.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "aligned_buffer.h"

namespace lite_test {

using lite::Status;

namespace {

Status decline(lite::OpContext*) { return Status::kUnsupported; }
Status refuse(lite::OpContext* ctx) { return lite::fail(ctx, Status::kShapeError, "the test backend refuses"); }

}  // namespace

bool BackendStats::owns(const void* p) const { return std::find(live.begin(), live.end(), p) != live.end(); }

const lite::OpKernel* TestBackend::kernel_for(const lite::OpContext& ctx) {
  const lite::OpKernel* cpu = registry_.find(ctx.op->opcode());
  if (cpu == nullptr) return nullptr;
  switch (claim_(ctx)) {
    case Claim::kNo: return nullptr;
    case Claim::kYes: return cpu;
    case Claim::kDeclineAtPrepare:
      declining_ = *cpu;
      declining_.prepare = decline;
      return &declining_;
    case Claim::kFailAtPrepare:
      failing_ = *cpu;
      failing_.prepare = refuse;
      return &failing_;
  }
  return nullptr;
}

Status TestBackend::allocate(lite::TensorRef* tensor) {
  void* p = lite::allocate_aligned(tensor->bytes(), false);
  if (p == nullptr) return Status::kOutOfMemory;
  std::memset(p, 0xA5, tensor->bytes());
  tensor->data = p;
  stats_->live.push_back(p);
  ++stats_->allocations;
  return Status::kOk;
}

void TestBackend::release(lite::TensorRef* tensor) {
  auto it = std::find(stats_->live.begin(), stats_->live.end(), tensor->data);
  if (it != stats_->live.end()) stats_->live.erase(it);  // else: a double free, which the tests catch
  std::free(tensor->data);
  tensor->data = nullptr;
}

Status TestBackend::copy_from_host(const void* host, lite::TensorRef* tensor) {
  ++stats_->uploads;
  stats_->bytes_copied += tensor->bytes();
  if (tensor->bytes() > 0) std::memcpy(tensor->data, host, tensor->bytes());
  return Status::kOk;
}

Status TestBackend::copy_to_host(const lite::TensorRef& tensor, void* host) {
  if (stats_->fail_downloads) return Status::kInternal;
  ++stats_->downloads;
  stats_->bytes_copied += tensor.bytes();
  if (tensor.bytes() > 0) std::memcpy(host, tensor.data, tensor.bytes());
  return Status::kOk;
}

}  // namespace lite_test
