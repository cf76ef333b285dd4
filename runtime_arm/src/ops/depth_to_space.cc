// DEPTH_TO_SPACE: [N,H,W,C] -> [N,H*b,W*b,C/b^2]; SPACE_TO_DEPTH: [N,H,W,C] -> [N,H/b,W/b,C*b^2]
// (DepthToSpaceOptions: block_size, crd_mode). Any dtype: only elements move.
#include "lite_kernels/depth_to_space.h"
#include "op_api.h"
#include "op_util.h"

namespace lite {
namespace {

bool to_space(const OpContext* ctx) { return ctx->op->opcode() == lite_fb::OpCode::DEPTH_TO_SPACE; }

Status prepare(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (x == nullptr || y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one input and one output");
  if (x->shape.rank != 4) return fail(ctx, Status::kShapeError, "x must be [N,H,W,C], got rank %d", x->shape.rank);
  const lite_fb::DepthToSpaceOptions* o = ctx->op->options_as_DepthToSpaceOptions();
  if (o == nullptr || o->block_size() < 1) return fail(ctx, Status::kInvalidModel, "needs block_size >= 1");
  const int64_t b = o->block_size();
  const int64_t bb = b * b;  // b < 2^31: no overflow
  y->dtype = x->dtype;
  y->shape = x->shape;
  if (to_space(ctx)) {
    if (x->shape.dims[3] % bb != 0)
      return fail(ctx, Status::kShapeError, "channels %lld are not a multiple of block_size^2 = %lld",
                  static_cast<long long>(x->shape.dims[3]), static_cast<long long>(bb));
    if (!checked_mul_i64(x->shape.dims[1], b, &y->shape.dims[1]) ||
        !checked_mul_i64(x->shape.dims[2], b, &y->shape.dims[2]))
      return fail(ctx, Status::kShapeError, "block_size %lld is too large", static_cast<long long>(b));
    y->shape.dims[3] = x->shape.dims[3] / bb;
  } else {
    if (x->shape.dims[1] % b != 0 || x->shape.dims[2] % b != 0)
      return fail(ctx, Status::kShapeError, "height %lld and width %lld must be multiples of block_size %lld",
                  static_cast<long long>(x->shape.dims[1]), static_cast<long long>(x->shape.dims[2]),
                  static_cast<long long>(b));
    y->shape.dims[1] = x->shape.dims[1] / b;
    y->shape.dims[2] = x->shape.dims[2] / b;
    if (!checked_mul_i64(x->shape.dims[3], bb, &y->shape.dims[3]))
      return fail(ctx, Status::kShapeError, "block_size %lld is too large", static_cast<long long>(b));
  }
  if (!shape_within_limits(y->shape))
    return fail(ctx, Status::kShapeError, "block_size %lld makes the output too large", static_cast<long long>(b));
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  if (ctx->output(0)->shape.num_elements() == 0) return Status::kOk;  // the kernel walks the pixels regardless
  const lite_fb::DepthToSpaceOptions* o = ctx->op->options_as_DepthToSpaceOptions();
  const size_t n = static_cast<size_t>(x->shape.dims[0]), h = static_cast<size_t>(x->shape.dims[1]),
               w = static_cast<size_t>(x->shape.dims[2]), c = static_cast<size_t>(x->shape.dims[3]);
  const size_t b = static_cast<size_t>(o->block_size());
  const int crd = o->crd_mode() ? 1 : 0;
  if (to_space(ctx))
    lite_depth_to_space_nhwc_ref(n, h, w, c, b, crd, dtype_size(x->dtype), x->data, ctx->output(0)->data);
  else
    lite_space_to_depth_nhwc_ref(n, h, w, c, b, crd, dtype_size(x->dtype), x->data, ctx->output(0)->data);
  return Status::kOk;
}

}  // namespace

OpKernel depth_to_space_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  return k;
}

}  // namespace lite
