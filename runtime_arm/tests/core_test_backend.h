// A second backend for the core tests, so the backend seam is exercised for real: it takes the ops
// its claim function accepts (by op code, dtypes, shapes) and runs them with the registry's own CPU
// kernels, but on its own memory (one heap block per tensor, filled with 0xA5 so a missing copy
// shows), and it counts every allocation and copy in a Stats record the test keeps.
#pragma once

#include <cstddef>
#include <vector>

#include "backend.h"

namespace lite_test {

struct BackendStats {
  int uploads = 0;    // copy_from_host calls
  int downloads = 0;  // copy_to_host calls
  size_t bytes_copied = 0;
  int allocations = 0;
  std::vector<void*> live;     // blocks allocated and not yet released
  bool fail_downloads = false;  // copy_to_host then fails (error path tests)
  bool owns(const void* p) const;
};

class TestBackend final : public lite::Backend {
 public:
  // How the backend answers the capability query for an op (ctx holds host views, shapes known).
  enum class Claim { kNo, kYes, kDeclineAtPrepare, kFailAtPrepare };
  using ClaimFn = Claim (*)(const lite::OpContext& ctx);

  TestBackend(const lite::OpRegistry& registry, ClaimFn claim, BackendStats* stats, const char* name = "test")
      : registry_(registry), claim_(claim), stats_(stats), name_(name) {}

  const char* name() const override { return name_; }
  const lite::OpKernel* kernel_for(const lite::OpContext& ctx) override;
  lite::Status allocate(lite::TensorRef* tensor) override;
  void release(lite::TensorRef* tensor) override;
  lite::Status copy_from_host(const void* host, lite::TensorRef* tensor) override;
  lite::Status copy_to_host(const lite::TensorRef& tensor, void* host) override;

 private:
  const lite::OpRegistry& registry_;
  ClaimFn claim_;
  BackendStats* stats_;
  const char* name_;
  lite::OpKernel declining_ = {};
  lite::OpKernel failing_ = {};
};

}  // namespace lite_test
