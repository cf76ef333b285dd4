// Small helpers shared by op implementations: axis normalization, broadcasting, reading shape
// inputs, and converting the schema's Activation into the kernels' struct.
#pragma once

#include <cstdint>
#include <vector>

#include "lite_kernels/activation.h"
#include "op_api.h"

namespace lite {

// Maps a possibly negative axis into [0, rank); returns false when out of range.
inline bool normalize_axis(int64_t axis, int rank, int* out) {
  if (axis < -rank || axis >= rank) return false;
  *out = static_cast<int>(axis < 0 ? axis + rank : axis);
  return true;
}

// Numpy multidirectional broadcast of a and b into out; false when incompatible.
inline bool broadcast_shapes(const Shape& a, const Shape& b, Shape* out) {
  int rank = a.rank > b.rank ? a.rank : b.rank;
  if (rank > kMaxRank) return false;
  out->rank = rank;
  for (int i = 0; i < rank; ++i) {
    int ia = i - (rank - a.rank), ib = i - (rank - b.rank);
    int64_t da = ia >= 0 ? a.dims[ia] : 1, db = ib >= 0 ? b.dims[ib] : 1;
    if (da != db && da != 1 && db != 1) return false;
    out->dims[i] = da == 1 ? db : da;
  }
  return true;
}

// An optional input (weight, bias) that is absent or known at prepare time, so it can be packed then.
inline bool is_constant_or_absent(const TensorRef* t) { return t == nullptr || (t->value_known && t->data != nullptr); }

// y becomes an NHWC tensor [batch, h, w, channels] of `dtype` (the windowed ops' outputs).
inline void set_nhwc_output(TensorRef* y, lite_fb::DType dtype, size_t batch, size_t h, size_t w, size_t channels) {
  y->dtype = dtype;
  y->shape.rank = 4;
  y->shape.dims[0] = static_cast<int64_t>(batch);
  y->shape.dims[1] = static_cast<int64_t>(h);
  y->shape.dims[2] = static_cast<int64_t>(w);
  y->shape.dims[3] = static_cast<int64_t>(channels);
}

// Reads an integer tensor (INT32 or INT64) whose value is known at prepare time.
// Returns false when the value is not known yet or the dtype is not an integer type.
inline bool read_int_values(const TensorRef* t, std::vector<int64_t>* values) {
  if (t == nullptr || !t->value_known || t->data == nullptr) return false;
  int64_t n = t->shape.num_elements();
  values->resize(static_cast<size_t>(n));
  if (t->dtype == lite_fb::DType::INT64) {
    const int64_t* p = static_cast<const int64_t*>(t->data);
    for (int64_t i = 0; i < n; ++i) (*values)[i] = p[i];
  } else if (t->dtype == lite_fb::DType::INT32) {
    const int32_t* p = static_cast<const int32_t*>(t->data);
    for (int64_t i = 0; i < n; ++i) (*values)[i] = p[i];
  } else {
    return false;
  }
  return true;
}

// Values read from a model (shape-input entries, repeats, pads, sizes, option values) are
// untrusted: every op output is refused by the core above 2 GiB, so no output dim and no element
// count may exceed kMaxOpDim. Ops check a value against it before using it in arithmetic, and
// use the checked helpers below where several such values combine.
constexpr int64_t kMaxOpDim = int64_t{1} << 31;

// Overflow-checked int64 arithmetic; false (and *out unspecified) on overflow.
inline bool checked_add_i64(int64_t a, int64_t b, int64_t* out) { return !__builtin_add_overflow(a, b, out); }
inline bool checked_mul_i64(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }

// Whether `shape` is acceptable as an op output: every dim in [0, kMaxOpDim] and the product of
// the non-zero dims at most kMaxOpDim (the core's rule for every tensor), so num_elements(),
// strides and every partial product of its dims are free of overflow.
inline bool shape_within_limits(const Shape& shape) {
  if (shape.rank < 0 || shape.rank > kMaxRank) return false;
  int64_t nonzero = 1;
  for (int i = 0; i < shape.rank; ++i) {
    const int64_t d = shape.dims[i];
    if (d < 0 || d > kMaxOpDim) return false;
    if (d != 0 && (!checked_mul_i64(nonzero, d, &nonzero) || nonzero > kMaxOpDim)) return false;
  }
  return true;
}

inline lite_activation to_kernel_activation(const lite_fb::Activation* a, const TensorRef* prelu_slope) {
  lite_activation act{LITE_ACT_NONE, 0.0f, 0.0f, nullptr};
  if (a == nullptr) return act;
  act.kind = static_cast<int>(a->kind());
  act.alpha = a->alpha();
  act.beta = a->beta();
  if (act.kind == LITE_ACT_PRELU && prelu_slope != nullptr) act.prelu_slope = static_cast<const float*>(prelu_slope->data);
  return act;
}

}  // namespace lite
