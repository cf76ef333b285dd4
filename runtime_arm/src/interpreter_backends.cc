// The interpreter's side of the backend seam (backend.h): placing each op at prepare, the memory of
// tensors on non-CPU backends, and the copies at the borders between backends.
//
// Borders go through the host: a tensor written on backend B and read elsewhere gets a host copy
// (downloaded right after its producer) and, on each other non-CPU backend C that reads it, a
// mirror (uploaded from the host copy right after). Graph inputs are uploaded at the start of
// every invoke (the caller may write them through a pointer at any time); graph outputs always
// have a host copy. Constants and prepare-time values are never copied: the backend's kernel reads
// them on the host at prepare (backend.h).
#include <cstdio>

#include "interpreter.h"

namespace lite {

namespace {

const char* node_name(const lite_fb::Operator* op) { return op->name() != nullptr ? op->name()->c_str() : ""; }

bool same_shape(const Shape& a, const Shape& b) {
  if (a.rank != b.rank) return false;
  for (int d = 0; d < a.rank; ++d)
    if (a.dims[d] != b.dims[d]) return false;
  return true;
}

}  // namespace

void Interpreter::use_cpu_views(Node& node) {
  if (node.op->inputs() != nullptr) {
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      int32_t index = node.op->inputs()->Get(static_cast<flatbuffers::uoffset_t>(i));
      node.inputs[i] = index >= 0 ? &tensors_[static_cast<size_t>(index)].ref : nullptr;
    }
  }
  for (size_t o = 0; o < node.outputs.size(); ++o) {
    int32_t index = node.op->outputs()->Get(static_cast<flatbuffers::uoffset_t>(o));
    node.outputs[o] = &tensors_[static_cast<size_t>(index)].ref;
  }
  node.kernel = node.cpu_kernel;
  node.backend = 0;
  node.ctx.backend = backends_[0].backend.get();
}

// Offers op k (prepared for the CPU, so its output dtypes and shapes are known) to each non-CPU
// backend in order of preference; the first whose kernel prepares it takes it, else it stays.
Status Interpreter::place_node(int k) {
  Node& node = nodes_[static_cast<size_t>(k)];
  // A variable changes between invokes with no op producing it, so no upload is ever planned for it:
  // its readers stay on the CPU.
  if (node.op->inputs() != nullptr) {
    for (int32_t index : *node.op->inputs())
      if (index >= 0 && tensors_[static_cast<size_t>(index)].is_variable) return Status::kOk;
  }
  for (size_t b = 1; b < backends_.size(); ++b) {
    PlacedBackend& placed = backends_[b];
    const OpKernel* kernel = placed.backend->kernel_for(node.ctx);
    if (kernel == nullptr || kernel->prepare == nullptr || kernel->eval == nullptr) continue;

    // This backend's views: known values stay on the host, the rest get this backend's handles.
    auto view = [&](int32_t index) -> TensorRef* {
      const TensorRef& host = tensors_[static_cast<size_t>(index)].ref;
      if (host.value_known) return &tensors_[static_cast<size_t>(index)].ref;
      TensorRef& v = placed.views[static_cast<size_t>(index)];
      v = host;
      v.data = nullptr;
      v.is_constant = false;
      return &v;
    };
    if (node.op->inputs() != nullptr) {
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        int32_t index = node.op->inputs()->Get(static_cast<flatbuffers::uoffset_t>(i));
        node.inputs[i] = index >= 0 ? view(index) : nullptr;
      }
    }
    for (size_t o = 0; o < node.outputs.size(); ++o)
      node.outputs[o] = view(node.op->outputs()->Get(static_cast<flatbuffers::uoffset_t>(o)));

    void* cpu_state = node.ctx.state;
    const size_t cpu_scratch = node.ctx.scratch_bytes_requested;
    node.ctx.state = nullptr;
    node.ctx.scratch_bytes_requested = 0;
    node.ctx.backend = placed.backend.get();
    error_.clear();
    Status s = kernel->prepare(&node.ctx);
    for (size_t o = 0; s == Status::kOk && o < node.outputs.size(); ++o) {
      int32_t index = node.op->outputs()->Get(static_cast<flatbuffers::uoffset_t>(o));
      const TensorRef& host = tensors_[static_cast<size_t>(index)].ref;
      if (node.outputs[o]->dtype != host.dtype || !same_shape(node.outputs[o]->shape, host.shape))
        s = error_.set(Status::kInternal, "%s '%s': backend '%s' changed the dtype or shape of output %zu '%s'",
                       opcode_name(node.op->opcode()), node_name(node.op), placed.backend->name(), o, host.name);
    }
    if (s != Status::kOk) {
      if (node.ctx.state != nullptr && kernel->free_state != nullptr) kernel->free_state(node.ctx.state);
      node.ctx.state = cpu_state;
      node.ctx.scratch_bytes_requested = cpu_scratch;
      use_cpu_views(node);
      if (s == Status::kUnsupported) {
        error_.clear();
        continue;
      }
      char phase[96];
      std::snprintf(phase, sizeof(phase), "prepare on backend '%s'", placed.backend->name());
      return op_error(node, s, phase);
    }
    if (cpu_state != nullptr && node.cpu_kernel->free_state != nullptr) node.cpu_kernel->free_state(cpu_state);
    node.kernel = kernel;
    node.backend = static_cast<int>(b);
    return Status::kOk;
  }
  return Status::kOk;
}

// Each activation's home is the backend of the op that writes it at invoke. One on a non-CPU
// backend needs a host copy when it is a graph output or an op elsewhere reads it (through the host).
void Interpreter::mark_homes(std::vector<char>* host_needed) {
  mixed_ = false;
  for (const Node& node : nodes_) {
    if (node.backend == 0) continue;
    mixed_ = true;
    for (int32_t index : *node.op->outputs()) tensors_[static_cast<size_t>(index)].home = node.backend;
  }
  if (!mixed_) return;
  for (int index : outputs_)
    if (tensors_[static_cast<size_t>(index)].home != 0) (*host_needed)[static_cast<size_t>(index)] = 1;
  for (const Node& node : nodes_) {
    if (node.done_at_prepare || node.op->inputs() == nullptr) continue;
    for (int32_t index : *node.op->inputs()) {
      if (index < 0) continue;
      const int home = tensors_[static_cast<size_t>(index)].home;
      if (home != 0 && home != node.backend) (*host_needed)[static_cast<size_t>(index)] = 1;
    }
  }
}

// Every non-CPU view an op uses gets its backend's memory: outputs of ops placed there and mirrors
// of what they read from elsewhere.
Status Interpreter::allocate_backend_memory() {
  for (Node& node : nodes_) {
    if (node.backend == 0) continue;
    Backend* backend = backends_[static_cast<size_t>(node.backend)].backend.get();
    for (int side = 0; side < 2; ++side) {
      const std::vector<TensorRef*>& views = side == 0 ? node.inputs : node.outputs;
      const flatbuffers::Vector<int32_t>* indices = side == 0 ? node.op->inputs() : node.op->outputs();
      for (size_t i = 0; i < views.size(); ++i) {
        TensorRef* v = views[i];
        if (v == nullptr || v->data != nullptr) continue;
        if (v == &tensors_[static_cast<size_t>(indices->Get(static_cast<flatbuffers::uoffset_t>(i)))].ref) continue;
        Status s = backend->allocate(v);
        if (s != Status::kOk) {
          v->data = nullptr;
          return error_.set(s, "backend '%s': cannot allocate %zu bytes for tensor '%s'", backend->name(), v->bytes(),
                            v->name);
        }
      }
    }
  }
  return Status::kOk;
}

void Interpreter::plan_border_copies(const std::vector<char>& host_needed) {
  border_copies_.clear();
  auto add_uploads = [&](int32_t index) {
    TensorSlot& slot = tensors_[static_cast<size_t>(index)];
    for (size_t b = 1; b < backends_.size(); ++b) {
      TensorRef& v = backends_[b].views[static_cast<size_t>(index)];
      if (static_cast<int>(b) != slot.home && v.data != nullptr)
        border_copies_.push_back({backends_[b].backend.get(), &v, &slot.ref, false});
    }
  };
  for (int index : inputs_) add_uploads(index);
  input_copies_end_ = static_cast<int>(border_copies_.size());
  for (Node& node : nodes_) {
    node.copies_begin = static_cast<int>(border_copies_.size());
    if (!node.done_at_prepare && !node.absorbed) {
      for (int32_t index : *node.op->outputs()) {
        TensorSlot& slot = tensors_[static_cast<size_t>(index)];
        if (slot.home != 0 && host_needed[static_cast<size_t>(index)]) {
          PlacedBackend& home = backends_[static_cast<size_t>(slot.home)];
          border_copies_.push_back({home.backend.get(), &home.views[static_cast<size_t>(index)], &slot.ref, true});
        }
        add_uploads(index);
      }
    }
    node.copies_end = static_cast<int>(border_copies_.size());
  }
}

void Interpreter::release_backend_memory() {
  for (size_t b = 1; b < backends_.size(); ++b) {
    for (TensorRef& v : backends_[b].views) {
      if (v.data != nullptr) backends_[b].backend->release(&v);
      v.data = nullptr;
    }
  }
  mixed_ = false;
  border_copies_.clear();
  input_copies_end_ = 0;
  for (Node& node : nodes_) node.copies_begin = node.copies_end = 0;
}

Status Interpreter::run_copies(int begin, int end) {
  for (int i = begin; i < end; ++i) {
    const BorderCopy& c = border_copies_[static_cast<size_t>(i)];
    Status s = c.to_host ? c.backend->copy_to_host(*c.device, c.host->data)
                         : c.backend->copy_from_host(c.host->data, c.device);
    if (s != Status::kOk)
      return error_.set(s, "backend '%s': copying tensor '%s' %s the host failed (status %d)", c.backend->name(),
                        c.host->name, c.to_host ? "to" : "from", static_cast<int>(s));
  }
  return Status::kOk;
}

// invoke when some op runs off the CPU: the same op loop, with each op's border copies after it.
Status Interpreter::run_ops_across_backends() {
  Status s = run_copies(0, input_copies_end_);
  if (s != Status::kOk) return s;
  for (size_t k = 0; k < static_cast<size_t>(planned_end_); ++k) {
    Node& node = nodes_[k];
    if (node.done_at_prepare || node.absorbed) continue;
    error_.clear();
    s = profiling_ ? eval_profiled(k) : node.kernel->eval(&node.ctx);
    if (s != Status::kOk) {
      char phase[96];
      std::snprintf(phase, sizeof(phase), "eval on backend '%s'",
                    backends_[static_cast<size_t>(node.backend)].backend->name());
      return op_error(node, s, phase);
    }
    s = run_copies(node.copies_begin, node.copies_end);
    if (s != Status::kOk) return s;
  }
  return Status::kOk;
}

}  // namespace lite
