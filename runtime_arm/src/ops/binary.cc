// Elementwise binary ops (ADD ... PRELU): numpy broadcasting, fused activation on float32 outputs.
// POW may take an exponent of another dtype: it is converted to the base's dtype into scratch.
// FLOAT16 inputs are computed in float32 (scratch copies) and the result rounded back to half.
#include <cstring>
#include <new>

#include "elementwise_ops.h"
#include "lite_kernels/cast.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/elementwise_binary.h"
#include "lite_kernels/f32_vactivation.h"
#include "lite_kernels/f32_vbinary.h"
#include "op_helpers.h"
#include "thread_pool.h"

namespace lite {
namespace {

bool is_pow_with_other_exponent(const OpContext* ctx) {
  return ctx->op->opcode() == lite_fb::OpCode::POW && ctx->input(0)->dtype != ctx->input(1)->dtype;
}

// The dtype the kernel computes in: float32 for FLOAT16 inputs, the input dtype otherwise.
lite_fb::DType compute_dtype(lite_fb::DType dtype) {
  return dtype == lite_fb::DType::FLOAT16 ? lite_fb::DType::FLOAT32 : dtype;
}

// Scratch layout: [a as compute dtype][b as compute dtype][result as compute dtype], each part
// present only when a conversion is needed. Sizes are rounded up to 8 bytes.
struct ScratchParts {
  size_t a = 0, b = 0, out = 0;
  size_t total() const { return a + b + out; }
};

size_t round8(size_t n) { return (n + 7) & ~size_t{7}; }

ScratchParts scratch_parts(const OpContext* ctx, const Shape& out_shape, bool outputs_bool) {
  const TensorRef* a = ctx->input(0);
  const TensorRef* b = ctx->input(1);
  const lite_fb::DType dtype = compute_dtype(a->dtype);
  const size_t size = dtype_size(dtype);
  ScratchParts p;
  if (dtype != a->dtype) {
    p.a = round8(static_cast<size_t>(a->shape.num_elements()) * size);
    if (!outputs_bool) p.out = round8(static_cast<size_t>(out_shape.num_elements()) * size);
  }
  if (b->dtype != dtype) p.b = round8(static_cast<size_t>(b->shape.num_elements()) * size);
  return p;
}

// A fused PRELU takes its slopes from input 2: FLOAT32, one per channel (the output's last axis), as
// MediaPipe's residual blocks apply after their ADDs; input 2 means nothing without one.
Status check_activation(OpContext* ctx, const lite_fb::Activation* act, lite_fb::DType dtype, const Shape& out) {
  const bool prelu = act != nullptr && act->kind() == lite_fb::ActivationKind::PRELU;
  const TensorRef* slope = ctx->input(2);
  if (slope != nullptr && !prelu)
    return fail(ctx, Status::kInvalidModel, "input 2 (PRELU slopes) without a fused PRELU");
  if (act == nullptr || act->kind() == lite_fb::ActivationKind::NONE) return Status::kOk;
  const int kind = static_cast<int>(act->kind());
  if (kind < 0 || kind > static_cast<int>(lite_fb::ActivationKind::MAX))
    return fail(ctx, Status::kInvalidModel, "unknown fused activation kind %d", kind);
  if (prelu && (slope == nullptr || slope->dtype != lite_fb::DType::FLOAT32 || out.rank == 0 ||
                slope->shape.num_elements() != out.dims[out.rank - 1]))
    return fail(ctx, Status::kInvalidModel, "a fused PRELU needs input 2: FLOAT32 slopes, one per channel of %s",
                ShapeText(out).c_str());
  if (dtype != lite_fb::DType::FLOAT32)
    return fail(ctx, Status::kUnsupported, "a fused activation needs a FLOAT32 result, not %s", dtype_name(dtype));
  return Status::kOk;
}

// `op` of rows x channels values (`full`) and one value per channel (`per_channel`, the other operand):
// y = full op per_channel, or per_channel op full when `vector_first`. MediaPipe's blocks have 8-32
// channels, so a call of the vector rows per pixel is mostly call overhead: below kChannelTile / 2
// channels the per-channel values are repeated across a tile of whole rows and each call covers as
// many rows as fit (the same operation on every value, so the same results).
constexpr size_t kChannelTile = 256;

void per_channel_rows(lite_f32_vbinary_fn fn, int op, const float* full, const float* per_channel, bool vector_first,
                      size_t rows, size_t channels, float* y) {
  if (channels == 0) return;
  const size_t per = channels * 2 <= kChannelTile ? kChannelTile / channels : 1;  // rows per call
  float tile[kChannelTile];
  const float* repeated = per_channel;
  if (per > 1) {
    for (size_t r = 0; r < per; ++r) std::memcpy(tile + r * channels, per_channel, channels * sizeof(float));
    repeated = tile;
  }
  for (size_t r = 0; r < rows; r += per) {
    const size_t n = (rows - r < per ? rows - r : per) * channels;
    const float* x = full + r * channels;
    if (vector_first)
      fn(op, n, repeated, 1, x, 1, y + r * channels);
    else
      fn(op, n, x, 1, repeated, 1, y + r * channels);
  }
}

// The fused activation over rows x channels float32 values in place; PRELU by the vector PRELU rows,
// the same arithmetic as a PRELU op of its own.
void activate(const lite_activation& act, float* data, size_t rows, size_t channels) {
  if (act.kind != LITE_ACT_PRELU) {
    lite_f32_activate(&act, data, rows, channels);
    return;
  }
  per_channel_rows(lite_f32_vbinary_select(lite_cpu_features()), LITE_BIN_PRELU, data, act.prelu_slope, false, rows,
                   channels, data);
}

// Input `i` when it is one value per channel of `out` (every other dim 1) and the other input has the
// output's shape (leading 1s aside): the shape per_channel_rows computes. -1 otherwise.
int per_channel_operand(const Shape& out, const Shape& a, const Shape& b) {
  if (out.rank == 0) return -1;
  const int64_t channels = out.dims[out.rank - 1];
  const int64_t total = out.num_elements();
  if (channels < 2 || total <= channels) return -1;
  const Shape* in[2] = {&a, &b};
  for (int i = 0; i < 2; ++i) {
    const Shape& v = *in[i];
    const Shape& f = *in[1 - i];
    if (v.rank > 0 && v.dims[v.rank - 1] == channels && v.num_elements() == channels && f.num_elements() == total)
      return i;
  }
  return -1;
}

// float32 POW by a single exponent of 2.0 (read at eval: it may be computed) over a whole x.
bool is_square(int op, lite_fb::DType dtype, const TensorRef* a, const TensorRef* b, const TensorRef* y) {
  return op == LITE_BIN_POW && dtype == lite_fb::DType::FLOAT32 && b->dtype == lite_fb::DType::FLOAT32 &&
         b->shape.num_elements() == 1 && *static_cast<const float*>(b->data) == 2.0f &&
         y->shape.num_elements() == a->shape.num_elements();
}

// float32 ADD/SUB/MUL/DIV: the vectorized rows over the broadcast plan (the same IEEE results).
struct VectorRow {
  lite_f32_vbinary_fn fn;
  int op;
};

void vector_row(void* ctx, const void* const* in, const int* step, void* out, int64_t n) {
  const VectorRow* r = static_cast<const VectorRow*>(ctx);
  r->fn(r->op, static_cast<size_t>(n), static_cast<const float*>(in[0]), step[0], static_cast<const float*>(in[1]),
        step[1], static_cast<float*>(out));
}

// The float32 vector path on the pool: the output's outermost dim longer than 1 cut into row blocks of
// at least ~16K values, each a broadcast of its own sub-shapes (an input of extent 1 there is shared),
// followed by the fused activation on the block. Every value is computed as on one thread; the
// blocks follow the rows the producing ops wrote on each thread. False when there is one block.
bool run_vector_rows_on_pool(ThreadPool* pool, const VectorRow& row, const Shape& out, const Shape& a,
                             const Shape& b, const float* a_data, const float* b_data, const lite_activation& act,
                             float* y) {
  if (pool == nullptr || pool->num_threads() <= 1 || out.rank == 0 || act.kind == LITE_ACT_PRELU) return false;
  int axis = 0;
  while (axis + 1 < out.rank && out.dims[axis] == 1) ++axis;
  const size_t rows = static_cast<size_t>(out.dims[axis]);
  const size_t row_values = static_cast<size_t>(out.num_elements()) / (rows > 0 ? rows : 1);
  size_t per_task = 16384 / (row_values > 0 ? row_values : 1);
  if (per_task < 1) per_task = 1;
  const size_t tasks = (rows + per_task - 1) / per_task;
  if (tasks <= 1) return false;
  // Inputs right-aligned to the output's rank; an input's stride over `axis` (0 when broadcast there).
  Shape in[2] = {a, b};
  const Shape* given[2] = {&a, &b};
  int64_t stride[2];
  for (int i = 0; i < 2; ++i) {
    const int pad = out.rank - given[i]->rank;
    in[i].rank = out.rank;
    for (int d = 0; d < out.rank; ++d) in[i].dims[d] = d < pad ? 1 : given[i]->dims[d - pad];
    stride[i] = 1;
    for (int d = axis + 1; d < out.rank; ++d) stride[i] *= in[i].dims[d];
    if (in[i].dims[axis] == 1) stride[i] = 0;
  }
  parallel_for(pool, tasks, [&](size_t t, int) {
    const size_t begin = t * per_task, count = (begin + per_task < rows ? begin + per_task : rows) - begin;
    Shape sub_out = out, sub[2] = {in[0], in[1]};
    sub_out.dims[axis] = static_cast<int64_t>(count);
    for (int i = 0; i < 2; ++i)
      if (stride[i] != 0) sub[i].dims[axis] = static_cast<int64_t>(count);
    const Shape* shapes[2] = {&sub[0], &sub[1]};
    lite_bcast plan;
    if (!make_broadcast_plan(sub_out, shapes, 2, &plan)) return;  // cannot happen: the whole shapes broadcast
    const void* data[2] = {a_data + static_cast<int64_t>(begin) * stride[0],
                           b_data + static_cast<int64_t>(begin) * stride[1]};
    const size_t sizes[2] = {sizeof(float), sizeof(float)};
    float* block = y + begin * row_values;
    lite_bcast_run(&plan, data, sizes, block, sizeof(float), vector_row, const_cast<VectorRow*>(&row));
    lite_f32_activate(&act, block, 1, count * row_values);
  });
  return true;
}

// A float32 ADD whose input 0 is a constant-mode PAD along the last (channel) axis alone, read by this
// ADD only: MediaPipe's residual blocks (BlazeFace, hand recrop, palm) widen the shortcut that way, 24 ->
// 28 channels. The ADD takes the PAD over (absorb_producer): each output row is the pad value + b on
// the padded channels and x + b on the others, read straight from the PAD's input, so the padded
// tensor is never written (the same sums as ADD(PAD(x), b), in the same operand order).
struct BinaryState {
  const OpContext* pad = nullptr;  // the absorbed PAD; null when none
  size_t begin = 0;                // pad channels before x's channels
  size_t x_channels = 0;
  float fill = 0.0f;
};

// A PAD of x along the last axis of y only (begin, end >= 0), its fill value: false otherwise.
bool channel_pad(const OpContext* pad, const Shape& y, size_t* begin, float* fill) {
  if (pad->op->opcode() != lite_fb::OpCode::PAD || pad->input(3) != nullptr) return false;
  const lite_fb::PadOptions* options = pad->op->options_as_PadOptions();
  if (options != nullptr && options->mode() != lite_fb::PadMode::CONSTANT) return false;
  const TensorRef* x = pad->input(0);
  if (x == nullptr || x->dtype != lite_fb::DType::FLOAT32 || x->shape.rank != y.rank || y.rank == 0) return false;
  // The pads as the PAD read them at prepare (a constant: all begins, then all ends), x's channels
  // widened by begin + end; every other axis as it was.
  const TensorRef* pads = pad->input(1);
  if (pads == nullptr || pads->data == nullptr || pads->shape.num_elements() != 2 * y.rank ||
      (pads->dtype != lite_fb::DType::INT64 && pads->dtype != lite_fb::DType::INT32))
    return false;
  int64_t b = 0, e = 0;
  for (int i = 0; i < 2 * y.rank; ++i) {
    const int64_t v = pads->dtype == lite_fb::DType::INT64 ? static_cast<const int64_t*>(pads->data)[i]
                                                           : static_cast<const int32_t*>(pads->data)[i];
    if (i == y.rank - 1)
      b = v;
    else if (i == 2 * y.rank - 1)
      e = v;
    else if (v != 0)
      return false;
  }
  const int last = y.rank - 1;
  for (int d = 0; d < last; ++d)
    if (x->shape.dims[d] != y.dims[d]) return false;
  if (b < 0 || e < 0 || b + x->shape.dims[last] + e != y.dims[last]) return false;
  const TensorRef* value = pad->input(2);
  *fill = 0.0f;
  if (value != nullptr) {
    if (value->dtype != lite_fb::DType::FLOAT32 || value->shape.num_elements() != 1 || value->data == nullptr)
      return false;
    *fill = *static_cast<const float*>(value->data);
  }
  *begin = static_cast<size_t>(b);
  return true;
}

bool same_shape(const Shape& a, const Shape& b) {
  return a.rank == b.rank && std::memcmp(a.dims, b.dims, sizeof(int64_t) * static_cast<size_t>(a.rank)) == 0;
}

// The ADDs that may absorb a PAD get their (small) state at prepare: the int8 dispatch wrapper keeps
// the state prepare made, not one made later.
bool may_absorb_pad(const OpContext* ctx, const Shape& out) {
  return ctx->op->opcode() == lite_fb::OpCode::ADD && ctx->input(0)->dtype == lite_fb::DType::FLOAT32 &&
         ctx->input(1)->dtype == lite_fb::DType::FLOAT32 && same_shape(ctx->input(0)->shape, out) && same_shape(ctx->input(1)->shape, out) && out.num_elements() > 0;
}

bool absorb_producer(OpContext* ctx, OpContext* producer) {
  BinaryState* st = static_cast<BinaryState*>(ctx->state);
  const Shape& y = ctx->output(0)->shape;
  size_t begin = 0;
  float fill = 0.0f;
  if (st == nullptr || !channel_pad(producer, y, &begin, &fill)) return false;
  st->pad = producer;
  st->begin = begin;
  st->x_channels = static_cast<size_t>(producer->input(0)->shape.dims[y.rank - 1]);
  st->fill = fill;
  return true;
}

typedef float Float4 __attribute__((vector_size(16)));

// y = a + b over n values, four at a time in the compilers' generic vectors (rows of 8-96 channels:
// a call of the vector rows per row would cost more than the sums). kFill reads `fill` instead of a.
template <bool kFill>
inline void add_span(const float* a, float fill, const float* b, float* y, size_t n) {
  const Float4 splat = {fill, fill, fill, fill};
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    Float4 va = splat, vb;
    if (!kFill) std::memcpy(&va, a + i, sizeof va);
    std::memcpy(&vb, b + i, sizeof vb);
    va += vb;
    std::memcpy(y + i, &va, sizeof va);
  }
  for (; i < n; ++i) y[i] = (kFill ? fill : a[i]) + b[i];
}

// ADD(PAD(x), b) over rows [r0, r1) of `channels` values.
void padded_add_rows(const BinaryState& st, const float* x, const float* b, float* y, size_t channels, size_t r0,
                     size_t r1) {
  const size_t cx = st.x_channels, end = channels - st.begin - cx;
  for (size_t r = r0; r < r1; ++r) {
    const float* br = b + r * channels;
    float* yr = y + r * channels;
    add_span<true>(nullptr, st.fill, br, yr, st.begin);
    add_span<false>(x + r * cx, 0.0f, br + st.begin, yr + st.begin, cx);
    add_span<true>(nullptr, st.fill, br + st.begin + cx, yr + st.begin + cx, end);
  }
}

void padded_add(const OpContext* ctx, const BinaryState& st, const lite_activation& act) {
  const float* x = static_cast<const float*>(st.pad->input(0)->data);
  const float* b = static_cast<const float*>(ctx->input(1)->data);
  const Shape& shape = ctx->output(0)->shape;
  float* y = static_cast<float*>(ctx->output(0)->data);
  const size_t channels = static_cast<size_t>(shape.dims[shape.rank - 1]);
  const size_t rows = static_cast<size_t>(shape.num_elements()) / channels;
  size_t per_task = 16384 / channels;  // blocks of ~16K values on the pool, as the other rows
  if (per_task < 1) per_task = 1;
  parallel_for(ctx->pool, (rows + per_task - 1) / per_task, [&](size_t t, int) {
    const size_t r0 = t * per_task, r1 = r0 + per_task < rows ? r0 + per_task : rows;
    padded_add_rows(st, x, b, y, channels, r0, r1);
    activate(act, y + r0 * channels, r1 - r0, channels);
  });
}

Status binary_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 2, 1);
  if (s != Status::kOk) return s;
  const TensorRef* a = ctx->input(0);
  const TensorRef* b = ctx->input(1);
  const int op = static_cast<int>(ctx->op->opcode());
  const lite_fb::BinaryOptions* options = ctx->op->options_as_BinaryOptions();
  const int fmod = options != nullptr && options->fmod() ? 1 : 0;
  if (a->dtype != b->dtype && op != LITE_BIN_POW)
    return fail(ctx, Status::kInvalidModel, "input dtypes differ: %s and %s", dtype_name(a->dtype),
                dtype_name(b->dtype));
  if (!lite_binary_supported(op, static_cast<int>(compute_dtype(a->dtype)), fmod))
    return fail(ctx, Status::kUnsupported, "%s inputs are not supported%s", dtype_name(a->dtype),
                op == LITE_BIN_MOD && fmod == 0 ? " (with fmod = 0)" : "");
  if (is_pow_with_other_exponent(ctx) && (dtype_size(b->dtype) == 0 || b->dtype == lite_fb::DType::BOOL))
    return fail(ctx, Status::kUnsupported, "exponent dtype %s is not supported", dtype_name(b->dtype));
  Shape out;
  if (!broadcast_shapes(a->shape, b->shape, &out))
    return fail(ctx, Status::kShapeError, "shapes %s and %s do not broadcast", ShapeText(a->shape).c_str(),
                ShapeText(b->shape).c_str());
  if (op == LITE_BIN_PRELU && (out.rank != a->shape.rank ||
                               std::memcmp(out.dims, a->shape.dims, sizeof(int64_t) * out.rank) != 0))
    return fail(ctx, Status::kShapeError, "slope %s does not broadcast to x %s", ShapeText(b->shape).c_str(),
                ShapeText(a->shape).c_str());
  TensorRef* y = ctx->output(0);
  y->dtype = lite_binary_outputs_bool(op) ? lite_fb::DType::BOOL : a->dtype;
  y->shape = out;
  ctx->scratch_bytes_requested = scratch_parts(ctx, out, lite_binary_outputs_bool(op)).total();
  s = check_activation(ctx, options != nullptr ? options->activation() : nullptr, compute_dtype(y->dtype), out);
  if (s != Status::kOk || !may_absorb_pad(ctx, out)) return s;
  void* state = op_allocate(ctx, sizeof(BinaryState), "ADD state");
  if (state == nullptr) return Status::kOutOfMemory;
  ctx->state = new (state) BinaryState;
  return Status::kOk;
}

Status binary_eval(OpContext* ctx) {
  const TensorRef* a = ctx->input(0);
  const TensorRef* b = ctx->input(1);
  TensorRef* y = ctx->output(0);
  const int op = static_cast<int>(ctx->op->opcode());
  const lite_fb::BinaryOptions* options = ctx->op->options_as_BinaryOptions();
  const int fmod = options != nullptr && options->fmod() ? 1 : 0;
  const lite_fb::DType dtype = compute_dtype(a->dtype);
  const ScratchParts parts = scratch_parts(ctx, y->shape, lite_binary_outputs_bool(op));
  char* scratch = static_cast<char*>(ctx->scratch);
  const void* a_data = a->data;
  const void* b_data = b->data;
  void* out_data = y->data;
  if (parts.a > 0) {
    lite_cast_ref(static_cast<int>(a->dtype), static_cast<int>(dtype), a->data, scratch,
                  static_cast<size_t>(a->shape.num_elements()));
    a_data = scratch;
  }
  if (parts.b > 0) {
    if (lite_cast_ref(static_cast<int>(b->dtype), static_cast<int>(dtype), b->data, scratch + parts.a,
                      static_cast<size_t>(b->shape.num_elements())) != 0)
      return fail(ctx, Status::kUnsupported, "cannot convert input 1 from %s", dtype_name(b->dtype));
    b_data = scratch + parts.a;
  }
  if (parts.out > 0) out_data = scratch + parts.a + parts.b;
  const Shape* shapes[2] = {&a->shape, &b->shape};
  lite_bcast plan;
  if (!make_broadcast_plan(y->shape, shapes, 2, &plan))
    return fail(ctx, Status::kShapeError, "inputs do not broadcast to the output");
  const lite_activation act = to_kernel_activation(options != nullptr ? options->activation() : nullptr, ctx->input(2));
  const BinaryState* st = static_cast<const BinaryState*>(ctx->state);
  if (st != nullptr && st->pad != nullptr) {
    padded_add(ctx, *st, act);
    return Status::kOk;
  }
  const size_t channels = y->shape.rank > 0 ? static_cast<size_t>(y->shape.dims[y->shape.rank - 1]) : 1;
  // The fused activation runs afterwards over the whole float32 output, vectorized.
  const lite_activation none{LITE_ACT_NONE, 0.0f, 0.0f, nullptr};
  if (is_square(op, dtype, a, b, y)) {
    // x^2 as x * x on the vector rows (one rounding, as onnxruntime and LiteRT compute it; powf's
    // result is within an ulp of it): the power spectrum of audio front ends (openWakeWord's mel).
    lite_f32_vbinary_select(lite_cpu_features())(LITE_BIN_MUL, static_cast<size_t>(y->shape.num_elements()),
                                                 static_cast<const float*>(a_data), 1,
                                                 static_cast<const float*>(a_data), 1, static_cast<float*>(out_data));
  } else if (dtype == lite_fb::DType::FLOAT32 && lite_f32_vbinary_supports(op) && parts.total() == 0 &&
             (ctx->pool == nullptr || ctx->pool->num_threads() <= 1) &&
             per_channel_operand(y->shape, a->shape, b->shape) >= 0) {
    // One value per channel against a whole tensor (PRELU's slopes, a per-channel scale or shift) on
    // one thread: tiles of whole rows (per_channel_rows).
    const int vector = per_channel_operand(y->shape, a->shape, b->shape);
    const float* in[2] = {static_cast<const float*>(a_data), static_cast<const float*>(b_data)};
    per_channel_rows(lite_f32_vbinary_select(lite_cpu_features()), op, in[1 - vector], in[vector], vector == 0,
                     static_cast<size_t>(y->shape.num_elements()) / channels, channels, static_cast<float*>(out_data));
  } else if (dtype == lite_fb::DType::FLOAT32 && lite_f32_vbinary_supports(op)) {
    VectorRow row{lite_f32_vbinary_select(lite_cpu_features()), op};
    if (parts.total() == 0 &&
        run_vector_rows_on_pool(ctx->pool, row, y->shape, a->shape, b->shape, static_cast<const float*>(a_data),
                                static_cast<const float*>(b_data), act, static_cast<float*>(out_data)))
      return Status::kOk;
    const void* in[2] = {a_data, b_data};
    const size_t sizes[2] = {sizeof(float), sizeof(float)};
    lite_bcast_run(&plan, in, sizes, out_data, sizeof(float), vector_row, &row);
  } else if (lite_binary_ref(op, static_cast<int>(dtype), fmod, &plan, a_data, b_data, out_data, &none, channels) !=
             0) {
    return fail(ctx, Status::kUnsupported, "%s inputs are not supported", dtype_name(a->dtype));
  }
  if (dtype == lite_fb::DType::FLOAT32 && channels > 0)
    activate(act, static_cast<float*>(out_data), static_cast<size_t>(y->shape.num_elements()) / channels, channels);
  if (parts.out > 0)
    lite_cast_ref(static_cast<int>(dtype), static_cast<int>(y->dtype), out_data, y->data,
                  static_cast<size_t>(y->shape.num_elements()));
  return Status::kOk;
}

}  // namespace

OpKernel binary_op_kernel() {
  OpKernel k;
  k.prepare = binary_prepare;
  k.eval = binary_eval;
  k.free_state = std::free;
  k.absorb_producer = absorb_producer;
  return k;
}

}  // namespace lite
