// Routes an op code to its generic or quantized-int8 implementation by input 0 (INT8 with quantization
// parameters), at prepare. The
// chosen kernel's state is wrapped with a flag, so eval and free_state reach the same kernel.
#include <new>
#include <utility>

#include "quant_params_int8.h"

namespace lite {
namespace {

constexpr int kMaxOpCodes = 1024;
OpKernel g_fp32[kMaxOpCodes];
OpKernel g_int8[kMaxOpCodes];
bool g_dispatched[kMaxOpCodes];

struct DispatchState {
  bool is_int8 = false;
  void* inner = nullptr;
  void (*free_inner)(void*) = nullptr;
};

int code_of(const OpContext* ctx) { return static_cast<int>(ctx->op->opcode()); }

const OpKernel& chosen(int code, bool is_int8) { return is_int8 ? g_int8[code] : g_fp32[code]; }

void free_state(void* state);

Status prepare(OpContext* ctx) {
  const int code = code_of(ctx);
  const TensorRef* x = ctx->input(0);
  // Quantized int8 only: a plain int8 tensor (no quantization, e.g. integer ADD) stays on the
  // generic kernel.
  const bool is_int8 = x != nullptr && x->dtype == lite_fb::DType::INT8 && x->quantization != nullptr;
  const OpKernel& k = chosen(code, is_int8);
  // A state the core kept across a re-prepare (keeps_constant_state) goes back to the kernel that
  // made it, which keeps or rebuilds it (before, it was dropped here: leaked, and weights re-packed
  // at every re-prepare of a loop body).
  DispatchState* previous = static_cast<DispatchState*>(ctx->state);
  ctx->state = nullptr;
  if (previous != nullptr) {
    if (previous->is_int8 == is_int8 && k.keeps_constant_state) std::swap(ctx->state, previous->inner);
    free_state(previous);
  }
  Status s = k.prepare(ctx);
  void* inner = ctx->state;
  DispatchState* wrapped = new (std::nothrow) DispatchState;
  if (wrapped == nullptr) {
    if (inner != nullptr && k.free_state != nullptr) k.free_state(inner);
    ctx->state = nullptr;
    return fail(ctx, Status::kOutOfMemory, "cannot allocate op state");
  }
  wrapped->is_int8 = is_int8;
  wrapped->inner = inner;
  wrapped->free_inner = k.free_state;
  ctx->state = wrapped;
  return s;
}

Status eval(OpContext* ctx) {
  DispatchState* wrapped = static_cast<DispatchState*>(ctx->state);
  if (wrapped == nullptr) return fail(ctx, Status::kInternal, "eval before prepare");
  ctx->state = wrapped->inner;
  Status s = chosen(code_of(ctx), wrapped->is_int8).eval(ctx);
  ctx->state = wrapped;
  return s;
}

// The chosen kernel's absorb_producer over both unwrapped states (a producer of a dispatched op
// code has a wrapped state too); never across dtypes: an int8 producer's state is not an fp32 one.
bool absorb_producer(OpContext* ctx, OpContext* producer) {
  DispatchState* wrapped = static_cast<DispatchState*>(ctx->state);
  if (wrapped == nullptr) return false;
  const OpKernel& k = chosen(code_of(ctx), wrapped->is_int8);
  if (k.absorb_producer == nullptr) return false;
  DispatchState* producer_wrapped = nullptr;
  if (g_dispatched[code_of(producer)]) {
    producer_wrapped = static_cast<DispatchState*>(producer->state);
    if (producer_wrapped == nullptr || producer_wrapped->is_int8 != wrapped->is_int8) return false;
    producer->state = producer_wrapped->inner;
  }
  ctx->state = wrapped->inner;
  const bool absorbed = k.absorb_producer(ctx, producer);
  ctx->state = wrapped;
  if (producer_wrapped != nullptr) producer->state = producer_wrapped;
  return absorbed;
}

void free_state(void* state) {
  DispatchState* wrapped = static_cast<DispatchState*>(state);
  if (wrapped == nullptr) return;
  if (wrapped->inner != nullptr && wrapped->free_inner != nullptr) wrapped->free_inner(wrapped->inner);
  delete wrapped;
}

}  // namespace

OpKernel int8_dispatch(lite_fb::OpCode opcode, const OpKernel& fp32, const OpKernel& int8) {
  const int code = static_cast<int>(opcode);
  g_fp32[code] = fp32;
  g_int8[code] = int8;
  g_dispatched[code] = true;
  OpKernel k = fp32;
  k.prepare = prepare;
  k.eval = eval;
  k.free_state = free_state;  // the wrapper remembers which kernel's free_state owns the inner state
  if (fp32.absorb_producer != nullptr || int8.absorb_producer != nullptr) k.absorb_producer = absorb_producer;
  k.keeps_constant_state = fp32.keeps_constant_state || int8.keeps_constant_state;
  return k;
}

}  // namespace lite
