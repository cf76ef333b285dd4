// PAD (ONNX Pad-18): pads (prepare-time ints, all begins then all ends, for every axis or for the
// optional `axes` input), constant value (optional scalar input), modes constant/reflect/edge/wrap.
#include <cstring>
#include <vector>

#include "lite_kernels/cast.h"
#include "lite_kernels/pad.h"
#include "op_helpers.h"
#include "tensor_ops.h"

namespace lite {
namespace {

struct PadAmounts {
  int64_t begin[kMaxRank] = {};
  int64_t end[kMaxRank] = {};
};

Status read_pads(OpContext* ctx, PadAmounts* pads) {
  const int rank = ctx->input(0)->shape.rank;
  std::vector<int64_t> values, axes;
  Status s = read_shape_input(ctx, 1, "pads", &values);
  if (s != Status::kOk) return s;
  if (ctx->input(3) != nullptr) {
    s = read_shape_input(ctx, 3, "axes", &axes);
    if (s != Status::kOk) return s;
  } else {
    for (int d = 0; d < rank; ++d) axes.push_back(d);
  }
  if (values.size() != 2 * axes.size())
    return fail(ctx, Status::kInvalidModel, "%zu pads for %zu axes (need two per axis)", values.size(), axes.size());
  const size_t n = axes.size();
  for (size_t i = 0; i < n; ++i) {
    int axis;
    if (!normalize_axis(axes[i], rank, &axis))
      return fail(ctx, Status::kInvalidModel, "axis %lld is out of range for rank %d", static_cast<long long>(axes[i]),
                  rank);
    const int64_t dim = ctx->input(0)->shape.dims[axis];
    for (int64_t pad : {values[i], values[n + i]}) {
      // A pad may crop at most the whole axis and add at most kMaxOpDim: beyond that the output
      // cannot exist, and the bound keeps dim + begin + end and the kernel's index math in range.
      if (pad < -dim || pad > kMaxOpDim)
        return fail(ctx, Status::kShapeError, "pad %lld on axis %d of size %lld is out of range [%lld, %lld]",
                    static_cast<long long>(pad), axis, static_cast<long long>(dim), static_cast<long long>(-dim),
                    static_cast<long long>(kMaxOpDim));
    }
    pads->begin[axis] = values[i];
    pads->end[axis] = values[n + i];
  }
  return Status::kOk;
}

// Fills `bytes` bytes at dst with copies of one `elem`-byte value (all-zero values by memset).
void fill_bytes(char* dst, size_t bytes, const char* value, size_t elem, bool zero) {
  if (bytes == 0) return;
  if (zero) {
    std::memset(dst, 0, bytes);
    return;
  }
  const size_t first = elem < bytes ? elem : bytes;
  std::memcpy(dst, value, first);
  for (size_t done = first; done < bytes;) {  // doubling copies of what is already filled
    const size_t n = done < bytes - done ? done : bytes - done;
    std::memcpy(dst + done, dst, n);
    done += n;
  }
}

// CONSTANT mode without cropping, by whole rows: the axes after the last padded one are one
// contiguous block per index of that axis, so a row of the output is a filled head, one memcpy of
// the input row and a filled tail (a channel pad in NHWC: rows of C floats; in NCHW: one row per
// image). Returns false when a pad is negative (the reference path handles cropping).
bool pad_constant_rows(size_t elem, const Shape& in_shape, const PadAmounts& pads, const char* fill, const char* src,
                       char* dst) {
  const int rank = in_shape.rank;
  int last = -1;  // the last axis with a pad
  for (int d = 0; d < rank; ++d) {
    if (pads.begin[d] < 0 || pads.end[d] < 0) return false;
    if (pads.begin[d] != 0 || pads.end[d] != 0) last = d;
  }
  bool zero = true;
  for (size_t i = 0; i < elem; ++i) zero = zero && fill[i] == 0;
  size_t block = elem;  // bytes of one index of axis `last`
  for (int d = last + 1; d < rank; ++d) block *= static_cast<size_t>(in_shape.dims[d]);
  if (last < 0) {
    if (block > 0) std::memcpy(dst, src, block);
    return true;
  }
  const size_t head = static_cast<size_t>(pads.begin[last]) * block;
  const size_t body = static_cast<size_t>(in_shape.dims[last]) * block;
  const size_t tail = static_cast<size_t>(pads.end[last]) * block;
  const size_t row = head + body + tail;
  // Outer axes 0..last-1: walk the output's index; a row outside the input along any of them is all fill.
  int64_t out_dims[kMaxRank], idx[kMaxRank] = {};
  for (int d = 0; d < last; ++d) out_dims[d] = in_shape.dims[d] + pads.begin[d] + pads.end[d];
  for (;;) {
    bool inside = true;
    for (int d = 0; d < last; ++d)
      inside = inside && idx[d] >= pads.begin[d] && idx[d] < pads.begin[d] + in_shape.dims[d];
    if (inside) {
      fill_bytes(dst, head, fill, elem, zero);
      if (body > 0) std::memcpy(dst + head, src, body);
      fill_bytes(dst + head + body, tail, fill, elem, zero);
      src += body;  // the input rows are met in order
    } else {
      fill_bytes(dst, row, fill, elem, zero);
    }
    dst += row;
    int d = last - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < out_dims[d]) break;
      idx[d] = 0;
    }
    if (d < 0) return true;
  }
}

Status pad_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 2, 1);
  if (s != Status::kOk) return s;
  const TensorRef* x = ctx->input(0);
  PadAmounts pads;
  s = read_pads(ctx, &pads);
  if (s != Status::kOk) return s;
  const lite_fb::PadOptions* options = ctx->op->options_as_PadOptions();
  const lite_fb::PadMode mode = options != nullptr ? options->mode() : lite_fb::PadMode::CONSTANT;
  TensorRef* y = ctx->output(0);
  y->dtype = x->dtype;
  y->shape = x->shape;
  for (int d = 0; d < x->shape.rank; ++d) {
    y->shape.dims[d] = x->shape.dims[d] + pads.begin[d] + pads.end[d];  // in range: read_pads bounds the pads
    if (y->shape.dims[d] < 0)
      return fail(ctx, Status::kShapeError, "pads crop axis %d of %s below zero", d, ShapeText(x->shape).c_str());
    if (y->shape.dims[d] > kMaxOpDim)
      return fail(ctx, Status::kShapeError, "pads make axis %d of %s larger than %lld", d, ShapeText(x->shape).c_str(),
                  static_cast<long long>(kMaxOpDim));
    if (mode != lite_fb::PadMode::CONSTANT && x->shape.dims[d] == 0 && y->shape.dims[d] > 0)
      return fail(ctx, Status::kShapeError, "%s padding of the empty axis %d", lite_fb::EnumNamePadMode(mode), d);
  }
  if (!shape_within_limits(y->shape))
    return fail(ctx, Status::kShapeError, "padding %s gives %s, over %lld elements", ShapeText(x->shape).c_str(),
                ShapeText(y->shape).c_str(), static_cast<long long>(kMaxOpDim));
  const TensorRef* value = ctx->input(2);
  if (value != nullptr && value->shape.num_elements() > 1)
    return fail(ctx, Status::kInvalidModel, "constant_value must be a scalar");
  if (value != nullptr && dtype_size(value->dtype) == 0)
    return fail(ctx, Status::kInvalidModel, "constant_value has an unknown dtype");
  return Status::kOk;
}

Status pad_eval(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (y->shape.num_elements() == 0) return Status::kOk;
  PadAmounts pads;
  Status s = read_pads(ctx, &pads);
  if (s != Status::kOk) return s;
  const lite_fb::PadOptions* options = ctx->op->options_as_PadOptions();
  const int mode = static_cast<int>(options != nullptr ? options->mode() : lite_fb::PadMode::CONSTANT);
  // The constant, converted to x's dtype (ONNX requires the same dtype; converting costs nothing).
  uint64_t fill = 0;
  const TensorRef* value = ctx->input(2);
  if (value != nullptr && value->shape.num_elements() == 1)
    lite_cast_ref(static_cast<int>(value->dtype), static_cast<int>(x->dtype), value->data, &fill, 1);
  const size_t elem = dtype_size(x->dtype);
  if (mode == static_cast<int>(lite_fb::PadMode::CONSTANT) && elem <= sizeof fill &&
      pad_constant_rows(elem, x->shape, pads, reinterpret_cast<const char*>(&fill),
                        static_cast<const char*>(x->data), static_cast<char*>(y->data)))
    return Status::kOk;
  if (lite_pad_ref(dtype_size(x->dtype), x->shape.rank, x->shape.dims, pads.begin, pads.end, mode, &fill, x->data,
                   y->data) != 0)
    return fail(ctx, Status::kShapeError, "cannot pad shape %s in this mode", ShapeText(x->shape).c_str());
  return Status::kOk;
}

}  // namespace

OpKernel pad_kernel() {
  OpKernel k;
  k.prepare = pad_prepare;
  k.eval = pad_eval;
  return k;
}

}  // namespace lite
