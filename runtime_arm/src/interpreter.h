// The interpreter: runtime tensors of one model, per-op prepare (shapes, prepare-time values),
// per-op placement on backends, the arena plan, border copies, and the executor. One interpreter
// is used by one thread at a time.
#pragma once

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "aligned_buffer.h"
#include "backend.h"
#include "error_sink.h"
#include "memory_budget.h"
#include "model.h"
#include "op_api.h"
#include "thread_pool.h"

namespace lite {

// "[1, 3, 224, 224]", for messages.
std::string format_shape(const Shape& s);

enum class Storage {
  kNone,      // not used by the current plan
  kConstant,  // model weights (or an alias of them)
  kArena,     // the activation arena
  kPrepared,  // computed at prepare time, heap (or an alias of such a value)
  kBackend,   // only in the memory of the (non-CPU) backend that produces it; no host copy
  kVariable,  // a variable: TensorSlot::variable_value, kept across invokes and allocates
};

struct TensorSlot {
  TensorRef ref;
  Storage storage = Storage::kNone;
  int64_t arena_offset = -1;
  AlignedBuffer prepared;  // kPrepared values owned by this tensor
  AlignedBuffer variable_value;  // a variable's current value (allocated at the first allocate)
  int producer = -1;       // index of the op writing it, -1 for none
  int home = 0;            // backend whose op writes it at invoke (0: the CPU; also every non-activation)
  bool is_graph_input = false;
  bool is_graph_output = false;
  bool is_variable = false;  // lite_fb::Tensor::variable: state that persists across invokes
};

struct Node {
  const lite_fb::Operator* op = nullptr;
  const OpKernel* cpu_kernel = nullptr;  // the model registry's: the op's shape semantics, CPU eval
  const OpKernel* kernel = nullptr;      // the placed backend's kernel (cpu_kernel on the CPU)
  int backend = 0;                       // index in the interpreter's backends (0: the CPU)
  // The placed backend's views of the tensors (host TensorSlot::ref on the CPU).
  std::vector<TensorRef*> inputs;
  std::vector<TensorRef*> outputs;
  OpContext ctx;
  bool done_at_prepare = false;
  bool absorbed = false;  // the next op computes this op's output (OpKernel::absorb_producer)
  // Border copies to run right after this op's eval: [copies_begin, copies_end) of border_copies_.
  int copies_begin = 0;
  int copies_end = 0;
};

// One tensor crossing from one backend's memory to another's, through the host.
struct BorderCopy {
  Backend* backend = nullptr;   // the non-CPU side
  TensorRef* device = nullptr;  // its view of the tensor
  TensorRef* host = nullptr;    // the host tensor (TensorSlot::ref)
  bool to_host = false;         // download (device -> host) or upload (host -> device)
};

// Time spent in one op's eval since profiling was enabled (see Interpreter::set_profiling).
struct OpProfile {
  double seconds = 0.0;
  int64_t calls = 0;
};

class Interpreter {
 public:
  // Outputs of an op are computed at prepare time when all its inputs are known and its outputs
  // hold at most this many elements in total (shape subgraphs); a DEQUANTIZE of constants at any size.
  static constexpr int64_t kMaxPrepareTimeElements = 65536;
  // Largest single tensor the interpreter will allocate.
  static constexpr size_t kMaxTensorBytes = size_t{1} << 31;

  // With `cpus` (see cpu_affinity.h: fastest_allowed_cpus), the workers run on that set of CPUs and
  // so does the caller during each invoke (its own mask is restored when invoke returns).
  //
  // `backends` (may be empty) are the non-CPU backends in the caller's order of preference: each
  // op runs on the first that accepts it, else on the CPU, which takes every op. The interpreter
  // owns them.
  static Status create(const Model* model, int num_threads, const std::vector<int>& cpus,
                       std::vector<std::unique_ptr<Backend>> backends, std::unique_ptr<Interpreter>* out,
                       ErrorSink* error);
  static Status create(const Model* model, int num_threads, const std::vector<int>& cpus,
                       std::unique_ptr<Interpreter>* out, ErrorSink* error) {
    return create(model, num_threads, cpus, {}, out, error);
  }
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  int input_tensor(int i) const { return inputs_[static_cast<size_t>(i)]; }
  int output_tensor(int i) const { return outputs_[static_cast<size_t>(i)]; }
  int num_tensors() const { return static_cast<int>(tensors_.size()); }
  const TensorSlot& tensor(int index) const { return tensors_[static_cast<size_t>(index)]; }
  // The current shape of graph input i (as declared or resized; may hold -1 until resized).
  const Shape& input_shape(int i) const { return input_shapes_[static_cast<size_t>(i)]; }
  // The rank graph input i has in the file; -1 in a control-flow body whose file gives it no shape
  // (rank unknown); a main-graph input without a shape is a scalar (0).
  int declared_input_rank(int i) const;
  const Model& model() const { return *model_; }

  Status resize_input(int i, const int64_t* dims, int rank);
  // Prepares every op and plans memory when a resize (or creation) made it necessary.
  Status allocate();
  Status invoke();
  // Restores every variable to the model's initial value (a no-op before the first allocate, which
  // initialises them); the next invoke starts a stream afresh.
  void reset_variables();
  int num_variables() const {
    return static_cast<int>(std::count_if(tensors_.begin(), tensors_.end(), [](const TensorSlot& t) { return t.is_variable; }));
  }
  const std::vector<int>& cpus() const { return cpus_; }  // empty: no pinning
  bool needs_allocate() const { return needs_prepare_; }
  size_t arena_bytes() const { return needs_prepare_ ? 0 : arena_bytes_; }
  // The bound on model-sized memory (memory_budget.h); takes effect at the next allocate.
  void set_max_memory_bytes(size_t bytes) {
    memory_.set_limit(bytes);
    needs_prepare_ = true;
  }
  size_t max_memory_bytes() const { return memory_.limit(); }
  // lite_interpreter_options.packed_weight_ratio: bounds the transformed weights the ops keep
  // (memory_budget.h); takes effect at the next allocate.
  void set_packed_weight_ratio(float ratio);
  size_t weights_bytes() const { return constant_bytes_; }
  // Model-sized memory of the last allocate: what it committed (arena, scratch, op state,
  // prepare-time values), or, when the bound refused it, what it had asked for when it stopped
  // (a lower bound of the model's need at these shapes).
  size_t memory_bytes() const { return memory_bytes_; }

  // Per-op timing: enabling (re)starts every op's counters at zero; disabled costs one branch per op.
  void set_profiling(bool enabled);
  bool profiling() const { return profiling_; }
  int num_ops() const { return static_cast<int>(nodes_.size()); }
  const lite_fb::Operator* op(int k) const { return nodes_[static_cast<size_t>(k)].op; }
  OpProfile op_profile(int k) const;  // zeros when profiling was never enabled
  // The op whose eval computes op k's outputs: k; k + 1 when that op absorbed it
  // (OpKernel::absorb_producer); -1 when they are computed at prepare time or not yet planned.
  int op_computed_by(int k) const;

  // Backends: 0 is the CPU, then the caller's in order of preference.
  int num_backends() const { return static_cast<int>(backends_.size()); }
  Backend& backend(int b) const { return *backends_[static_cast<size_t>(b)].backend; }
  // Where op k runs: its backend's index as of the last allocate (ops computed at prepare time:
  // the CPU); -1 while not planned.
  int op_backend(int k) const { return needs_prepare_ ? -1 : nodes_[static_cast<size_t>(k)].backend; }
  // Backend b's view of tensor t (data: its handle, null when it holds no copy); b >= 1.
  const TensorRef& backend_view(int b, int t) const {
    return backends_[static_cast<size_t>(b)].views[static_cast<size_t>(t)];
  }
  // The border copies one invoke runs (downloads and uploads), as planned by the last allocate.
  int num_border_copies() const { return needs_prepare_ ? 0 : static_cast<int>(border_copies_.size()); }

  ErrorSink& error() { return error_; }
  const ErrorSink& error() const { return error_; }

  // Control flow (ops/control_flow.cc). The interpreter of body `subgraph` (>= 1), sharing this one's
  // model, threads and memory bound; the caller owns it.
  Status create_child(int subgraph, std::unique_ptr<Interpreter>* out);
  // The graph input / output tensors of this interpreter, to feed a body and read its results.
  TensorRef& input_ref(int i) { return tensors_[static_cast<size_t>(inputs_[static_cast<size_t>(i)])].ref; }
  const TensorRef& output_ref(int i) const {
    return tensors_[static_cast<size_t>(outputs_[static_cast<size_t>(i)])].ref;
  }
  // Memory for output `o` of a dynamic-output op (OpContext::outputs_dynamic) at its eval, once the op set
  // the output's dtype and shape; counted against max_memory_bytes until the next invoke.
  Status allocate_output(OpContext* ctx, int o);
  // A body's value input (Graph.value_inputs): its value is known at prepare; a new value (bytes
  // differing from the last) makes the next allocate prepare again. Call before allocate.
  bool is_value_input(int i) const { return input_values_[static_cast<size_t>(i)].is_value; }
  Status set_input_value(int i, const void* data, size_t bytes);
  // Ops [0, planned_end) run from the arena plan; the rest are prepared at invoke (the eager tail).
  int planned_end() const { return planned_end_; }

 private:
  Interpreter() = default;
  void init_graph(int subgraph, ThreadPool* pool);
  Status run_eager();
  void release_eager();
  void reset_tensors();
  void free_op_states(bool keep_constant = false);
  Status prepare_node(int k, bool eager = false);
  void absorb_producers();
  Status evaluate_at_prepare(int k);
  Status plan_memory();
  Status keep_transformed_weights();
  Status bind_variables();
  Status op_error(const Node& node, Status status, const char* phase);
  Status check_tensor_fits(const TensorRef& t, size_t bytes, const char* what);
  Status check_declared(const Node& node, int output);
  Status eval_profiled(size_t k);
  Status run_ops();
  Status check_sequence_outputs();
  // interpreter_backends.cc: placement, device memory, border copies.
  void use_cpu_views(Node& node);
  Status place_node(int k);
  void mark_homes(std::vector<char>* host_needed);
  Status allocate_backend_memory();
  void plan_border_copies(const std::vector<char>& host_needed);
  void release_backend_memory();
  Status run_copies(int begin, int end);
  Status run_ops_across_backends();

  // A backend and its view of every tensor (empty for the CPU, whose views are TensorSlot::ref).
  struct PlacedBackend {
    std::unique_ptr<Backend> backend;
    std::vector<TensorRef> views;
  };

  const Model* model_ = nullptr;
  int subgraph_ = 0;                          // 0: the main graph; >= 1: a control-flow body
  const lite_fb::Graph* graph_ = nullptr;     // model_->graph(subgraph_)
  ThreadPool* pool_view_ = nullptr;           // pool_, or the parent's for a body
  int planned_end_ = 0;                       // first op of the eager tail (num_ops: none)
  size_t planned_memory_ = 0;                 // memory_.used() after the plan: the tail's start
  AlignedBuffer eager_scratch_;
  struct InputValue {
    bool is_value = false;
    AlignedBuffer data;
    size_t bytes = 0;
    uint64_t version = 0;  // TensorRef::value_version
  };
  std::vector<InputValue> input_values_;     // per graph input
  uint64_t value_versions_ = 0;              // the last InputValue::version given
  int num_threads_ = 1;
  std::vector<int> cpus_;
  std::unique_ptr<ThreadPool> pool_;  // lent to ops as ctx.pool; null with one thread
  std::vector<TensorSlot> tensors_;
  std::vector<Node> nodes_;
  std::vector<int> inputs_, outputs_;
  std::vector<Shape> input_shapes_;
  AlignedBuffer arena_;
  AlignedBuffer scratch_;
  size_t arena_bytes_ = 0;
  MemoryBudget memory_;
  size_t memory_bytes_ = 0;
  size_t constant_bytes_ = 0;  // the graph's weights (constants)
  float packed_weight_ratio_ = std::numeric_limits<float>::infinity();  // LITE_DEFAULT_PACKED_WEIGHT_RATIO
  bool needs_prepare_ = true;
  // Every graph input has a shape its declaration allows (-1 matches any size): then computed
  // shapes must match the model's declared static dims too (otherwise only dtypes are checked).
  bool inputs_as_declared_ = true;
  ErrorSink error_;
  bool profiling_ = false;
  std::vector<OpProfile> profile_;  // one per node while profiling is or was enabled
  std::vector<PlacedBackend> backends_;  // [0]: the CPU
  bool mixed_ = false;                   // some op runs off the CPU: invoke runs border copies
  std::vector<BorderCopy> border_copies_;
  int input_copies_end_ = 0;             // [0, input_copies_end_): uploads of graph inputs
};

}  // namespace lite
