// The CPU backend: every op of the model's registry (runtime_arm/src/ops/, kernels_neon/), in host
// memory. The interpreter keeps CPU tensors in its arena (planned by lifetime, with aliases and
// absorbed producers) and calls the registry's kernels directly at invoke, so the CPU path costs
// nothing for the seam; allocate and the copies below are plain host memory for callers that treat
// every backend alike.
#pragma once

#include "backend.h"

namespace lite {

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const OpRegistry& registry) : registry_(registry) {}

  const char* name() const override { return "cpu"; }
  const OpKernel* kernel_for(const OpContext& ctx) override { return registry_.find(ctx.op->opcode()); }
  Status allocate(TensorRef* tensor) override;
  void release(TensorRef* tensor) override;
  Status copy_from_host(const void* host, TensorRef* tensor) override;
  Status copy_to_host(const TensorRef& tensor, void* host) override;

 private:
  const OpRegistry& registry_;
};

}  // namespace lite
