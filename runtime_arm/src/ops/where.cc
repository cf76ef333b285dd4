// WHERE: cond ? x : y with three-way numpy broadcasting, any element size.
#include "elementwise_ops.h"
#include "lite_kernels/where.h"
#include "op_helpers.h"

namespace lite {
namespace {

Status where_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 3, 1);
  if (s != Status::kOk) return s;
  const TensorRef* cond = ctx->input(0);
  const TensorRef* x = ctx->input(1);
  const TensorRef* y = ctx->input(2);
  if (cond->dtype != lite_fb::DType::BOOL)
    return fail(ctx, Status::kInvalidModel, "cond must be BOOL, not %s", dtype_name(cond->dtype));
  if (x->dtype != y->dtype)
    return fail(ctx, Status::kInvalidModel, "x and y dtypes differ: %s and %s", dtype_name(x->dtype),
                dtype_name(y->dtype));
  Shape xy, out;
  if (!broadcast_shapes(x->shape, y->shape, &xy) || !broadcast_shapes(cond->shape, xy, &out))
    return fail(ctx, Status::kShapeError, "shapes %s, %s and %s do not broadcast", ShapeText(cond->shape).c_str(),
                ShapeText(x->shape).c_str(), ShapeText(y->shape).c_str());
  TensorRef* o = ctx->output(0);
  o->dtype = x->dtype;
  o->shape = out;
  return Status::kOk;
}

Status where_eval(OpContext* ctx) {
  const TensorRef* cond = ctx->input(0);
  const TensorRef* x = ctx->input(1);
  const TensorRef* y = ctx->input(2);
  TensorRef* o = ctx->output(0);
  const Shape* shapes[3] = {&cond->shape, &x->shape, &y->shape};
  lite_bcast plan;
  if (!make_broadcast_plan(o->shape, shapes, 3, &plan))
    return fail(ctx, Status::kShapeError, "inputs do not broadcast to the output");
  lite_where_ref(&plan, static_cast<const uint8_t*>(cond->data), x->data, y->data, o->data, dtype_size(x->dtype));
  return Status::kOk;
}

}  // namespace

OpKernel where_op_kernel() {
  OpKernel k;
  k.prepare = where_prepare;
  k.eval = where_eval;
  return k;
}

}  // namespace lite
