// IF, LOOP, SCAN: control flow over the model's other subgraphs (schema: IfOptions, LoopOptions,
// ScanOptions; docs/OPS.md "Control flow", docs/ARCHITECTURE.md "Subgraphs").
//
// Each body runs in its own child interpreter (Interpreter::create_child): its own tensors, arena
// plan and op states, the parent's threads, re-planned only when the shapes fed to it change. Values
// cross by copy. An IF whose branches agree on output shapes has static outputs; otherwise (and for
// every LOOP and SCAN, whose output sizes follow the trip count) the op declares its outputs
// dynamic: the interpreter prepares it and the ops after it at invoke (its "eager tail").
// Memory a loop keeps across iterations (carried values, stacked scan outputs) is counted against
// the interpreter's max_memory_bytes as it grows, so a hostile trip count fails cleanly. A value
// crosses only into a slot of its own representation (a tensor, or a sequence / optional buffer):
// the file's kinds are checked where values cross, so a hostile file cannot leave a tensor's bytes
// where a sequence reader looks.
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "../aligned_buffer.h"
#include "../byte_copy.h"
#include "../checked_math.h"
#include "../interpreter.h"
#include "../memory_budget.h"
#include "tensor_ops.h"

namespace lite {

namespace {

using lite_fb::DType;

// The interpreters of an op's bodies, kept as op state.
struct Bodies {
  std::unique_ptr<Interpreter> body[2];
};

void free_bodies(void* state) { delete static_cast<Bodies*>(state); }

Bodies* bodies_of(OpContext* ctx) {
  if (ctx->state == nullptr) ctx->state = new (std::nothrow) Bodies();
  return static_cast<Bodies*>(ctx->state);
}

Status body_failed(OpContext* ctx, int subgraph, Status s, const Interpreter& body) {
  return fail(ctx, s, "subgraph %d: %s", subgraph, body.error().message().c_str());
}

Status get_body(OpContext* ctx, int slot, int subgraph, Interpreter** out) {
  Bodies* bodies = bodies_of(ctx);
  if (bodies == nullptr) return fail(ctx, Status::kOutOfMemory, "out of memory");
  std::unique_ptr<Interpreter>& body = bodies->body[slot];
  if (body == nullptr) {
    Status s = ctx->interpreter->create_child(subgraph, &body);
    if (s != Status::kOk) return fail(ctx, s, "cannot create the interpreter of subgraph %d: %s", subgraph,
                                      ctx->interpreter->error().message().c_str());
  }
  *out = body.get();
  return Status::kOk;
}

// A value handed to a body input: dtype, shape and (at eval) data.
struct Value {
  DType dtype = DType::FLOAT32;
  Shape shape;
  const void* data = nullptr;
  bool sequence = false;  // a sequence or optional buffer (sequence_value.h), not a tensor
};

bool is_sequence(const TensorRef& t) { return t.kind != lite_fb::ValueKind::TENSOR; }
const char* representation(bool sequence) { return sequence ? "a sequence or optional" : "a tensor"; }

Value value_of(const TensorRef& t) { return Value{t.dtype, t.shape, t.data, is_sequence(t)}; }

// Sets the shapes of the body's inputs (re-planning the body when they changed), then, with data,
// copies the values in. Value inputs from `unchanged_from` on hold what the previous feed gave them
// (a loop's captured values within one LOOP eval): not compared nor copied again.
Status feed(OpContext* ctx, Interpreter* body, int subgraph, const std::vector<Value>& values, bool with_data,
            size_t unchanged_from = SIZE_MAX) {
  for (size_t i = 0; i < values.size(); ++i) {
    const Value& v = values[i];
    TensorRef& in = body->input_ref(static_cast<int>(i));
    if (in.dtype != v.dtype)
      return fail(ctx, Status::kInvalidModel, "subgraph %d input %zu '%s' is %s, the op passes %s", subgraph, i,
                  in.name, dtype_name(in.dtype), dtype_name(v.dtype));
    if (is_sequence(in) != v.sequence)
      return fail(ctx, Status::kInvalidModel, "subgraph %d input %zu '%s' is %s, the op passes %s", subgraph, i,
                  in.name, representation(is_sequence(in)), representation(v.sequence));
    Shape shape = v.shape;
    // A scalar may be declared as [1] (or [1, 1]) by the body; an input of unknown rank takes the value's.
    const int declared_rank = body->declared_input_rank(static_cast<int>(i));
    if (shape.num_elements() == 1 && declared_rank >= 0 && declared_rank != shape.rank) {
      shape.rank = declared_rank;
      for (int d = 0; d < shape.rank; ++d) shape.dims[d] = 1;
    }
    Status s = body->resize_input(static_cast<int>(i), shape.dims, shape.rank);
    if (s == Status::kOk && body->is_value_input(static_cast<int>(i))) {
      if (!with_data || i >= unchanged_from)  // known only at eval: the body is prepared then
        continue;
      s = body->set_input_value(static_cast<int>(i), v.data,
                                static_cast<size_t>(shape.num_elements()) * dtype_size(v.dtype));
    }
    if (s != Status::kOk) return body_failed(ctx, subgraph, s, *body);
  }
  if (!with_data) {
    for (size_t i = 0; i < values.size(); ++i)
      if (body->is_value_input(static_cast<int>(i))) return Status::kOk;
  }
  Status s = body->allocate();
  if (s != Status::kOk) return body_failed(ctx, subgraph, s, *body);
  if (!with_data) return Status::kOk;
  for (size_t i = 0; i < values.size(); ++i) {
    TensorRef& in = body->input_ref(static_cast<int>(i));
    if (body->is_value_input(static_cast<int>(i))) continue;
    if (in.bytes() > 0) std::memcpy(in.data, values[i].data, in.bytes());
  }
  return Status::kOk;
}

Status run(OpContext* ctx, Interpreter* body, int subgraph) {
  Status s = body->invoke();
  return s == Status::kOk ? s : body_failed(ctx, subgraph, s, *body);
}

// Whether every output of a prepared body has its final shape at prepare (no eager tail).
bool shapes_static(const Interpreter& body) { return body.planned_end() == body.num_ops(); }

// Gives output `o` the body value's dtype and shape, its memory (dynamic outputs), and copies it in.
Status emit_output(OpContext* ctx, int o, const TensorRef& value, const void* data) {
  TensorRef* out = ctx->outputs[o];
  if (is_sequence(*out) != is_sequence(value))
    return fail(ctx, Status::kInvalidModel, "output %d '%s' is %s, the body computes %s", o, out->name,
                representation(is_sequence(*out)), representation(is_sequence(value)));
  if (ctx->outputs_dynamic) {
    out->dtype = value.dtype;
    out->shape = value.shape;
    Status s = ctx->interpreter->allocate_output(ctx, o);
    if (s != Status::kOk) return s;
  } else if (out->bytes() != value.bytes() || out->dtype != value.dtype) {
    return fail(ctx, Status::kShapeError, "output %d: the body computed %s, prepared for %s", o,
                format_shape(value.shape).c_str(), format_shape(out->shape).c_str());
  }
  if (value.bytes() > 0) std::memcpy(out->data, data, value.bytes());
  return Status::kOk;
}

bool read_bool(const TensorRef& t) { return *static_cast<const uint8_t*>(t.data) != 0; }

// ---- IF ------------------------------------------------------------------------------------------

Status if_prepare(OpContext* ctx) {
  const lite_fb::IfOptions* o = ctx->op->options_as_IfOptions();
  const TensorRef* cond = ctx->input(0);
  if (cond == nullptr || cond->dtype != DType::BOOL || cond->shape.num_elements() != 1)
    return fail(ctx, Status::kInvalidModel, "the condition must be one BOOL value");
  std::vector<Value> captured;
  for (int i = 1; i < ctx->num_inputs; ++i) {
    if (ctx->inputs[i] == nullptr) return fail(ctx, Status::kInvalidModel, "captured input %d is absent", i);
    captured.push_back(value_of(*ctx->inputs[i]));
  }
  const int subgraphs[2] = {o->then_subgraph(), o->else_subgraph()};
  Interpreter* bodies[2] = {nullptr, nullptr};
  // A known condition prepares only the branch taken (the other may not fit these shapes).
  const int first = cond->value_known ? (read_bool(*cond) ? 0 : 1) : 0;
  const int last = cond->value_known ? first : 1;
  bool all_static = true;
  for (int b = first; b <= last; ++b) {
    Status s = get_body(ctx, b, subgraphs[b], &bodies[b]);
    if (s == Status::kOk) s = feed(ctx, bodies[b], subgraphs[b], captured, false);
    if (s != Status::kOk) return s;
    // (a body with value inputs is prepared only once they are known, at eval)
    all_static = all_static && !bodies[b]->needs_allocate() && shapes_static(*bodies[b]);
  }
  for (int out = 0; all_static && out < ctx->num_outputs; ++out) {
    const TensorRef& a = bodies[first]->output_ref(out);
    const TensorRef& b = bodies[last]->output_ref(out);
    bool same = a.dtype == b.dtype && a.shape.rank == b.shape.rank;
    for (int d = 0; same && d < a.shape.rank; ++d) same = a.shape.dims[d] == b.shape.dims[d];
    all_static = same;
  }
  ctx->outputs_dynamic = !all_static;
  if (all_static) {
    for (int out = 0; out < ctx->num_outputs; ++out) {
      ctx->outputs[out]->dtype = bodies[first]->output_ref(out).dtype;
      ctx->outputs[out]->shape = bodies[first]->output_ref(out).shape;
    }
  }
  return Status::kOk;
}

Status if_eval(OpContext* ctx) {
  const lite_fb::IfOptions* o = ctx->op->options_as_IfOptions();
  const int b = read_bool(*ctx->inputs[0]) ? 0 : 1;
  const int subgraph = b == 0 ? o->then_subgraph() : o->else_subgraph();
  std::vector<Value> captured;
  for (int i = 1; i < ctx->num_inputs; ++i) captured.push_back(value_of(*ctx->inputs[i]));
  Interpreter* body = nullptr;
  Status s = get_body(ctx, b, subgraph, &body);
  if (s == Status::kOk) s = feed(ctx, body, subgraph, captured, true);
  if (s == Status::kOk) s = run(ctx, body, subgraph);
  for (int out = 0; s == Status::kOk && out < ctx->num_outputs; ++out)
    s = emit_output(ctx, out, body->output_ref(out), body->output_ref(out).data);
  return s;
}

// ---- values kept across iterations ---------------------------------------------------------------

// A growable copy of a value, its growth counted against the interpreter's memory bound (released
// with the rest of the eager tail at the next invoke).
struct Held {
  DType dtype = DType::FLOAT32;
  Shape shape;
  AlignedBuffer buffer;
  size_t used = 0;        // bytes of valid data
  bool sequence = false;  // Value::sequence

  Status reserve(OpContext* ctx, size_t bytes, const char* what) {
    if (bytes <= buffer.size()) return Status::kOk;
    size_t want = buffer.size() * 2 > bytes ? buffer.size() * 2 : bytes;
    if (want > Interpreter::kMaxTensorBytes) want = bytes;
    if (bytes > Interpreter::kMaxTensorBytes)
      return fail(ctx, Status::kOutOfMemory, "%s grows past 2 GiB", what);
    if (ctx->memory != nullptr && !ctx->memory->reserve(want - buffer.size()))
      return fail(ctx, Status::kOutOfMemory,
                  "%s needs %zu bytes, over max_memory_bytes (%zu, of which %zu already committed); raise "
                  "lite_interpreter_options.max_memory_bytes if the model is trusted",
                  what, want, ctx->memory->limit(), ctx->memory->used());
    AlignedBuffer grown;
    if (!grown.allocate(want, false)) return fail(ctx, Status::kOutOfMemory, "%s: cannot allocate %zu bytes", what, want);
    if (used > 0) std::memcpy(grown.data(), buffer.data(), used);
    buffer = std::move(grown);
    return Status::kOk;
  }
  Status set(OpContext* ctx, const TensorRef& t, const char* what) {
    Status s = reserve(ctx, t.bytes(), what);
    if (s != Status::kOk) return s;
    dtype = t.dtype;
    shape = t.shape;
    sequence = is_sequence(t);
    used = t.bytes();
    if (used > 0) std::memcpy(buffer.data(), t.data, used);
    return Status::kOk;
  }
  Status append(OpContext* ctx, const TensorRef& t, const char* what) {
    size_t total;
    if (!checked_add(used, t.bytes(), &total)) return fail(ctx, Status::kOutOfMemory, "%s overflows", what);
    Status s = reserve(ctx, total, what);
    if (s != Status::kOk) return s;
    if (t.bytes() > 0) std::memcpy(static_cast<uint8_t*>(buffer.data()) + used, t.data, t.bytes());
    used = total;
    return Status::kOk;
  }
  Value value() const { return Value{dtype, shape, buffer.data(), sequence}; }
};

// Outputs 0..count-1 of a LOOP / SCAN: the values its body carried to the end.
Status emit_held(OpContext* ctx, const std::vector<Held>& held, int count) {
  for (int i = 0; i < count; ++i) {
    const Held& h = held[static_cast<size_t>(i)];
    TensorRef value;
    value.dtype = h.dtype;
    value.shape = h.shape;
    value.kind = h.sequence ? lite_fb::ValueKind::SEQUENCE : lite_fb::ValueKind::TENSOR;
    Status s = emit_output(ctx, i, value, h.buffer.data());
    if (s != Status::kOk) return s;
  }
  return Status::kOk;
}

bool same_shape(const Shape& a, const Shape& b) {
  if (a.rank != b.rank) return false;
  for (int d = 0; d < a.rank; ++d)
    if (a.dims[d] != b.dims[d]) return false;
  return true;
}

// Appends one iteration's value of a scan output; every iteration's must have the first one's shape.
Status append_scan(OpContext* ctx, Held& acc, int64_t iteration, const TensorRef& t, int k) {
  if (is_sequence(t))
    return fail(ctx, Status::kInvalidModel, "scan output %d '%s' is a sequence or optional; scan outputs stack tensors",
                k, t.name);
  if (iteration == 0) {
    acc.dtype = t.dtype;
    acc.shape = t.shape;
  } else if (!same_shape(acc.shape, t.shape) || acc.dtype != t.dtype) {
    return fail(ctx, Status::kShapeError, "scan output %d is %s in iteration %lld, %s before", k,
                format_shape(t.shape).c_str(), static_cast<long long>(iteration), format_shape(acc.shape).c_str());
  }
  if (t.shape.rank >= kMaxRank) return fail(ctx, Status::kShapeError, "scan output %d has rank %d", k, t.shape.rank);
  return acc.append(ctx, t, "a scan output");
}

// ---- LOOP ----------------------------------------------------------------------------------------

Status loop_prepare(OpContext* ctx) {
  const lite_fb::LoopOptions* o = ctx->op->options_as_LoopOptions();
  const TensorRef* trip = ctx->input(0);
  const TensorRef* cond = ctx->input(1);
  if (trip != nullptr && (trip->dtype != DType::INT64 || trip->shape.num_elements() != 1))
    return fail(ctx, Status::kInvalidModel, "the trip count must be one INT64 value");
  if (cond != nullptr && (cond->dtype != DType::BOOL || cond->shape.num_elements() != 1))
    return fail(ctx, Status::kInvalidModel, "the condition must be one BOOL value");
  for (int i = 2; i < ctx->num_inputs; ++i)
    if (ctx->inputs[i] == nullptr) return fail(ctx, Status::kInvalidModel, "input %d is absent", i);
  Interpreter* body = nullptr;
  Status s = get_body(ctx, 0, o->body_subgraph(), &body);
  if (s != Status::kOk) return s;
  ctx->outputs_dynamic = true;  // scan outputs follow the trip count; carried shapes may change
  return Status::kOk;
}

Status loop_eval(OpContext* ctx) {
  const lite_fb::LoopOptions* o = ctx->op->options_as_LoopOptions();
  const int subgraph = o->body_subgraph();
  const int carried = o->num_carried();
  const int scans = ctx->num_outputs - carried;
  Interpreter* body = nullptr;
  Status s = get_body(ctx, 0, subgraph, &body);
  if (s != Status::kOk) return s;
  int64_t max_trip = INT64_MAX;
  if (ctx->inputs[0] != nullptr) std::memcpy(&max_trip, ctx->inputs[0]->data, sizeof(max_trip));
  bool cond = ctx->inputs[1] == nullptr || read_bool(*ctx->inputs[1]);
  std::vector<Held> state(static_cast<size_t>(carried));
  for (int i = 0; i < carried; ++i) {
    s = state[static_cast<size_t>(i)].set(ctx, *ctx->inputs[2 + i], "a loop-carried value");
    if (s != Status::kOk) return s;
  }
  std::vector<Held> stacked(static_cast<size_t>(scans));
  int64_t iteration = 0;
  uint8_t cond_byte = 0;
  for (; iteration < max_trip && cond; ++iteration) {
    std::vector<Value> values;
    Value it_value{DType::INT64, Shape(), &iteration};
    cond_byte = 1;
    Value cond_value{DType::BOOL, Shape(), &cond_byte};
    values.push_back(it_value);
    values.push_back(cond_value);
    for (const Held& h : state) values.push_back(h.value());
    for (int i = 2 + carried; i < ctx->num_inputs; ++i) values.push_back(value_of(*ctx->inputs[i]));
    s = feed(ctx, body, subgraph, values, true, iteration == 0 ? SIZE_MAX : static_cast<size_t>(2 + carried));
    if (s == Status::kOk) s = run(ctx, body, subgraph);
    if (s != Status::kOk) return s;
    const TensorRef& cond_out = body->output_ref(0);
    if (cond_out.dtype != DType::BOOL || cond_out.shape.num_elements() != 1)
      return fail(ctx, Status::kInvalidModel, "the body's condition output must be one BOOL value");
    cond = read_bool(cond_out);
    for (int i = 0; i < carried; ++i) {
      s = state[static_cast<size_t>(i)].set(ctx, body->output_ref(1 + i), "a loop-carried value");
      if (s != Status::kOk) return s;
    }
    for (int k = 0; k < scans; ++k) {
      s = append_scan(ctx, stacked[static_cast<size_t>(k)], iteration, body->output_ref(1 + carried + k), k);
      if (s != Status::kOk) return s;
    }
  }
  s = emit_held(ctx, state, carried);
  if (s != Status::kOk) return s;
  for (int k = 0; k < scans; ++k) {
    Held& h = stacked[static_cast<size_t>(k)];
    TensorRef value;
    value.dtype = iteration > 0 ? h.dtype : ctx->outputs[carried + k]->dtype;
    // No iteration: [0] and the declared element dims (unknown ones 0).
    const Shape element = iteration > 0 ? h.shape : Shape{};
    value.shape.rank = element.rank + 1;
    value.shape.dims[0] = iteration;
    for (int d = 0; d < element.rank; ++d) value.shape.dims[d + 1] = element.dims[d];
    if (iteration == 0) {
      const Shape& declared = ctx->outputs[carried + k]->shape;
      value.shape.rank = declared.rank > 0 ? declared.rank : 1;
      for (int d = 1; d < value.shape.rank; ++d) value.shape.dims[d] = declared.dims[d] > 0 ? declared.dims[d] : 0;
    }
    s = emit_output(ctx, carried + k, value, h.buffer.data());
    if (s != Status::kOk) return s;
  }
  return Status::kOk;
}

// ---- SCAN ----------------------------------------------------------------------------------------

int list_at(const flatbuffers::Vector<int32_t>* v, int i) {
  return v != nullptr && static_cast<int>(v->size()) > i ? v->Get(static_cast<flatbuffers::uoffset_t>(i)) : 0;
}

Status scan_prepare(OpContext* ctx) {
  const lite_fb::ScanOptions* o = ctx->op->options_as_ScanOptions();
  const int state = o->num_state();
  int64_t length = -1;
  for (int j = 0; j < o->num_scan_inputs(); ++j) {
    const TensorRef* x = ctx->input(state + j);
    if (x == nullptr) return fail(ctx, Status::kInvalidModel, "scan input %d is absent", j);
    const int axis = list_at(o->scan_input_axes(), j);
    if (axis >= x->shape.rank)
      return fail(ctx, Status::kInvalidModel, "scan input %d: axis %d out of range for rank %d", j, axis,
                  x->shape.rank);
    if (length >= 0 && x->shape.dims[axis] != length)
      return fail(ctx, Status::kShapeError, "scan inputs have %lld and %lld steps", static_cast<long long>(length),
                  static_cast<long long>(x->shape.dims[axis]));
    length = x->shape.dims[axis];
  }
  for (int i = 0; i < ctx->num_inputs; ++i)
    if (ctx->inputs[i] == nullptr) return fail(ctx, Status::kInvalidModel, "input %d is absent", i);
  Interpreter* body = nullptr;
  Status s = get_body(ctx, 0, o->body_subgraph(), &body);
  if (s != Status::kOk) return s;
  ctx->outputs_dynamic = true;
  return Status::kOk;
}

// outer x steps x inner view of `t` around `axis`.
void split_around(const Shape& shape, int axis, int64_t* outer, int64_t* inner) {
  *outer = 1;
  *inner = 1;
  for (int d = 0; d < axis; ++d) *outer *= shape.dims[d];
  for (int d = axis + 1; d < shape.rank; ++d) *inner *= shape.dims[d];
}

Status scan_eval(OpContext* ctx) {
  const lite_fb::ScanOptions* o = ctx->op->options_as_ScanOptions();
  const int subgraph = o->body_subgraph();
  const int num_state = o->num_state();
  const int num_scan_in = o->num_scan_inputs();
  const int num_scan_out = ctx->num_outputs - num_state;
  Interpreter* body = nullptr;
  Status s = get_body(ctx, 0, subgraph, &body);
  if (s != Status::kOk) return s;
  std::vector<Held> state(static_cast<size_t>(num_state));
  for (int i = 0; i < num_state; ++i) {
    s = state[static_cast<size_t>(i)].set(ctx, *ctx->inputs[i], "a scan state");
    if (s != Status::kOk) return s;
  }
  const TensorRef& first = *ctx->inputs[num_state];
  const int64_t steps = first.shape.dims[list_at(o->scan_input_axes(), 0)];
  std::vector<Held> slices(static_cast<size_t>(num_scan_in));
  std::vector<Held> stacked(static_cast<size_t>(num_scan_out));
  for (int64_t t = 0; t < steps; ++t) {
    std::vector<Value> values;
    for (const Held& h : state) values.push_back(h.value());
    for (int j = 0; j < num_scan_in; ++j) {
      const TensorRef& x = *ctx->inputs[num_state + j];
      const int axis = list_at(o->scan_input_axes(), j);
      const int64_t at = list_at(o->scan_input_directions(), j) == 1 ? steps - 1 - t : t;
      int64_t outer, inner;
      split_around(x.shape, axis, &outer, &inner);
      Held& slice = slices[static_cast<size_t>(j)];
      slice.dtype = x.dtype;
      slice.shape.rank = x.shape.rank - 1;
      for (int d = 0, e = 0; d < x.shape.rank; ++d)
        if (d != axis) slice.shape.dims[e++] = x.shape.dims[d];
      const size_t elem = dtype_size(x.dtype);
      const size_t row = static_cast<size_t>(inner) * elem;
      s = slice.reserve(ctx, static_cast<size_t>(outer) * row, "a scan input slice");
      if (s != Status::kOk) return s;
      slice.used = static_cast<size_t>(outer) * row;
      for (int64_t p = 0; p < outer; ++p)
        copy_bytes(static_cast<uint8_t*>(slice.buffer.data()) + static_cast<size_t>(p) * row,
                    static_cast<const uint8_t*>(x.data) + (static_cast<size_t>(p * steps + at)) * row, row);
      values.push_back(slice.value());
    }
    for (int i = num_state + num_scan_in; i < ctx->num_inputs; ++i) values.push_back(value_of(*ctx->inputs[i]));
    s = feed(ctx, body, subgraph, values, true);
    if (s == Status::kOk) s = run(ctx, body, subgraph);
    if (s != Status::kOk) return s;
    for (int i = 0; i < num_state; ++i) {
      s = state[static_cast<size_t>(i)].set(ctx, body->output_ref(i), "a scan state");
      if (s != Status::kOk) return s;
    }
    for (int k = 0; k < num_scan_out; ++k) {
      s = append_scan(ctx, stacked[static_cast<size_t>(k)], t, body->output_ref(num_state + k), k);
      if (s != Status::kOk) return s;
    }
  }
  s = emit_held(ctx, state, num_state);
  if (s != Status::kOk) return s;
  for (int k = 0; k < num_scan_out; ++k) {
    const Held& h = stacked[static_cast<size_t>(k)];
    const int axis = list_at(o->scan_output_axes(), k);
    const bool reverse = list_at(o->scan_output_directions(), k) == 1;
    TensorRef* out = ctx->outputs[num_state + k];
    const Shape element = steps > 0 ? h.shape : Shape{};
    if (axis > element.rank)
      return fail(ctx, Status::kInvalidModel, "scan output %d: axis %d out of range for rank %d", k, axis,
                  element.rank + 1);
    out->dtype = steps > 0 ? h.dtype : out->dtype;
    out->shape.rank = element.rank + 1;
    for (int d = 0, e = 0; d < out->shape.rank; ++d) out->shape.dims[d] = d == axis ? steps : element.dims[e++];
    s = ctx->interpreter->allocate_output(ctx, num_state + k);
    if (s != Status::kOk) return s;
    int64_t outer, inner;
    split_around(out->shape, axis, &outer, &inner);
    const size_t row = static_cast<size_t>(inner) * dtype_size(out->dtype);
    for (int64_t t = 0; t < steps; ++t) {
      const int64_t at = reverse ? steps - 1 - t : t;
      for (int64_t p = 0; p < outer; ++p)
        copy_bytes(static_cast<uint8_t*>(out->data) + static_cast<size_t>(p * steps + at) * row,
                    static_cast<const uint8_t*>(h.buffer.data()) + static_cast<size_t>(t * outer + p) * row, row);
    }
  }
  return Status::kOk;
}

}  // namespace

OpKernel if_kernel() {
  OpKernel k;
  k.prepare = if_prepare;
  k.eval = if_eval;
  k.free_state = free_bodies;
  return k;
}

OpKernel loop_kernel() {
  OpKernel k;
  k.prepare = loop_prepare;
  k.eval = loop_eval;
  k.free_state = free_bodies;
  return k;
}

OpKernel scan_kernel() {
  OpKernel k;
  k.prepare = scan_prepare;
  k.eval = scan_eval;
  k.free_state = free_bodies;
  return k;
}

}  // namespace lite
