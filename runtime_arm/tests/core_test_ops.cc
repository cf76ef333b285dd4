#include "core_test_ops.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <vector>

#include "ops/op_util.h"

namespace lite_test {

namespace {

using lite::OpContext;
using lite::Status;
using lite_fb::DType;

// Atomic: the threading test runs these ops from several interpreters at once.
std::atomic<int> g_eval_counts[1024];
std::atomic<int> g_live_states{0};

void count(const OpContext* ctx) { ++g_eval_counts[static_cast<int>(ctx->op->opcode())]; }

Status add_prepare(OpContext* ctx) {
  const lite::TensorRef* a = ctx->input(0);
  const lite::TensorRef* b = ctx->input(1);
  if (a == nullptr || b == nullptr || ctx->num_outputs != 1)
    return lite::fail(ctx, Status::kInvalidArgument, "needs 2 inputs and 1 output");
  if (a->dtype != b->dtype || (a->dtype != DType::FLOAT32 && a->dtype != DType::INT64))
    return lite::fail(ctx, Status::kInvalidArgument, "dtypes %s, %s", lite::dtype_name(a->dtype),
                      lite::dtype_name(b->dtype));
  bool same = a->shape.rank == b->shape.rank;
  for (int i = 0; same && i < a->shape.rank; ++i) same = a->shape.dims[i] == b->shape.dims[i];
  if (!same && b->shape.num_elements() != 1) return lite::fail(ctx, Status::kShapeError, "shapes differ");
  ctx->outputs[0]->dtype = a->dtype;
  ctx->outputs[0]->shape = a->shape;
  return Status::kOk;
}

Status add_eval(OpContext* ctx) {
  count(ctx);
  const lite::TensorRef* a = ctx->inputs[0];
  const lite::TensorRef* b = ctx->inputs[1];
  int64_t n = a->shape.num_elements(), nb = b->shape.num_elements();
  if (a->dtype == DType::FLOAT32) {
    const float* pa = static_cast<const float*>(a->data);
    const float* pb = static_cast<const float*>(b->data);
    float* out = static_cast<float*>(ctx->outputs[0]->data);
    for (int64_t i = 0; i < n; ++i) out[i] = pa[i] + pb[nb == 1 ? 0 : i];
  } else {
    const int64_t* pa = static_cast<const int64_t*>(a->data);
    const int64_t* pb = static_cast<const int64_t*>(b->data);
    int64_t* out = static_cast<int64_t*>(ctx->outputs[0]->data);
    for (int64_t i = 0; i < n; ++i) out[i] = pa[i] + pb[nb == 1 ? 0 : i];
  }
  return Status::kOk;
}

Status reshape_prepare(OpContext* ctx) {
  const lite::TensorRef* x = ctx->input(0);
  std::vector<int64_t> dims;
  if (x == nullptr || !lite::read_int_values(ctx->input(1), &dims))
    return lite::fail(ctx, Status::kInvalidArgument, "the shape input must be known at prepare time");
  if (dims.size() > static_cast<size_t>(lite::kMaxRank)) return lite::fail(ctx, Status::kShapeError, "rank");
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      infer = static_cast<int>(i);
    } else {
      known *= dims[i];
    }
  }
  if (infer >= 0 && known > 0) dims[static_cast<size_t>(infer)] = x->shape.num_elements() / known;
  lite::Shape s;
  s.rank = static_cast<int>(dims.size());
  for (int i = 0; i < s.rank; ++i) s.dims[i] = dims[static_cast<size_t>(i)];
  if (s.num_elements() != x->shape.num_elements())
    return lite::fail(ctx, Status::kShapeError, "cannot reshape %lld elements",
                      static_cast<long long>(x->shape.num_elements()));
  ctx->outputs[0]->dtype = x->dtype;
  ctx->outputs[0]->shape = s;
  return Status::kOk;
}

Status reshape_eval(OpContext* ctx) {
  count(ctx);
  if (ctx->outputs[0]->data != ctx->inputs[0]->data)
    std::memcpy(ctx->outputs[0]->data, ctx->inputs[0]->data, ctx->inputs[0]->bytes());
  return Status::kOk;
}

Status shape_prepare(OpContext* ctx) {
  ctx->outputs[0]->dtype = DType::INT64;
  ctx->outputs[0]->shape.rank = 1;
  ctx->outputs[0]->shape.dims[0] = ctx->inputs[0]->shape.rank;
  return Status::kOk;
}

Status shape_eval(OpContext* ctx) {
  count(ctx);
  int64_t* out = static_cast<int64_t*>(ctx->outputs[0]->data);
  for (int i = 0; i < ctx->inputs[0]->shape.rank; ++i) out[i] = ctx->inputs[0]->shape.dims[i];
  return Status::kOk;
}

Status prod_prepare(OpContext* ctx) {
  if (ctx->inputs[0]->dtype != DType::INT64) return lite::fail(ctx, Status::kInvalidArgument, "int64 only");
  ctx->outputs[0]->dtype = DType::INT64;
  ctx->outputs[0]->shape.rank = 1;
  ctx->outputs[0]->shape.dims[0] = 1;
  return Status::kOk;
}

Status prod_eval(OpContext* ctx) {
  count(ctx);
  const int64_t* in = static_cast<const int64_t*>(ctx->inputs[0]->data);
  int64_t p = 1;
  for (int64_t i = 0; i < ctx->inputs[0]->shape.num_elements(); ++i) p *= in[i];
  *static_cast<int64_t*>(ctx->outputs[0]->data) = p;
  return Status::kOk;
}

Status exp_prepare(OpContext* ctx) {
  ctx->outputs[0]->dtype = DType::FLOAT32;
  ctx->outputs[0]->shape = ctx->inputs[0]->shape;
  ctx->scratch_bytes_requested = ctx->inputs[0]->bytes();
  ctx->state = new int(0);
  ++g_live_states;
  return Status::kOk;
}

Status exp_eval(OpContext* ctx) {
  count(ctx);
  if (ctx->scratch_bytes_requested > 0 && ctx->scratch == nullptr)
    return lite::fail(ctx, Status::kInternal, "no scratch");
  const float* in = static_cast<const float*>(ctx->inputs[0]->data);
  float* tmp = static_cast<float*>(ctx->scratch);
  int64_t n = ctx->inputs[0]->shape.num_elements();
  for (int64_t i = 0; i < n; ++i) tmp[i] = std::exp(in[i]);
  if (n > 0) std::memcpy(ctx->outputs[0]->data, tmp, static_cast<size_t>(n) * sizeof(float));
  ++*static_cast<int*>(ctx->state);
  return Status::kOk;
}

void exp_free(void* state) {
  delete static_cast<int*>(state);
  --g_live_states;
}

Status identity_prepare(OpContext* ctx) {
  ctx->outputs[0]->dtype = ctx->inputs[0]->dtype;
  ctx->outputs[0]->shape = ctx->inputs[0]->shape;
  return Status::kOk;
}

Status sin_eval(OpContext* ctx) {
  count(ctx);
  return lite::fail(ctx, Status::kInternal, "sin exploded at %d", 42);
}

Status tan_prepare(OpContext* ctx) { return lite::fail(ctx, Status::kShapeError, "tan refuses rank %d", 3); }
Status cos_prepare(OpContext*) { return Status::kUnsupported; }
Status noop_eval(OpContext* ctx) {
  count(ctx);
  return Status::kOk;
}

lite::OpRegistry* build() {
  static lite::OpRegistry r;
  r.add(lite_fb::OpCode::ADD, {add_prepare, add_eval, nullptr, false});
  r.add(lite_fb::OpCode::RESHAPE, {reshape_prepare, reshape_eval, nullptr, true});
  r.add(lite_fb::OpCode::SHAPE, {shape_prepare, shape_eval, nullptr, false});
  r.add(lite_fb::OpCode::REDUCE_PROD, {prod_prepare, prod_eval, nullptr, false});
  r.add(lite_fb::OpCode::EXP, {exp_prepare, exp_eval, exp_free, false});
  r.add(lite_fb::OpCode::SIN, {identity_prepare, sin_eval, nullptr, false});
  r.add(lite_fb::OpCode::TAN, {tan_prepare, noop_eval, nullptr, false});
  r.add(lite_fb::OpCode::COS, {cos_prepare, noop_eval, nullptr, false});
  return &r;
}

}  // namespace

const lite::OpRegistry& test_ops() {
  static const lite::OpRegistry* r = build();
  return *r;
}

int eval_count(lite_fb::OpCode opcode) { return g_eval_counts[static_cast<int>(opcode)]; }
void reset_eval_counts() {
  for (std::atomic<int>& c : g_eval_counts) c = 0;
}
int live_states() { return g_live_states; }

}  // namespace lite_test
