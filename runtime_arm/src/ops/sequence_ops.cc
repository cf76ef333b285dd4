// ONNX sequence and optional ops (SEQUENCE_CONSTRUCT .. OPTIONAL_GET_ELEMENT; docs/OPS.md,
// "Sequences and optionals"). Values of a non-tensor kind are buffers of sequence_value.h; every op
// that produces one (or a tensor whose shape only the data gives) has dynamic outputs, so the
// interpreter prepares it at invoke and counts the memory against max_memory_bytes.
#include <cstring>
#include <vector>

#include "../byte_copy.h"
#include "../interpreter.h"
#include "../sequence_value.h"
#include "tensor_ops.h"

namespace lite {

namespace {

using lite_fb::DType;
using lite_fb::OpCode;
using lite_fb::ValueKind;

bool is_sequence_kind(ValueKind k) { return k == ValueKind::SEQUENCE || k == ValueKind::OPTIONAL_SEQUENCE; }

const char* kind_name(ValueKind k) {
  switch (k) {
    case ValueKind::TENSOR: return "a tensor";
    case ValueKind::SEQUENCE: return "a sequence";
    case ValueKind::OPTIONAL_TENSOR: return "an optional tensor";
    case ValueKind::OPTIONAL_SEQUENCE: return "an optional sequence";
  }
  return "an unknown kind";
}

Status want_kind(OpContext* ctx, int i, bool want_sequence) {
  const TensorRef* t = ctx->input(i);
  if (t == nullptr) return fail(ctx, Status::kInvalidModel, "input %d is absent", i);
  if (is_sequence_kind(t->kind) != want_sequence)
    return fail(ctx, Status::kInvalidModel, "input %d '%s' is %s, the op takes %s", i, t->name, kind_name(t->kind),
                want_sequence ? "a sequence" : "a tensor");
  return Status::kOk;
}

Status view_of(OpContext* ctx, int i, SequenceView* view) {
  const char* why = "";
  if (!read_sequence(*ctx->inputs[i], view, &why)) return fail(ctx, Status::kInvalidArgument, "input %d '%s' %s", i,
                                                               ctx->inputs[i]->name, why);
  return Status::kOk;
}

// Output `o` as a value holding `elements` (its kind is the output's; `has_value` false: empty optional).
Status emit_value(OpContext* ctx, int o, const std::vector<const TensorRef*>& elements, bool has_value = true) {
  TensorRef* out = ctx->outputs[o];
  for (const TensorRef* e : elements)
    if (e->dtype != out->dtype)
      return fail(ctx, Status::kInvalidModel, "an element is %s, the sequence holds %s", dtype_name(e->dtype),
                  dtype_name(out->dtype));
  size_t bytes;
  if (!sequence_bytes(elements.data(), static_cast<int64_t>(elements.size()), Interpreter::kMaxTensorBytes, &bytes))
    return fail(ctx, Status::kOutOfMemory, "the sequence grows past 2 GiB");
  const ValueKind kind = out->kind == ValueKind::TENSOR ? ValueKind::SEQUENCE : out->kind;
  if (kind == ValueKind::OPTIONAL_TENSOR && elements.size() > 1)  // no reader takes such a value
    return fail(ctx, Status::kInvalidModel, "output %d '%s' is an optional tensor, the op makes a sequence of %zu",
                o, out->name, elements.size());
  out->shape.rank = 1;
  out->shape.dims[0] = static_cast<int64_t>(bytes / dtype_size(out->dtype));
  Status s = ctx->interpreter->allocate_output(ctx, o);
  if (s != Status::kOk) return s;
  write_sequence(out->data, bytes, kind, has_value, out->dtype, elements.data(), static_cast<int64_t>(elements.size()));
  return Status::kOk;
}

// Output `o` as a copy of tensor `t`.
Status emit_tensor(OpContext* ctx, int o, const TensorRef& t) {
  TensorRef* out = ctx->outputs[o];
  if (t.dtype != out->dtype)
    return fail(ctx, Status::kInvalidModel, "the value is %s, the model declares %s", dtype_name(t.dtype),
                dtype_name(out->dtype));
  out->shape = t.shape;
  Status s = ctx->interpreter->allocate_output(ctx, o);
  if (s == Status::kOk && t.bytes() > 0) std::memcpy(out->data, t.data, t.bytes());
  return s;
}

// A position input (INT32 / INT64, one element) in [-count, count - 1 + extra], made non-negative.
Status position(OpContext* ctx, int i, int64_t count, int64_t extra, int64_t fallback, int64_t* out) {
  const TensorRef* p = ctx->input(i);
  int64_t v = fallback;
  if (p != nullptr) {
    if (p->shape.num_elements() != 1 || (p->dtype != DType::INT64 && p->dtype != DType::INT32))
      return fail(ctx, Status::kInvalidModel, "the position must be one INT32 or INT64 value");
    if (p->dtype == DType::INT64) {
      std::memcpy(&v, p->data, sizeof(v));
    } else {
      int32_t v32;
      std::memcpy(&v32, p->data, sizeof(v32));
      v = v32;
    }
  }
  if (v < -count || v > count - 1 + extra)
    return fail(ctx, Status::kInvalidArgument, "position %lld is out of range for a sequence of %lld",
                static_cast<long long>(v), static_cast<long long>(count));
  *out = v < 0 ? v + count : v;
  return Status::kOk;
}

std::vector<const TensorRef*> pointers(const std::vector<TensorRef>& v) {
  std::vector<const TensorRef*> p;
  for (const TensorRef& t : v) p.push_back(&t);
  return p;
}

std::vector<TensorRef> elements_of(const SequenceView& v) {
  std::vector<TensorRef> e;
  for (int64_t i = 0; i < v.count; ++i) e.push_back(v.element(i));
  return e;
}

// ---- prepare: kinds, then dynamic outputs (static ones for LENGTH and HAS_ELEMENT) -------------

Status sequence_prepare(OpContext* ctx) {
  const OpCode op = ctx->op->opcode();
  Status s = Status::kOk;
  switch (op) {
    case OpCode::SEQUENCE_CONSTRUCT:
      for (int i = 0; s == Status::kOk && i < ctx->num_inputs; ++i) s = want_kind(ctx, i, false);
      break;
    case OpCode::SEQUENCE_INSERT:
      s = want_kind(ctx, 0, true);
      if (s == Status::kOk) s = want_kind(ctx, 1, false);
      break;
    case OpCode::SEQUENCE_AT:
    case OpCode::SEQUENCE_ERASE:
    case OpCode::SEQUENCE_LENGTH:
    case OpCode::CONCAT_FROM_SEQUENCE:
      s = want_kind(ctx, 0, true);
      break;
    case OpCode::SPLIT_TO_SEQUENCE:
      s = want_kind(ctx, 0, false);
      break;
    default:
      break;
  }
  if (s != Status::kOk) return s;
  if (ctx->num_outputs != 1) return fail(ctx, Status::kInvalidModel, "the op has one output");
  const bool value_out = op != OpCode::SEQUENCE_AT && op != OpCode::SEQUENCE_LENGTH &&
                         op != OpCode::CONCAT_FROM_SEQUENCE && op != OpCode::OPTIONAL_HAS_ELEMENT &&
                         op != OpCode::OPTIONAL_GET_ELEMENT;
  if (value_out && ctx->outputs[0]->kind == ValueKind::TENSOR)
    return fail(ctx, Status::kInvalidModel, "output 0 '%s' must be a sequence or optional", ctx->outputs[0]->name);
  // and the converse: ops that write a plain tensor (OPTIONAL_GET_ELEMENT of a tensor input passes it
  // through) into an output the file declares a sequence or optional would leave a value no reader of
  // that kind can read
  const TensorRef* in0 = ctx->input(0);
  const bool tensor_out = !value_out && (op != OpCode::OPTIONAL_GET_ELEMENT ||
                                         (in0 != nullptr && in0->kind == ValueKind::TENSOR));
  if (tensor_out && ctx->outputs[0]->kind != ValueKind::TENSOR)
    return fail(ctx, Status::kInvalidModel, "output 0 '%s' is %s, the op writes a tensor", ctx->outputs[0]->name,
                kind_name(ctx->outputs[0]->kind));
  if (op == OpCode::SEQUENCE_LENGTH || op == OpCode::OPTIONAL_HAS_ELEMENT) {
    ctx->outputs[0]->dtype = op == OpCode::SEQUENCE_LENGTH ? DType::INT64 : DType::BOOL;
    ctx->outputs[0]->shape = Shape();
    return Status::kOk;
  }
  ctx->outputs_dynamic = true;
  return Status::kOk;
}

// ---- eval ----------------------------------------------------------------------------------------

Status concat_from_sequence(OpContext* ctx, const SequenceView& v) {
  const lite_fb::SequenceOptions* o = ctx->op->options_as_SequenceOptions();
  const bool new_axis = o != nullptr && o->new_axis();
  if (v.count == 0) return fail(ctx, Status::kInvalidArgument, "the sequence is empty");
  if (ctx->outputs[0]->dtype != v.dtype)
    return fail(ctx, Status::kInvalidModel, "the sequence holds %s, the output is %s", dtype_name(v.dtype),
                dtype_name(ctx->outputs[0]->dtype));
  const TensorRef first = v.element(0);
  const int rank = first.shape.rank + (new_axis ? 1 : 0);
  int axis = o != nullptr ? o->axis() : 0;
  if (axis < -rank || axis >= rank || rank > kMaxRank || rank == 0)
    return fail(ctx, Status::kInvalidModel, "axis %d is out of range for rank %d", axis, rank);
  if (axis < 0) axis += rank;
  Shape out_shape;
  out_shape.rank = rank;
  for (int d = 0, e = 0; d < rank; ++d) out_shape.dims[d] = (new_axis && d == axis) ? 1 : first.shape.dims[e++];
  out_shape.dims[axis] = 0;
  for (int64_t i = 0; i < v.count; ++i) {
    const TensorRef t = v.element(i);
    bool same = t.shape.rank == first.shape.rank;
    for (int d = 0; same && d < t.shape.rank; ++d)
      same = (!new_axis && d == axis) || t.shape.dims[d] == first.shape.dims[d];
    if (!same)
      return fail(ctx, Status::kShapeError, "element %lld is %s, element 0 %s", static_cast<long long>(i),
                  format_shape(t.shape).c_str(), format_shape(first.shape).c_str());
    out_shape.dims[axis] += new_axis ? 1 : t.shape.dims[axis];
  }
  TensorRef* out = ctx->outputs[0];
  out->shape = out_shape;
  Status s = ctx->interpreter->allocate_output(ctx, 0);
  if (s != Status::kOk) return s;
  int64_t outer = 1;
  for (int d = 0; d < axis; ++d) outer *= out_shape.dims[d];
  const size_t elem = dtype_size(out->dtype);
  size_t out_row = static_cast<size_t>(out->shape.num_elements() / (outer > 0 ? outer : 1)) * elem;
  size_t at = 0;
  for (int64_t i = 0; i < v.count && outer > 0; ++i) {
    const TensorRef t = v.element(i);
    const size_t row = t.bytes() / static_cast<size_t>(outer);
    for (int64_t p = 0; p < outer; ++p)
      copy_bytes(static_cast<uint8_t*>(out->data) + static_cast<size_t>(p) * out_row + at,
                  static_cast<const uint8_t*>(t.data) + static_cast<size_t>(p) * row, row);
    at += row;
  }
  return Status::kOk;
}

// A sequence costs an entry per element even when every element is empty (a [10^9, 0] input holds no
// bytes): the piece count is bounded by max_memory_bytes before any per-piece bookkeeping exists.
Status check_piece_count(OpContext* ctx, int64_t pieces) {
  const uint64_t most = Interpreter::kMaxTensorBytes / sizeof(SequenceEntry);
  const bool fits = static_cast<uint64_t>(pieces) <= most &&
                    (ctx->memory == nullptr || ctx->memory->fits(static_cast<size_t>(pieces) * sizeof(SequenceEntry)));
  if (fits) return Status::kOk;
  return fail(ctx, Status::kOutOfMemory,
              "a sequence of %lld elements needs %zu bytes per element for its entries, over max_memory_bytes "
              "(%zu)",
              static_cast<long long>(pieces), sizeof(SequenceEntry),
              ctx->memory != nullptr ? ctx->memory->limit() : Interpreter::kMaxTensorBytes);
}

Status split_to_sequence(OpContext* ctx) {
  const lite_fb::SequenceOptions* o = ctx->op->options_as_SequenceOptions();
  const TensorRef& x = *ctx->inputs[0];
  const TensorRef* split = ctx->input(1);
  int axis = o != nullptr ? o->axis() : 0;
  if (axis < -x.shape.rank || axis >= x.shape.rank)
    return fail(ctx, Status::kInvalidModel, "axis %d is out of range for rank %d", axis, x.shape.rank);
  if (axis < 0) axis += x.shape.rank;
  const int64_t length = x.shape.dims[axis];
  std::vector<int64_t> sizes;
  bool squeeze = false;
  if (split == nullptr) {
    Status s = check_piece_count(ctx, length);
    if (s != Status::kOk) return s;
    sizes.assign(static_cast<size_t>(length), 1);
    squeeze = o == nullptr || o->keepdims() == false;
  } else {
    if ((split->dtype != DType::INT64 && split->dtype != DType::INT32) || split->shape.rank > 1)
      return fail(ctx, Status::kInvalidModel, "split must be an INT32 or INT64 scalar or 1-D tensor");
    auto at = [&](int64_t i) {
      if (split->dtype == DType::INT64) return static_cast<const int64_t*>(split->data)[i];
      return static_cast<int64_t>(static_cast<const int32_t*>(split->data)[i]);
    };
    if (split->shape.rank == 0) {
      const int64_t chunk = at(0);
      if (chunk <= 0) return fail(ctx, Status::kInvalidArgument, "split %lld must be positive", static_cast<long long>(chunk));
      Status s = check_piece_count(ctx, length / chunk + (length % chunk != 0 ? 1 : 0));
      if (s != Status::kOk) return s;
      for (int64_t done = 0; done < length; done += chunk) sizes.push_back(chunk < length - done ? chunk : length - done);
    } else {
      int64_t sum = 0;
      for (int64_t i = 0; i < split->shape.dims[0]; ++i) {
        const int64_t n = at(i);
        if (n < 0 || n > length - sum)
          return fail(ctx, Status::kInvalidArgument, "split sizes exceed the axis length %lld", static_cast<long long>(length));
        sizes.push_back(n);
        sum += n;
      }
      if (sum != length)
        return fail(ctx, Status::kInvalidArgument, "split sizes sum to %lld, the axis has %lld", static_cast<long long>(sum),
                    static_cast<long long>(length));
    }
  }
  // Elements are copied into one staging buffer, then into the value.
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= x.shape.dims[d];
  for (int d = axis + 1; d < x.shape.rank; ++d) inner *= x.shape.dims[d];
  const size_t elem = dtype_size(x.dtype);
  AlignedBuffer staging;
  if (x.bytes() > 0 && !staging.allocate(x.bytes(), false)) return fail(ctx, Status::kOutOfMemory, "out of memory");
  std::vector<TensorRef> parts;
  size_t offset = 0;
  int64_t start = 0;
  for (int64_t n : sizes) {
    TensorRef t;
    t.dtype = x.dtype;
    t.shape = x.shape;
    t.shape.dims[axis] = n;
    if (squeeze) {
      for (int d = axis; d + 1 < x.shape.rank; ++d) t.shape.dims[d] = x.shape.dims[d + 1];
      t.shape.rank -= 1;
    }
    t.data = static_cast<uint8_t*>(staging.data()) + offset;
    const size_t row = static_cast<size_t>(n * inner) * elem;
    for (int64_t p = 0; p < outer; ++p)
      copy_bytes(static_cast<uint8_t*>(t.data) + static_cast<size_t>(p) * row,
                  static_cast<const uint8_t*>(x.data) + (static_cast<size_t>(p * length + start) * static_cast<size_t>(inner)) * elem,
                  row);
    offset += static_cast<size_t>(outer) * row;
    start += n;
    parts.push_back(t);
  }
  return emit_value(ctx, 0, pointers(parts));
}

Status sequence_eval(OpContext* ctx) {
  const OpCode op = ctx->op->opcode();
  SequenceView v;
  const TensorRef* in0 = ctx->input(0);
  if (in0 != nullptr && in0->kind != ValueKind::TENSOR) {
    Status s = view_of(ctx, 0, &v);
    if (s != Status::kOk) return s;
  }
  switch (op) {
    case OpCode::SEQUENCE_CONSTRUCT: {
      std::vector<const TensorRef*> e(ctx->inputs, ctx->inputs + ctx->num_inputs);
      return emit_value(ctx, 0, e);
    }
    case OpCode::SEQUENCE_INSERT: {
      int64_t at;
      Status s = position(ctx, 2, v.count, 1, v.count, &at);
      if (s != Status::kOk) return s;
      std::vector<TensorRef> e = elements_of(v);
      e.insert(e.begin() + at, *ctx->inputs[1]);
      return emit_value(ctx, 0, pointers(e));
    }
    case OpCode::SEQUENCE_ERASE: {
      int64_t at;
      Status s = position(ctx, 1, v.count, 0, -1, &at);
      if (s != Status::kOk) return s;
      std::vector<TensorRef> e = elements_of(v);
      e.erase(e.begin() + at);
      return emit_value(ctx, 0, pointers(e));
    }
    case OpCode::SEQUENCE_AT: {
      int64_t at;
      Status s = position(ctx, 1, v.count, 0, 0, &at);
      return s != Status::kOk ? s : emit_tensor(ctx, 0, v.element(at));
    }
    case OpCode::SEQUENCE_LENGTH:
      std::memcpy(ctx->outputs[0]->data, &v.count, sizeof(v.count));
      return Status::kOk;
    case OpCode::CONCAT_FROM_SEQUENCE:
      return concat_from_sequence(ctx, v);
    case OpCode::SPLIT_TO_SEQUENCE:
      return split_to_sequence(ctx);
    case OpCode::OPTIONAL: {
      if (in0 == nullptr) return emit_value(ctx, 0, {}, false);
      if (in0->kind == ValueKind::TENSOR) return emit_value(ctx, 0, {in0});
      std::vector<TensorRef> e = elements_of(v);
      return emit_value(ctx, 0, pointers(e), v.has_value);
    }
    case OpCode::OPTIONAL_HAS_ELEMENT: {
      const uint8_t has = in0 == nullptr ? 0 : in0->kind == ValueKind::TENSOR ? 1 : v.has_value ? 1 : 0;
      std::memcpy(ctx->outputs[0]->data, &has, 1);
      return Status::kOk;
    }
    case OpCode::OPTIONAL_GET_ELEMENT: {
      if (in0 == nullptr) return fail(ctx, Status::kInvalidModel, "input 0 is absent");
      if (in0->kind == ValueKind::TENSOR) return emit_tensor(ctx, 0, *in0);
      if (!v.has_value) return fail(ctx, Status::kInvalidArgument, "input 0 '%s' is an empty optional", in0->name);
      if (ctx->outputs[0]->kind == ValueKind::TENSOR) {
        if (v.count != 1) return fail(ctx, Status::kInvalidModel, "input 0 '%s' holds a sequence, not a tensor", in0->name);
        return emit_tensor(ctx, 0, v.element(0));
      }
      std::vector<TensorRef> e = elements_of(v);
      return emit_value(ctx, 0, pointers(e));
    }
    default:
      return fail(ctx, Status::kInternal, "not a sequence op");
  }
}

}  // namespace

OpKernel sequence_kernel() {
  OpKernel k;
  k.prepare = sequence_prepare;
  k.eval = sequence_eval;
  return k;
}

}  // namespace lite
