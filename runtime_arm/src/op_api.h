// The interface between the interpreter core and one operator implementation.
// An op implementation (runtime_arm/src/ops/*.cc) validates its inputs, computes its output
// shapes and dtypes in `prepare`, and computes outputs in `eval` by calling kernels_neon kernels.
// It never sees the flatbuffer graph beyond its own Operator table, and never allocates tensor memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include "schema/lite_generated.h"

namespace lite {

constexpr int kMaxRank = 8;

// Status codes shared with the C API (lite_status in include/lite_runtime.h has the same values).
enum class Status : int {
  kOk = 0,
  kInvalidArgument = 1,
  kIoError = 2,
  kInvalidModel = 3,
  kUnsupported = 4,
  kOutOfMemory = 5,
  kShapeError = 6,
  kVersionMismatch = 7,
  kInternal = 8,
};

size_t dtype_size(lite_fb::DType dtype);  // 0 for an unknown value
const char* dtype_name(lite_fb::DType dtype);
const char* opcode_name(lite_fb::OpCode opcode);

struct Shape {
  int rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t num_elements() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= dims[i];
    return n;
  }
};

struct TensorRef {
  const char* name = "";
  lite_fb::DType dtype = lite_fb::DType::FLOAT32;
  Shape shape;
  // Valid in eval for every tensor. Valid in prepare only when `value_known` (constants and
  // outputs of ops the core evaluated at prepare time): ops read shape inputs through it.
  // Host memory for CPU ops and for value_known tensors; for an op placed on another backend,
  // that backend's handle (backend.h).
  void* data = nullptr;
  bool is_constant = false;
  bool value_known = false;
  const lite_fb::Quantization* quantization = nullptr;  // may be null
  // Non-tensor kinds hold one buffer of sequence_value.h (shape [bytes / dtype size], dtype the elements').
  lite_fb::ValueKind kind = lite_fb::ValueKind::TENSOR;
  // A body's value input (value_known, not constant, may change between prepares): a number that
  // changes whenever its value does (0 for every other tensor), so ops may keep what they derived.
  uint64_t value_version = 0;
  size_t bytes() const { return static_cast<size_t>(shape.num_elements()) * dtype_size(dtype); }
};

class ThreadPool;    // defined by the core (issue 3); ops may ignore it
class Backend;       // backend.h
class MemoryBudget;  // memory_budget.h
class Interpreter;   // interpreter.h: control-flow ops run the model's other subgraphs through it

struct OpContext {
  const lite_fb::Operator* op = nullptr;  // options: op->options_as_Conv2DOptions() etc.
  TensorRef** inputs = nullptr;           // inputs[i] == nullptr for an absent optional input
  int num_inputs = 0;
  TensorRef** outputs = nullptr;
  int num_outputs = 0;
  ThreadPool* pool = nullptr;
  int num_threads = 1;
  Backend* backend = nullptr;  // where the op is placed (its kernels reach their device through it)

  // Scratch memory: request in prepare (bytes, largest request wins), use in eval.
  size_t scratch_bytes_requested = 0;
  void* scratch = nullptr;

  // Per-op state that lives as long as the interpreter (e.g. packed weights). Set it in prepare;
  // it is released with `free_state` of the op's kernel when the interpreter is destroyed or the
  // op is prepared again.
  void* state = nullptr;

  // The interpreter's bound on model-sized memory: op state sized from the model (packed weights,
  // tables) is allocated with op_allocate() below, never with malloc or std::vector growth.
  MemoryBudget* memory = nullptr;
  // Under a packed-weight bound (MemoryBudget::transformed_bounded): a copy of derived weights this op
  // prepared without, offered to the interpreter (bytes, the estimated cost it saves per run; 0: none);
  // the interpreter grants the offers that save most per byte within the bound and prepares those ops
  // again with `kept_granted` set.
  size_t kept_offer_bytes = 0;
  double kept_offer_saving = 0.0;
  bool kept_granted = false;

  // Control-flow ops (ops/control_flow.cc) only: the interpreter running this op, which creates the
  // interpreters of its bodies and gives memory to outputs whose shapes only eval knows.
  Interpreter* interpreter = nullptr;
  // Set by prepare when the output shapes depend on the data (a loop's trip count, an If whose branches
  // disagree): the core then prepares this op and every later op at invoke, right before its eval,
  // and eval sets each output's shape and calls Interpreter::allocate_output.
  bool outputs_dynamic = false;

  // Error sink owned by the core. Use fail() below.
  void* error_sink = nullptr;
  void (*report)(void* error_sink, const char* message) = nullptr;

  TensorRef* input(int i) const { return i < num_inputs ? inputs[i] : nullptr; }
  TensorRef* output(int i) const { return i < num_outputs ? outputs[i] : nullptr; }
};

// Formats "OPCODE 'node name': <message>" into the core's error sink and returns `status`.
Status fail(OpContext* ctx, Status status, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

// `bytes` (at least 1) of uninitialized, 64-byte aligned memory for the op's state, counted against
// the interpreter's max_memory_bytes before it is allocated; release it with std::free. On failure
// (over the bound, or none left) it writes "OPCODE 'node': <what> needs N bytes ..." to the error
// sink and returns nullptr: the op then returns Status::kOutOfMemory.
void* op_allocate(OpContext* ctx, size_t bytes, const char* what);

struct OpKernel {
  // Checks dtypes/ranks/options, sets every output's dtype and shape, requests scratch.
  // Called again whenever an input shape changes.
  Status (*prepare)(OpContext* ctx) = nullptr;
  // Computes the outputs. Output memory is allocated by the core after prepare.
  Status (*eval)(OpContext* ctx) = nullptr;
  // Releases ctx->state (optional).
  void (*free_state)(void* state) = nullptr;
  // True for reshape-like ops whose output may share input 0's memory (the core decides; eval
  // must then do nothing when outputs[0]->data == inputs[0]->data).
  bool output_aliases_input0 = false;
  // Optional: after every op is prepared, the core offers an op the op right before it when that
  // producer's only output is this op's input 0 and nothing else reads it (nor is it a graph
  // output). Returning true means this op's eval computes the producer's output itself, as a
  // stream of pieces it consumes while they are in cache: the core then skips the producer's eval
  // and gives that tensor no memory (its data is null); the producer's context (inputs, state)
  // stays valid for this op's eval. The op may raise its scratch request here.
  bool (*absorb_producer)(OpContext* ctx, OpContext* producer) = nullptr;
  // True when ctx->state may be derived from constant inputs alone (packed weights): the core then
  // leaves the state in place when it prepares the op again (a loop body re-prepared for a new value
  // input), and prepare keeps it when it still fits or frees and rebuilds it.
  bool keeps_constant_state = false;
};

// The registry maps op codes to kernels. Each op group registers itself from its own file:
//   void register_elementwise_ops(OpRegistry&);  (ops/register_elementwise.cc)
//   void register_nn_ops(OpRegistry&);           (ops/register_nn.cc)
//   void register_tensor_ops(OpRegistry&);       (ops/register_tensor.cc)
class OpRegistry {
 public:
  void add(lite_fb::OpCode opcode, const OpKernel& kernel);
  const OpKernel* find(lite_fb::OpCode opcode) const;  // nullptr when not registered

 private:
  static constexpr int kMaxOpCodes = 1024;
  OpKernel kernels_[kMaxOpCodes] = {};
  bool present_[kMaxOpCodes] = {};
};

void register_elementwise_ops(OpRegistry& registry);
void register_nn_ops(OpRegistry& registry);
void register_tensor_ops(OpRegistry& registry);

// The process-wide registry, built once on first use (thread-safe static initialization).
const OpRegistry& builtin_ops();

}  // namespace lite
