// The op registry and the process-wide table of builtin ops (op_api.h).
#include "op_api.h"

namespace lite {

void OpRegistry::add(lite_fb::OpCode opcode, const OpKernel& kernel) {
  int code = static_cast<int>(opcode);
  if (code < 0 || code >= kMaxOpCodes || kernel.prepare == nullptr || kernel.eval == nullptr) return;
  kernels_[code] = kernel;
  present_[code] = true;
}

const OpKernel* OpRegistry::find(lite_fb::OpCode opcode) const {
  int code = static_cast<int>(opcode);
  if (code < 0 || code >= kMaxOpCodes || !present_[code]) return nullptr;
  return &kernels_[code];
}

namespace {

OpRegistry* build_builtin_ops() {
  static OpRegistry registry;  // ~100 KB: static storage, never on a thread's stack
  register_elementwise_ops(registry);
  register_nn_ops(registry);
  register_tensor_ops(registry);
  return &registry;
}

}  // namespace

const OpRegistry& builtin_ops() {
  // Thread-safe one-time initialization (C++11 magic statics); read-only afterwards.
  static const OpRegistry* registry = build_builtin_ops();
  return *registry;
}

}  // namespace lite
