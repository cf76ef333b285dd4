// The seam between the interpreter and the hardware that runs ops. A backend says which ops it
// takes (per op, dtypes and shapes), gives the kernels that prepare and run them, and owns the
// memory of the tensors those ops produce. The CPU backend (cpu_backend.h) takes every op of the
// model's registry and works in host memory, the interpreter's arena. Other backends (OpenCL
// next) take what they can: the interpreter places each op at prepare on the first backend of the
// caller's preference order that accepts it (the CPU last, taking the rest) and copies tensors
// across the borders between backends. docs/ARCHITECTURE.md, "Backends", has the whole picture.
#pragma once

#include "op_api.h"

namespace lite {

class Backend {
 public:
  virtual ~Backend() = default;

  // Short lowercase name shown by the C API and tools ("cpu", "opencl").
  virtual const char* name() const = 0;

  // Capability query, once per op at every prepare: the kernel that runs this op here, or nullptr
  // when this backend does not take it (op code, options, dtypes, shapes). Called after the op's
  // shape semantics (the CPU kernel's prepare) computed every output's dtype and shape; `ctx`'s
  // tensors are host views, with data for constants and prepare-time values only.
  //
  // The kernel's prepare then sees this backend's views of the tensors, with ctx.backend == this:
  //   - an input whose value_known is set (a weight, a prepare-time value) is the host tensor, data
  //     valid at prepare and eval: convert it into the op's state there (e.g. a weight image);
  //   - every other input and output has data = this backend's handle (allocate below), null
  //     during prepare; outputs already carry their dtype and shape, which prepare must keep;
  //   - returning Status::kUnsupported declines the op without an error (placement moves on);
  //   - scratch requested in prepare is host memory, like the CPU's; state is freed by free_state.
  // OpKernel::output_aliases_input0 and absorb_producer are honoured on the CPU only.
  virtual const OpKernel* kernel_for(const OpContext& ctx) = 0;

  // Memory for one tensor on this backend: the output of an op placed here, or the mirror of a
  // tensor produced elsewhere and read here. Sets tensor->data to the backend's handle (a device
  // pointer, a cl_mem...) for tensor->dtype and tensor->shape in the layout the backend chooses.
  // The interpreter releases every such tensor before a re-prepare and before the backend is
  // destroyed.
  virtual Status allocate(TensorRef* tensor) = 0;
  virtual void release(TensorRef* tensor) = 0;

  // Border copies between the host layout (dense, row-major in the tensor's shape and dtype, as
  // every CPU op reads it) and this backend's memory, converting layout on the way. copy_to_host
  // returns when the host bytes are valid (a GPU backend waits for its queue there).
  virtual Status copy_from_host(const void* host, TensorRef* tensor) = 0;
  virtual Status copy_to_host(const TensorRef& tensor, void* host) = 0;
};

}  // namespace lite
