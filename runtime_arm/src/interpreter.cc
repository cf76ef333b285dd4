#include "interpreter.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>

#include "arena_planner.h"
#include "checked_math.h"
#include "cpu_affinity.h"
#include "cpu_backend.h"
#ifndef LITE_NO_SEQUENCES
#include "sequence_value.h"
#endif

namespace lite {

std::string format_shape(const Shape& s) {
  std::string out = "[";
  for (int i = 0; i < s.rank; ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(s.dims[i]);
  }
  return out + "]";
}

namespace {

const char* node_name(const lite_fb::Operator* op) { return op->name() != nullptr ? op->name()->c_str() : ""; }

bool needs_only_shapes(lite_fb::OpCode opcode) {
  return opcode == lite_fb::OpCode::SHAPE || opcode == lite_fb::OpCode::SIZE;
}

// A DEQUANTIZE of a constant is a weight stored as int8 (weight-only int8): it is decoded once at
// prepare whatever its size (at most 4x the file's own bytes), so its reader sees a constant weight
// and keeps its fast algorithm.
bool evaluated_at_prepare_at_any_size(lite_fb::OpCode opcode) { return opcode == lite_fb::OpCode::DEQUANTIZE; }

// Byte size of a tensor whose shape has been validated; false when it exceeds `limit`.
bool tensor_bytes(const TensorRef& t, size_t limit, size_t* bytes) {
  size_t count;
  if (!checked_num_elements(t.shape.dims, t.shape.rank, limit, &count)) return false;
  return checked_mul(count, dtype_size(t.dtype), bytes) && *bytes <= limit;
}

}  // namespace

Status Interpreter::create(const Model* model, int num_threads, const std::vector<int>& cpus,
                           std::vector<std::unique_ptr<Backend>> backends, std::unique_ptr<Interpreter>* out,
                           ErrorSink* error) {
  std::unique_ptr<Interpreter> it(new (std::nothrow) Interpreter());
  if (it == nullptr) return error->set(Status::kOutOfMemory, "out of memory");
  it->model_ = model;
  it->backends_.resize(1 + backends.size());
  it->backends_[0].backend.reset(new (std::nothrow) CpuBackend(model->registry()));
  if (it->backends_[0].backend == nullptr) return error->set(Status::kOutOfMemory, "out of memory");
  for (size_t b = 0; b < backends.size(); ++b) {
    if (backends[b] == nullptr) return error->set(Status::kInvalidArgument, "backend %zu is null", b);
    it->backends_[b + 1].backend = std::move(backends[b]);
    it->backends_[b + 1].views.resize(static_cast<size_t>(model->num_tensors()));
  }
  it->num_threads_ = num_threads < 1 ? 1 : num_threads;
  it->cpus_ = cpus;
  if (it->num_threads_ > 1) {
    it->pool_ = ThreadPool::create(it->num_threads_, cpus);
    if (it->pool_ == nullptr) return error->set(Status::kOutOfMemory, "cannot start %d threads", it->num_threads_);
  }
  it->init_graph(0, it->pool_.get());
  *out = std::move(it);
  return Status::kOk;
}

void Interpreter::set_packed_weight_ratio(float ratio) {
  packed_weight_ratio_ = ratio;
  // ratio x the weight bytes for all the interpreter commits (MemoryBudget), no bound at INFINITY
  const double bound = static_cast<double>(ratio) * static_cast<double>(constant_bytes_);
  const size_t most = static_cast<size_t>(-1);
  memory_.set_transformed_limit(std::isinf(ratio) ? most
                                : !(bound > 0.0) ? 0
                                : (bound >= static_cast<double>(most) ? most - 1 : static_cast<size_t>(bound)));
  needs_prepare_ = true;
}

// A body's interpreter: the parent's threads (its pool, borrowed), the CPU backend, and the parent's
// memory bound as its own bound (the parent's control-flow op checks what it keeps across iterations).
Status Interpreter::create_child(int subgraph, std::unique_ptr<Interpreter>* out) {
  std::unique_ptr<Interpreter> it(new (std::nothrow) Interpreter());
  if (it == nullptr) return error_.set(Status::kOutOfMemory, "out of memory");
  it->model_ = model_;
  it->backends_.resize(1);
  it->backends_[0].backend.reset(new (std::nothrow) CpuBackend(model_->registry()));
  if (it->backends_[0].backend == nullptr) return error_.set(Status::kOutOfMemory, "out of memory");
  it->num_threads_ = num_threads_;
  it->memory_.set_limit(memory_.limit());
  it->init_graph(subgraph, pool_view_);
  it->set_packed_weight_ratio(packed_weight_ratio_);
  *out = std::move(it);
  return Status::kOk;
}

void Interpreter::init_graph(int subgraph, ThreadPool* pool) {
  const Model* model = model_;
  Interpreter* it = this;
  it->subgraph_ = subgraph;
  it->pool_view_ = pool;
  const lite_fb::Graph* g = model->graph(subgraph);
  it->graph_ = g;
  int n = model->num_tensors(subgraph);
  it->tensors_.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const lite_fb::Tensor* t = g->tensors()->Get(static_cast<flatbuffers::uoffset_t>(i));
    TensorSlot& slot = it->tensors_[static_cast<size_t>(i)];
    slot.ref.name = t->name() != nullptr ? t->name()->c_str() : "";
    slot.ref.dtype = t->dtype();
    slot.ref.kind = t->kind();
    slot.ref.quantization = t->quantization();
    if (t->shape() != nullptr) {
      slot.ref.shape.rank = static_cast<int>(t->shape()->size());
      for (int d = 0; d < slot.ref.shape.rank; ++d)
        slot.ref.shape.dims[d] = t->shape()->Get(static_cast<flatbuffers::uoffset_t>(d));
    }
    const void* constant = model->constant_data(subgraph, i);
    if (t->variable()) {
      slot.is_variable = true;  // its buffer is the initial value, copied at allocate (bind_variables)
    } else if (constant != nullptr) {
      slot.ref.data = const_cast<void*>(constant);  // ops only read inputs
      slot.ref.is_constant = true;
      it->constant_bytes_ += slot.ref.bytes();
      slot.ref.value_known = true;
      slot.storage = Storage::kConstant;
    }
  }
  if (g->inputs() != nullptr) {
    for (int32_t index : *g->inputs()) {
      it->inputs_.push_back(index);
      it->input_shapes_.push_back(it->tensors_[static_cast<size_t>(index)].ref.shape);
      it->tensors_[static_cast<size_t>(index)].is_graph_input = true;
    }
  }
  it->input_values_.resize(it->inputs_.size());
  if (g->value_inputs() != nullptr) {
    for (int32_t position : *g->value_inputs()) it->input_values_[static_cast<size_t>(position)].is_value = true;
  }
  for (int32_t index : *g->outputs()) {
    it->outputs_.push_back(index);
    it->tensors_[static_cast<size_t>(index)].is_graph_output = true;
  }

  int num_ops = g->operators() != nullptr ? static_cast<int>(g->operators()->size()) : 0;
  it->nodes_.resize(static_cast<size_t>(num_ops));
  it->planned_end_ = num_ops;
  for (int k = 0; k < num_ops; ++k) {
    Node& node = it->nodes_[static_cast<size_t>(k)];
    node.op = g->operators()->Get(static_cast<flatbuffers::uoffset_t>(k));
    node.cpu_kernel = model->registry().find(node.op->opcode());  // non-null: the verifier checked
    node.kernel = node.cpu_kernel;
    if (node.op->inputs() != nullptr) {
      for (int32_t index : *node.op->inputs())
        node.inputs.push_back(index >= 0 ? &it->tensors_[static_cast<size_t>(index)].ref : nullptr);
    }
    for (int32_t index : *node.op->outputs()) {
      node.outputs.push_back(&it->tensors_[static_cast<size_t>(index)].ref);
      it->tensors_[static_cast<size_t>(index)].producer = k;
    }
    node.ctx.op = node.op;
    node.ctx.inputs = node.inputs.empty() ? nullptr : node.inputs.data();
    node.ctx.num_inputs = static_cast<int>(node.inputs.size());
    node.ctx.outputs = node.outputs.data();
    node.ctx.num_outputs = static_cast<int>(node.outputs.size());
    node.ctx.num_threads = it->num_threads_;
    node.ctx.pool = pool;
    node.ctx.backend = it->backends_[0].backend.get();
    node.ctx.memory = &it->memory_;
    node.ctx.error_sink = &it->error_;
    node.ctx.report = &ErrorSink::report;
    node.ctx.interpreter = it;
  }
}

Interpreter::~Interpreter() {
  free_op_states();
  release_backend_memory();
}

void Interpreter::free_op_states(bool keep_constant) {
  // (kept: states derived from constants alone, handed back to the same CPU kernel's prepare, which
  // checks them and counts their memory again; not across backends, where placement may change)
  keep_constant = keep_constant && backends_.size() == 1;
  for (Node& node : nodes_) {
    if (keep_constant && node.kernel != nullptr && node.kernel->keeps_constant_state) continue;
    if (node.ctx.state != nullptr && node.kernel->free_state != nullptr) node.kernel->free_state(node.ctx.state);
    node.ctx.state = nullptr;
  }
}

int Interpreter::declared_input_rank(int i) const {
  const int index = inputs_[static_cast<size_t>(i)];
  const auto* declared = graph_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index))->shape();
  if (declared != nullptr) return static_cast<int>(declared->size());
  return subgraph_ > 0 ? -1 : 0;  // main graph: none means a scalar (the C API's contract)
}

Status Interpreter::resize_input(int i, const int64_t* dims, int rank) {
  if (i < 0 || i >= num_inputs())
    return error_.set(Status::kInvalidArgument, "input index %d out of range (%d inputs)", i, num_inputs());
  if (rank < 0 || rank > kMaxRank || (rank > 0 && dims == nullptr))
    return error_.set(Status::kInvalidArgument, "resize of input %d: rank %d (0..%d with non-NULL dims)", i, rank,
                      kMaxRank);
  Shape shape;
  shape.rank = rank;
  for (int d = 0; d < rank; ++d) {
    if (dims[d] < 0)
      return error_.set(Status::kInvalidArgument, "resize of input %d: dim %d is %lld (must be >= 0)", i, d,
                        static_cast<long long>(dims[d]));
    shape.dims[d] = dims[d];
  }
  // The caller's shape against the model's declaration: a wrong rank or static dim is the caller's
  // bug, reported here rather than as some op's failure later (which would blame the model).
  const int index = inputs_[static_cast<size_t>(i)];
  const auto* declared = graph_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index))->shape();
  const char* name = tensors_[static_cast<size_t>(index)].ref.name;
  // No shape in the file: a scalar in the main graph; in a control-flow body the converter did not
  // know the rank (an input captured from a value whose rank depends on a branch taken at run time),
  // so any rank is accepted there.
  const int known_rank = declared_input_rank(i);
  const int declared_rank = known_rank >= 0 ? known_rank : rank;
  if (declared_rank != rank)
    return error_.set(Status::kInvalidArgument, "input '%s' has rank %d in the model, got %d (shape %s)", name,
                      declared_rank, rank, format_shape(shape).c_str());
  if (declared != nullptr) {
    for (int d = 0; d < rank; ++d) {
      const int64_t want = declared->Get(static_cast<flatbuffers::uoffset_t>(d));
      if (want >= 0 && want != shape.dims[d])
        return error_.set(Status::kInvalidArgument,
                          "input '%s' has the static dim %d = %lld in the model, got %lld (shape %s; only dynamic "
                          "dims can be resized)",
                          name, d, static_cast<long long>(want), static_cast<long long>(shape.dims[d]),
                          format_shape(shape).c_str());
    }
  }
  Shape& current = input_shapes_[static_cast<size_t>(i)];
  bool same = current.rank == rank && std::equal(shape.dims, shape.dims + rank, current.dims);
  if (!same) {
    current = shape;
    needs_prepare_ = true;
  }
  return Status::kOk;
}

void Interpreter::reset_tensors() {
  const lite_fb::Graph* g = graph_;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    TensorSlot& slot = tensors_[i];
    if (slot.ref.is_constant) continue;
    const lite_fb::Tensor* t = g->tensors()->Get(static_cast<flatbuffers::uoffset_t>(i));
    slot.ref.dtype = t->dtype();
    slot.ref.shape = Shape();
    if (t->shape() != nullptr) {
      slot.ref.shape.rank = static_cast<int>(t->shape()->size());
      for (int d = 0; d < slot.ref.shape.rank; ++d)
        slot.ref.shape.dims[d] = t->shape()->Get(static_cast<flatbuffers::uoffset_t>(d));
    }
    slot.ref.data = nullptr;
    slot.ref.value_known = false;
    slot.ref.value_version = 0;
    slot.storage = Storage::kNone;
    slot.arena_offset = -1;
    slot.prepared.reset();
    slot.home = 0;
  }
  release_backend_memory();
  arena_.reset();
  scratch_.reset();
  arena_bytes_ = 0;
  memory_.reset();
}

// A tensor larger than the whole memory bound is refused by name before anything is allocated for
// it (a tiny hostile file declaring a 2 GiB activation is stopped here).
Status Interpreter::check_tensor_fits(const TensorRef& t, size_t bytes, const char* what) {
  if (bytes <= memory_.limit()) return Status::kOk;
  memory_bytes_ = bytes;
  return error_.set(Status::kOutOfMemory,
                    "%s tensor '%s' of shape %s %s needs %zu bytes, over max_memory_bytes (%zu); raise "
                    "lite_interpreter_options.max_memory_bytes if the model is trusted",
                    what, t.name, format_shape(t.shape).c_str(), dtype_name(t.dtype), bytes, memory_.limit());
}

Status Interpreter::op_error(const Node& node, Status status, const char* phase) {
  if (error_.message().empty()) {
    error_.set(status, "%s '%s': %s failed (status %d)", opcode_name(node.op->opcode()), node_name(node.op), phase,
               static_cast<int>(status));
  } else {
    // fail() wrote the message; keep it, record the status.
    std::string message = error_.message();
    error_.set(status, "%s", message.c_str());
  }
  return status;
}

// The converter declares every tensor's dtype and shape; a computed output that disagrees means
// the converter and an op disagree on semantics, so it is refused before anything runs.
Status Interpreter::check_declared(const Node& node, int output) {
  int index = node.op->outputs()->Get(static_cast<flatbuffers::uoffset_t>(output));
  const lite_fb::Tensor* declared = graph_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index));
  const TensorRef& t = tensors_[static_cast<size_t>(index)].ref;
  const char* op = opcode_name(node.op->opcode());
  if (t.dtype != declared->dtype())
    return error_.set(Status::kInvalidModel, "%s '%s': output %d '%s' is computed as %s, the model declares %s", op,
                      node_name(node.op), output, t.name, dtype_name(t.dtype), dtype_name(declared->dtype()));
  if (!inputs_as_declared_ || declared->shape() == nullptr) return Status::kOk;
  bool match = static_cast<int>(declared->shape()->size()) == t.shape.rank;
  for (int d = 0; match && d < t.shape.rank; ++d) {
    int64_t want = declared->shape()->Get(static_cast<flatbuffers::uoffset_t>(d));
    match = want == -1 || want == t.shape.dims[d];
  }
  if (match) return Status::kOk;
  Shape want;
  want.rank = std::min(static_cast<int>(declared->shape()->size()), kMaxRank);
  for (int d = 0; d < want.rank; ++d) want.dims[d] = declared->shape()->Get(static_cast<flatbuffers::uoffset_t>(d));
  return error_.set(Status::kShapeError, "%s '%s': output %d '%s' is computed with shape %s, the model declares %s",
                    op, node_name(node.op), output, t.name, format_shape(t.shape).c_str(),
                    format_shape(want).c_str());
}

Status Interpreter::prepare_node(int k, bool eager) {
  Node& node = nodes_[static_cast<size_t>(k)];
  // A dynamic-output op prepared again at invoke keeps its state (its bodies' interpreters, which
  // re-plan themselves only when the shapes fed to them change).
  const bool keep_state =
      node.backend == 0 && ((eager && node.ctx.outputs_dynamic) || node.kernel->keeps_constant_state);
  if (!keep_state && node.ctx.state != nullptr && node.kernel->free_state != nullptr)
    node.kernel->free_state(node.ctx.state);
  if (!keep_state) node.ctx.state = nullptr;
  node.ctx.scratch_bytes_requested = 0;
  node.ctx.scratch = nullptr;
  node.ctx.kept_offer_bytes = 0;
  node.done_at_prepare = false;
  node.absorbed = false;
  node.ctx.outputs_dynamic = false;
  if (node.backend != 0) use_cpu_views(node);
  error_.clear();
  Status s = node.kernel->prepare(&node.ctx);
  if (s != Status::kOk) return op_error(node, s, "prepare");
  if (node.ctx.outputs_dynamic) return Status::kOk;  // shapes known at eval (run_eager checks them)

  for (int o = 0; o < node.ctx.num_outputs; ++o) {
    TensorRef* t = node.outputs[static_cast<size_t>(o)];
    const char* op = opcode_name(node.op->opcode());
    if (dtype_size(t->dtype) == 0)
      return error_.set(Status::kInternal, "%s '%s': output %d '%s' has an invalid dtype %d after prepare", op,
                        node_name(node.op), o, t->name, static_cast<int>(t->dtype));
    if (t->shape.rank < 0 || t->shape.rank > kMaxRank)
      return error_.set(Status::kInternal, "%s '%s': output %d '%s' has rank %d after prepare", op,
                        node_name(node.op), o, t->name, t->shape.rank);
    for (int d = 0; d < t->shape.rank; ++d) {
      if (t->shape.dims[d] < 0)
        return error_.set(Status::kShapeError, "%s '%s': output %d '%s' has shape %s after prepare", op,
                          node_name(node.op), o, t->name, format_shape(t->shape).c_str());
    }
    size_t bytes;
    if (!tensor_bytes(*t, kMaxTensorBytes, &bytes))
      return error_.set(Status::kShapeError, "%s '%s': output %d '%s' of shape %s %s exceeds 2 GiB", op,
                        node_name(node.op), o, t->name, format_shape(t->shape).c_str(), dtype_name(t->dtype));
    Status s_declared = check_declared(node, o);
    if (s_declared != Status::kOk) return s_declared;
    std::string what = std::string(op) + " '" + node_name(node.op) + "': output";
    Status s_fits = check_tensor_fits(*t, bytes, what.c_str());
    if (s_fits != Status::kOk) return s_fits;
  }

  bool inputs_known = true;
  if (!needs_only_shapes(node.op->opcode())) {
    for (TensorRef* in : node.inputs)
      if (in != nullptr && !in->value_known) inputs_known = false;
  }
  int64_t output_elements = 0;
  for (TensorRef* out : node.outputs) output_elements += out->shape.num_elements();  // each < 2^31
  if (inputs_known && (output_elements <= kMaxPrepareTimeElements ||
                       evaluated_at_prepare_at_any_size(node.op->opcode())))
    return evaluate_at_prepare(k);
  if (backends_.size() > 1 && !eager) {
    s = place_node(k);
    if (s != Status::kOk) return s;
  }
  if (node.ctx.scratch_bytes_requested > kMaxTensorBytes)
    return error_.set(Status::kShapeError, "%s '%s': scratch request of %zu bytes exceeds 2 GiB",
                      opcode_name(node.op->opcode()), node_name(node.op), node.ctx.scratch_bytes_requested);
  return Status::kOk;
}

Status Interpreter::evaluate_at_prepare(int k) {
  Node& node = nodes_[static_cast<size_t>(k)];
  for (size_t o = 0; o < node.outputs.size(); ++o) {
    int index = node.op->outputs()->Get(static_cast<flatbuffers::uoffset_t>(o));
    TensorSlot& slot = tensors_[static_cast<size_t>(index)];
    if (!memory_.reserve(slot.ref.bytes())) {
      memory_bytes_ = memory_.used() + slot.ref.bytes();
      return error_.set(Status::kOutOfMemory,
                        "%s '%s': the prepare-time value '%s' needs %zu bytes, over max_memory_bytes (%zu, of which "
                        "%zu already committed)",
                        opcode_name(node.op->opcode()), node_name(node.op), slot.ref.name, slot.ref.bytes(),
                        memory_.limit(), memory_.used());
    }
    if (!slot.prepared.allocate(slot.ref.bytes(), true))
      return error_.set(Status::kOutOfMemory, "out of memory for a prepare-time value of %zu bytes", slot.ref.bytes());
    slot.ref.data = slot.prepared.data();
    slot.storage = Storage::kPrepared;
  }
  AlignedBuffer scratch;
  if (node.ctx.scratch_bytes_requested > 0) {
    if (!memory_.fits(node.ctx.scratch_bytes_requested))
      return error_.set(Status::kOutOfMemory, "%s '%s': %zu bytes of scratch, over max_memory_bytes (%zu)",
                        opcode_name(node.op->opcode()), node_name(node.op), node.ctx.scratch_bytes_requested,
                        memory_.limit());
    if (node.ctx.scratch_bytes_requested > kMaxTensorBytes ||
        !scratch.allocate(node.ctx.scratch_bytes_requested, false))
      return error_.set(Status::kOutOfMemory, "%s '%s': cannot allocate %zu bytes of scratch",
                        opcode_name(node.op->opcode()), node_name(node.op), node.ctx.scratch_bytes_requested);
    node.ctx.scratch = scratch.data();
  }
  error_.clear();
  Status s = node.kernel->eval(&node.ctx);
  node.ctx.scratch = nullptr;
  if (s != Status::kOk) return op_error(node, s, "prepare-time eval");
  for (TensorRef* out : node.outputs) out->value_known = true;
  node.done_at_prepare = true;
  return Status::kOk;
}

// Offers each op whose kernel can absorb its producer (OpKernel::absorb_producer) the op right
// before it, when that op's single output is read by this op alone, as its input 0.
void Interpreter::absorb_producers() {
  std::vector<int> readers(tensors_.size(), 0);
  for (const Node& node : nodes_) {
    if (node.op->inputs() == nullptr) continue;
    for (int32_t index : *node.op->inputs())
      if (index >= 0) ++readers[static_cast<size_t>(index)];
  }
  for (size_t k = 1; k < static_cast<size_t>(planned_end_); ++k) {
    Node& consumer = nodes_[k];
    Node& producer = nodes_[k - 1];
    // (a producer that absorbed its own producer reads a tensor that no longer exists)
    if (consumer.kernel->absorb_producer == nullptr || consumer.backend != 0 || producer.backend != 0 ||
        consumer.done_at_prepare || producer.done_at_prepare ||
        (k >= 2 && nodes_[k - 2].absorbed) || producer.outputs.size() != 1 || consumer.op->inputs() == nullptr ||
        consumer.op->inputs()->size() == 0)
      continue;
    const int32_t tensor = producer.op->outputs()->Get(0);
    const TensorSlot& slot = tensors_[static_cast<size_t>(tensor)];
    if (consumer.op->inputs()->Get(0) != tensor || readers[static_cast<size_t>(tensor)] != 1 ||
        slot.is_graph_output || slot.storage != Storage::kNone)
      continue;
    producer.absorbed = consumer.kernel->absorb_producer(&consumer.ctx, &producer.ctx);
  }
}

Status Interpreter::plan_memory() {
  const int n = planned_end_;  // the eager tail's ops get their memory at invoke
  const int end = n + 1;  // step 0: graph inputs are set; step k+1: op k runs; `end`: outputs are read
  const size_t num = tensors_.size();
  // Which activations live on another backend, and which of those need a host copy too.
  std::vector<char> host_needed(num, 0);
  if (backends_.size() > 1) mark_homes(&host_needed);

  // Alias groups: group[t] is the tensor whose arena region t shares (itself if none).
  std::vector<int> group(num);
  for (size_t i = 0; i < num; ++i) group[i] = static_cast<int>(i);
  std::vector<char> in_arena(num, 0);
  std::vector<char> group_has_output(num, 0);
  for (size_t i = 0; i < num; ++i) group_has_output[i] = tensors_[i].is_graph_output ? 1 : 0;
  for (size_t i = 0; i < num; ++i) {
    const TensorSlot& slot = tensors_[i];
    if (slot.storage != Storage::kNone) continue;  // constants and prepare-time values
    bool produced_at_invoke = slot.producer >= 0 && slot.producer < n && !nodes_[static_cast<size_t>(slot.producer)].done_at_prepare &&
                              !nodes_[static_cast<size_t>(slot.producer)].absorbed;
    if (!slot.is_graph_input && !produced_at_invoke) continue;
    if (slot.home == 0 || host_needed[i]) {
      in_arena[i] = 1;
    } else {
      tensors_[i].storage = Storage::kBackend;
    }
  }
  for (int k = 0; k < n; ++k) {
    Node& node = nodes_[static_cast<size_t>(k)];
    if (node.done_at_prepare || node.backend != 0 || !node.kernel->output_aliases_input0 || node.inputs.empty() ||
        node.inputs[0] == nullptr)
      continue;
    int in = node.op->inputs()->Get(0);
    int out = node.op->outputs()->Get(0);
    TensorSlot& src = tensors_[static_cast<size_t>(in)];
    TensorSlot& dst = tensors_[static_cast<size_t>(out)];
    if (src.ref.bytes() != dst.ref.bytes()) continue;
    // A view of a variable would change when ASSIGN_VARIABLE writes it later in the same invoke.
    if (src.storage == Storage::kVariable) continue;
    if (src.storage == Storage::kConstant || src.storage == Storage::kPrepared) {
      // Use the known memory directly (never written: only this op could, and it skips).
      dst.storage = src.storage;
      dst.ref.data = src.ref.data;
      in_arena[static_cast<size_t>(out)] = 0;
      continue;
    }
    // A graph output sharing a graph input's memory (even through a chain of aliases) would
    // change when the caller sets the input: such outputs get their own memory (eval copies).
    size_t root = static_cast<size_t>(group[static_cast<size_t>(in)]);
    if (tensors_[root].is_graph_input && (group_has_output[root] || dst.is_graph_output)) continue;
    group[static_cast<size_t>(out)] = static_cast<int>(root);
    group_has_output[root] = group_has_output[root] || dst.is_graph_output;
  }

  // Lifetimes per group root.
  std::vector<int> first(num, end + 1), last(num, -1);
  std::vector<size_t> bytes(num, 0);
  auto touch = [&](size_t t, int step) {
    size_t root = static_cast<size_t>(group[t]);
    first[root] = std::min(first[root], step);
    last[root] = std::max(last[root], step);
  };
  for (size_t i = 0; i < num; ++i) {
    if (!in_arena[i]) continue;
    const TensorSlot& slot = tensors_[i];
    size_t root = static_cast<size_t>(group[i]);
    bytes[root] = std::max(bytes[root], slot.ref.bytes());
    // Graph inputs live for the whole run, so the caller's values survive repeated invokes.
    if (slot.is_graph_input) {
      touch(i, 0);
      touch(i, end);
    } else {
      touch(i, slot.producer + 1);
    }
    if (slot.is_graph_output) touch(i, end);
  }
  for (int k = 0; k < n; ++k) {
    const Node& node = nodes_[static_cast<size_t>(k)];
    // (ops on other backends read their own copies; uploads happen when a value is written)
    if (node.done_at_prepare || node.backend != 0 || node.op->inputs() == nullptr) continue;
    // an absorbed op's inputs are read when the next op runs
    const int step = node.absorbed ? k + 2 : k + 1;
    for (int32_t index : *node.op->inputs())
      if (index >= 0 && in_arena[static_cast<size_t>(index)]) touch(static_cast<size_t>(index), step);
  }
  for (size_t k = static_cast<size_t>(n); k < nodes_.size(); ++k) {  // the eager tail reads them last
    const Node& node = nodes_[k];
    if (node.op->inputs() == nullptr) continue;
    for (int32_t index : *node.op->inputs())
      if (index >= 0 && in_arena[static_cast<size_t>(index)]) touch(static_cast<size_t>(index), end);
  }

  std::vector<ArenaRequest> requests;
  std::vector<size_t> request_root;
  for (size_t i = 0; i < num; ++i) {
    if (!in_arena[i] || group[i] != static_cast<int>(i)) continue;
    requests.push_back({bytes[i], first[i], last[i]});
    request_root.push_back(i);
  }
  ArenaPlan plan;
  // 1 TiB on 64-bit targets, half the address space on 32-bit ones (armv7), where 1 << 40 overflows.
  constexpr size_t kMaxArenaBytes = sizeof(size_t) >= 8 ? static_cast<size_t>(uint64_t{1} << 40) : SIZE_MAX / 2;
  if (!plan_arena(requests, kTensorAlignment, kMaxArenaBytes, &plan))
    return error_.set(Status::kOutOfMemory, "the activation arena size overflows");
  size_t scratch_bytes = 0;
  for (int k = 0; k < n; ++k)
    if (const Node& node = nodes_[static_cast<size_t>(k)]; !node.done_at_prepare) scratch_bytes = std::max(scratch_bytes, node.ctx.scratch_bytes_requested);
  // The whole plan is checked against the bound before the arena or the scratch is allocated.
  size_t plan_bytes = 0;
  if (!checked_add(plan.total_bytes, scratch_bytes, &plan_bytes) || !memory_.reserve(plan_bytes)) {
    size_t largest = 0;
    bool any = false;
    for (size_t i = 0; i < num; ++i) {
      if (in_arena[i] && (!any || tensors_[i].ref.bytes() > tensors_[largest].ref.bytes())) largest = i;
      any = any || in_arena[i];
    }
    const TensorRef& big = tensors_[largest].ref;  // (with no arena tensor the scratch alone is over)
    memory_bytes_ = memory_.used() + plan_bytes;
    return error_.set(Status::kOutOfMemory,
                      "the plan needs %zu bytes of activation arena and %zu of op scratch (largest tensor '%s' of "
                      "shape %s %s, %zu bytes), over max_memory_bytes (%zu, of which %zu already committed to "
                      "weights and op state); raise lite_interpreter_options.max_memory_bytes if the model is trusted",
                      plan.total_bytes, scratch_bytes, big.name, format_shape(big.shape).c_str(),
                      dtype_name(big.dtype), big.bytes(), memory_.limit(), memory_.used());
  }
  // Not zero-filled: every op writes all of its outputs, and the arena's pages are only committed
  // when something writes them. Graph inputs are zeroed below (a caller may invoke before setting them).
  if (!arena_.allocate(plan.total_bytes, false))
    return error_.set(Status::kOutOfMemory, "cannot allocate an activation arena of %zu bytes", plan.total_bytes);
  arena_bytes_ = plan.total_bytes;
  std::vector<int64_t> root_offset(num, -1);
  for (size_t r = 0; r < requests.size(); ++r) root_offset[request_root[r]] = static_cast<int64_t>(plan.offsets[r]);
  uint8_t* base = static_cast<uint8_t*>(arena_.data());
  for (size_t i = 0; i < num; ++i) {
    if (!in_arena[i]) continue;
    TensorSlot& slot = tensors_[i];
    slot.storage = Storage::kArena;
    slot.arena_offset = root_offset[static_cast<size_t>(group[i])];
    slot.ref.data = base + slot.arena_offset;
    if (slot.is_graph_input) std::memset(slot.ref.data, 0, slot.ref.bytes());
  }
  memory_bytes_ = memory_.used();
  planned_memory_ = memory_.used() + scratch_bytes;

  if (scratch_bytes > 0 && !scratch_.allocate(scratch_bytes, false))
    return error_.set(Status::kOutOfMemory, "cannot allocate %zu bytes of op scratch", scratch_bytes);
  for (int k = 0; k < n; ++k)
    if (Node& node = nodes_[static_cast<size_t>(k)]; true) node.ctx.scratch = !node.done_at_prepare && node.ctx.scratch_bytes_requested > 0 ? scratch_.data() : nullptr;
  if (!mixed_) return Status::kOk;
  Status s = allocate_backend_memory();
  if (s != Status::kOk) return s;
  plan_border_copies(host_needed);
  return Status::kOk;
}

Status Interpreter::allocate() {
  if (!needs_prepare_) return Status::kOk;
  free_op_states(true);  // before counting the new ones against the bound
  reset_tensors();
  memory_bytes_ = 0;
  inputs_as_declared_ = true;
  for (int i = 0; i < num_inputs(); ++i) {
    TensorSlot& slot = tensors_[static_cast<size_t>(inputs_[static_cast<size_t>(i)])];
    const Shape& shape = input_shapes_[static_cast<size_t>(i)];
    const Shape& declared = slot.ref.shape;  // reset_tensors() restored the declared shape
    bool as_declared = declared.rank == shape.rank;
    for (int d = 0; as_declared && d < shape.rank; ++d)
      as_declared = declared.dims[d] == -1 || declared.dims[d] == shape.dims[d];
    if (!as_declared) inputs_as_declared_ = false;
    for (int d = 0; d < shape.rank; ++d) {
      if (shape.dims[d] < 0)
        return error_.set(Status::kShapeError,
                          "input %d '%s' has the dynamic shape %s: call resize_input "
                          "(lite_interpreter_resize_input) with concrete dims before allocate/invoke",
                          i, slot.ref.name, format_shape(shape).c_str());
    }
    slot.ref.shape = shape;
    size_t bytes;
    if (!tensor_bytes(slot.ref, kMaxTensorBytes, &bytes))
      return error_.set(Status::kShapeError, "input %d '%s' of shape %s exceeds 2 GiB", i, slot.ref.name,
                        format_shape(shape).c_str());
    Status s_fits = check_tensor_fits(slot.ref, bytes, "input");
    if (s_fits != Status::kOk) return s_fits;
  }
  for (size_t i = 0; i < input_values_.size(); ++i) {
    InputValue& value = input_values_[i];
    if (!value.is_value) continue;
    TensorSlot& slot = tensors_[static_cast<size_t>(inputs_[i])];
    if (value.data.data() == nullptr || value.bytes != slot.ref.bytes())
      return error_.set(Status::kInvalidArgument, "value input %zu '%s' has no value of %zu bytes", i, slot.ref.name,
                        slot.ref.bytes());
    slot.ref.data = value.data.data();
    slot.ref.value_known = true;
    slot.ref.value_version = value.version;
    slot.storage = Storage::kPrepared;
  }
  planned_end_ = static_cast<int>(nodes_.size());
  Status s_variables = bind_variables();
  if (s_variables != Status::kOk) {
    reset_tensors();
    return s_variables;
  }
  for (int k = 0; k < static_cast<int>(nodes_.size()); ++k) {
    nodes_[static_cast<size_t>(k)].ctx.kept_granted = false;
    Status s = prepare_node(k);
    if (s != Status::kOk) {
      reset_tensors();
      return s;
    }
    if (nodes_[static_cast<size_t>(k)].ctx.outputs_dynamic) {
      planned_end_ = k;  // this op and every later one are prepared at invoke
      break;
    }
  }
  absorb_producers();
  Status s = plan_memory();
  if (s == Status::kOk) s = keep_transformed_weights();
  if (s != Status::kOk) {
    reset_tensors();
    return s;
  }
  needs_prepare_ = false;
  return Status::kOk;
}

// Variables keep their memory and value across allocates (a resize does not restart a stream); the
// bytes count against max_memory_bytes at every allocate like the rest of the model's memory.
Status Interpreter::bind_variables() {
  for (size_t i = 0; i < tensors_.size(); ++i) {
    TensorSlot& slot = tensors_[i];
    if (!slot.is_variable) continue;
    const size_t bytes = slot.ref.bytes();  // static and checked against its buffer by the verifier
    if (!memory_.reserve(bytes)) {
      memory_bytes_ = memory_.used() + bytes;
      return error_.set(Status::kOutOfMemory, "variable '%s' of %zu bytes is over max_memory_bytes (%zu)",
                        slot.ref.name, bytes, memory_.limit());
    }
    if (slot.variable_value.data() == nullptr) {
      if (!slot.variable_value.allocate(bytes, false))
        return error_.set(Status::kOutOfMemory, "cannot allocate %zu bytes for variable '%s'", bytes, slot.ref.name);
      std::memcpy(slot.variable_value.data(), model_->constant_data(subgraph_, static_cast<int>(i)), bytes);
    }
    slot.ref.data = slot.variable_value.data();
    slot.storage = Storage::kVariable;
  }
  return Status::kOk;
}

void Interpreter::reset_variables() {
  for (size_t i = 0; i < tensors_.size(); ++i) {
    TensorSlot& slot = tensors_[i];
    if (slot.is_variable && slot.variable_value.data() != nullptr)
      std::memcpy(slot.variable_value.data(), model_->constant_data(subgraph_, static_cast<int>(i)), slot.ref.bytes());
  }
}

Status Interpreter::invoke() {
  const ScopedThreadCpus pin(cpus_);  // the caller's own mask comes back however run_ops returns
  Status s = run_ops();
  if (s == Status::kOk) s = check_sequence_outputs();
  return s;
}

// The ops check the kinds they read and write; this is the net under them: an invoke that succeeds
// leaves every output declared a sequence or optional readable as one (else no reader could take
// it, fuzz_c_api's contract), or fails naming it.
Status Interpreter::check_sequence_outputs() {
#ifndef LITE_NO_SEQUENCES
  for (int i = 0; i < num_outputs(); ++i) {
    const TensorRef& t = tensor(output_tensor(i)).ref;
    if (t.kind == lite_fb::ValueKind::TENSOR) continue;
    SequenceView view;
    const char* why = "";
    if (!read_sequence(t, &view, &why))
      return error_.set(Status::kInvalidModel, "output %d '%s' is declared %s, but the model computed a value that %s",
                        i, t.name, lite_fb::EnumNameValueKind(t.kind), why);
  }
#endif
  return Status::kOk;
}

Status Interpreter::run_ops() {
  Status s = allocate();
  if (s != Status::kOk) return s;
  if (mixed_) {
    s = run_ops_across_backends();
  } else {
    for (Node* it = nodes_.data(), *end = it + planned_end_; it != end; ++it) {  // (no eager tail: all ops)
      Node& node = *it;
      if (node.done_at_prepare || node.absorbed) continue;
      error_.clear();
      s = profiling_ ? eval_profiled(static_cast<size_t>(&node - nodes_.data())) : node.kernel->eval(&node.ctx);
      if (s != Status::kOk) return op_error(node, s, "eval");
    }
  }
  if (s != Status::kOk || planned_end_ == static_cast<int>(nodes_.size())) return s;
  return run_eager();
}

// The eager tail's values of the last invoke: memory back to the plan's, shapes back to the declared.
void Interpreter::release_eager() {
  for (size_t i = 0; i < tensors_.size(); ++i) {
    TensorSlot& slot = tensors_[i];
    if (slot.producer < planned_end_) continue;
    const lite_fb::Tensor* t = graph_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(i));
    slot.ref.shape = Shape();
    if (t->shape() != nullptr) {
      slot.ref.shape.rank = static_cast<int>(t->shape()->size());
      for (int d = 0; d < slot.ref.shape.rank; ++d)
        slot.ref.shape.dims[d] = t->shape()->Get(static_cast<flatbuffers::uoffset_t>(d));
    }
    slot.ref.dtype = t->dtype();
    slot.ref.data = nullptr;
    slot.ref.value_known = false;
    slot.ref.value_version = 0;
    slot.storage = Storage::kNone;
    slot.prepared.reset();
  }
  memory_.release_to(planned_memory_);
}

// Ops from the first dynamic-output op on: each is prepared with the shapes the ops before it just
// produced, its outputs get heap memory counted against max_memory_bytes, then it runs.
Status Interpreter::run_eager() {
  release_eager();
  for (size_t k = static_cast<size_t>(planned_end_); k < nodes_.size(); ++k) {
    Node& node = nodes_[k];
    Status s = prepare_node(static_cast<int>(k), true);
    if (s != Status::kOk) return s;
    if (node.done_at_prepare) continue;
    if (!node.ctx.outputs_dynamic) {
      for (int o = 0; o < node.ctx.num_outputs; ++o) {
        s = allocate_output(&node.ctx, o);
        if (s != Status::kOk) return op_error(node, s, "eval");
      }
    }
    node.ctx.scratch = nullptr;
    if (node.ctx.scratch_bytes_requested > 0) {
      if (!memory_.fits(node.ctx.scratch_bytes_requested))
        return error_.set(Status::kOutOfMemory, "%s '%s': %zu bytes of scratch, over max_memory_bytes (%zu)",
                          opcode_name(node.op->opcode()), node_name(node.op), node.ctx.scratch_bytes_requested,
                          memory_.limit());
      if (eager_scratch_.size() < node.ctx.scratch_bytes_requested &&
          !eager_scratch_.allocate(node.ctx.scratch_bytes_requested, false))
        return error_.set(Status::kOutOfMemory, "cannot allocate %zu bytes of op scratch",
                          node.ctx.scratch_bytes_requested);
      node.ctx.scratch = eager_scratch_.data();
    }
    error_.clear();
    s = profiling_ ? eval_profiled(k) : node.kernel->eval(&node.ctx);
    if (s != Status::kOk) return op_error(node, s, "eval");
    for (int o = 0; o < node.ctx.num_outputs; ++o) {
      if (node.outputs[static_cast<size_t>(o)]->data == nullptr)
        return error_.set(Status::kInternal, "%s '%s': output %d has no memory after eval",
                          opcode_name(node.op->opcode()), node_name(node.op), o);
      s = check_declared(node, o);
      if (s != Status::kOk) return s;
    }
  }
  return Status::kOk;
}

Status Interpreter::set_input_value(int i, const void* data, size_t bytes) {
  InputValue& value = input_values_[static_cast<size_t>(i)];
  if (value.data.data() != nullptr && value.bytes == bytes && std::memcmp(value.data.data(), data, bytes) == 0)
    return Status::kOk;
  if (bytes > kMaxTensorBytes || !value.data.allocate(bytes, false))
    return error_.set(Status::kOutOfMemory, "cannot hold a value input of %zu bytes", bytes);
  if (bytes > 0) std::memcpy(value.data.data(), data, bytes);
  value.bytes = bytes;
  value.version = ++value_versions_;
  needs_prepare_ = true;
  return Status::kOk;
}

Status Interpreter::allocate_output(OpContext* ctx, int o) {
  const int index = ctx->op->outputs()->Get(static_cast<flatbuffers::uoffset_t>(o));
  TensorSlot& slot = tensors_[static_cast<size_t>(index)];
  size_t bytes;
  if (slot.ref.shape.rank < 0 || slot.ref.shape.rank > kMaxRank ||
      std::any_of(slot.ref.shape.dims, slot.ref.shape.dims + slot.ref.shape.rank, [](int64_t d) { return d < 0; }) ||
      !tensor_bytes(slot.ref, kMaxTensorBytes, &bytes))
    return fail(ctx, Status::kShapeError, "output %d '%s' of shape %s %s is invalid or exceeds 2 GiB", o,
                slot.ref.name, format_shape(slot.ref.shape).c_str(), dtype_name(slot.ref.dtype));
  if (!memory_.reserve(bytes))
    return fail(ctx, Status::kOutOfMemory,
                "output '%s' of shape %s %s needs %zu bytes, over max_memory_bytes (%zu, of which %zu already "
                "committed)",
                slot.ref.name, format_shape(slot.ref.shape).c_str(), dtype_name(slot.ref.dtype), bytes,
                memory_.limit(), memory_.used());
  if (!slot.prepared.allocate(bytes, false))
    return fail(ctx, Status::kOutOfMemory, "cannot allocate %zu bytes for output '%s'", bytes, slot.ref.name);
  slot.ref.data = slot.prepared.data();
  slot.storage = Storage::kPrepared;
  return Status::kOk;
}

void Interpreter::set_profiling(bool enabled) {
  profiling_ = enabled;
  if (enabled) profile_.assign(nodes_.size(), OpProfile{});
}

OpProfile Interpreter::op_profile(int k) const {
  return static_cast<size_t>(k) < profile_.size() ? profile_[static_cast<size_t>(k)] : OpProfile{};
}

int Interpreter::op_computed_by(int k) const {
  const Node& node = nodes_[static_cast<size_t>(k)];
  if (needs_prepare_ || node.done_at_prepare) return -1;
  return node.absorbed ? k + 1 : k;
}

// A monotonic clock around one op's eval; only called while profiling.
Status Interpreter::eval_profiled(size_t k) {
  Node& node = nodes_[k];
  auto start = std::chrono::steady_clock::now();
  Status s = node.kernel->eval(&node.ctx);
  std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  profile_[k].seconds += elapsed.count();
  profile_[k].calls += 1;
  return s;
}

}  // namespace lite
