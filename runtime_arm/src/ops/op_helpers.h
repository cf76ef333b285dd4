// Helpers shared by the elementwise and tensor op implementations: contiguous strides, broadcast
// plans from shapes, printable shapes for error messages, and reading prepare-time shape inputs
// with a clear error when their value is not known.
#pragma once

#include <cstdint>
#include <cstdio>
#include <vector>

#include "lite_kernels/broadcast.h"
#include "op_api.h"
#include "op_util.h"

namespace lite {

// Element strides of a contiguous tensor of `shape`.
inline void contiguous_strides(const Shape& shape, int64_t* strides) {
  int64_t s = 1;
  for (int d = shape.rank - 1; d >= 0; --d) {
    strides[d] = s;
    s *= shape.dims[d];
  }
}

// "[2, 3, 4]" into a caller buffer, for messages.
struct ShapeText {
  char text[160];
  explicit ShapeText(const Shape& s) {
    int n = std::snprintf(text, sizeof(text), "[");
    for (int i = 0; i < s.rank && n < static_cast<int>(sizeof(text)); ++i)
      n += std::snprintf(text + n, sizeof(text) - static_cast<size_t>(n), i ? ", %lld" : "%lld",
                         static_cast<long long>(s.dims[i]));
    if (n < static_cast<int>(sizeof(text))) std::snprintf(text + n, sizeof(text) - static_cast<size_t>(n), "]");
  }
  const char* c_str() const { return text; }
};

// Broadcast plan of `num` input shapes onto `out`; false when they do not broadcast.
inline bool make_broadcast_plan(const Shape& out, const Shape* const* inputs, int num, lite_bcast* plan) {
  int ranks[LITE_BCAST_MAX_INPUTS];
  const int64_t* dims[LITE_BCAST_MAX_INPUTS];
  for (int i = 0; i < num; ++i) {
    ranks[i] = inputs[i]->rank;
    dims[i] = inputs[i]->dims;
  }
  return lite_bcast_init(plan, out.rank, out.dims, num, ranks, dims) == 0;
}

// Reads shape input `index` (INT32/INT64) whose value must be known at prepare time.
inline Status read_shape_input(OpContext* ctx, int index, const char* what, std::vector<int64_t>* values) {
  const TensorRef* t = ctx->input(index);
  if (t == nullptr) return fail(ctx, Status::kInvalidModel, "missing input %d (%s)", index, what);
  if (t->dtype != lite_fb::DType::INT64 && t->dtype != lite_fb::DType::INT32)
    return fail(ctx, Status::kInvalidModel, "input %d (%s) must be INT64 or INT32, not %s", index, what,
                dtype_name(t->dtype));
  constexpr int64_t kMaxShapeInputValues = int64_t{1} << 20;  // far beyond any rank, pads or split count
  if (t->shape.num_elements() > kMaxShapeInputValues)
    return fail(ctx, Status::kInvalidModel, "input %d (%s) has %lld values (at most %lld)", index, what,
                static_cast<long long>(t->shape.num_elements()), static_cast<long long>(kMaxShapeInputValues));
  if (!read_int_values(t, values))
    return fail(ctx, Status::kUnsupported,
                "input %d (%s, tensor '%s') must have a value at prepare time (a constant or computed from "
                "shapes and constants), but it depends on tensor data",
                index, what, t->name);
  return Status::kOk;
}

// Reads one element of any numeric tensor as double (data must be valid); false for other dtypes.
inline bool read_scalar_as_double(const TensorRef* t, double* value) {
  if (t == nullptr || t->data == nullptr || t->shape.num_elements() < 1) return false;
  const void* p = t->data;
  switch (t->dtype) {
    case lite_fb::DType::FLOAT32: *value = *static_cast<const float*>(p); return true;
    case lite_fb::DType::FLOAT64: *value = *static_cast<const double*>(p); return true;
    case lite_fb::DType::INT8: *value = *static_cast<const int8_t*>(p); return true;
    case lite_fb::DType::UINT8: *value = *static_cast<const uint8_t*>(p); return true;
    case lite_fb::DType::INT16: *value = *static_cast<const int16_t*>(p); return true;
    case lite_fb::DType::UINT16: *value = *static_cast<const uint16_t*>(p); return true;
    case lite_fb::DType::INT32: *value = *static_cast<const int32_t*>(p); return true;
    case lite_fb::DType::UINT32: *value = *static_cast<const uint32_t*>(p); return true;
    case lite_fb::DType::INT64: *value = static_cast<double>(*static_cast<const int64_t*>(p)); return true;
    case lite_fb::DType::UINT64: *value = static_cast<double>(*static_cast<const uint64_t*>(p)); return true;
    default: return false;
  }
}

inline bool is_index_dtype(lite_fb::DType d) { return d == lite_fb::DType::INT32 || d == lite_fb::DType::INT64; }

// Common prologue: at least `min_inputs` present inputs and `num_outputs` outputs.
inline Status check_arity(OpContext* ctx, int min_inputs, int num_outputs) {
  for (int i = 0; i < min_inputs; ++i)
    if (ctx->input(i) == nullptr) return fail(ctx, Status::kInvalidModel, "input %d is missing", i);
  if (ctx->num_outputs < num_outputs)
    return fail(ctx, Status::kInvalidModel, "needs %d output(s), has %d", num_outputs, ctx->num_outputs);
  return Status::kOk;
}

}  // namespace lite
