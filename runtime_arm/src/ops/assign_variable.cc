// ASSIGN_VARIABLE (TFLite ASSIGN_VARIABLE): copies input 1 into the variable tensor input 0 at this
// point of the op order; later readers of the variable, in this invoke and the next, see the value.
// The verifier guarantees input 0 is a variable (interpreter-owned memory, never a constant).
#include <cstring>

#include "../byte_copy.h"
#include "op_helpers.h"
#include "tensor_ops.h"

namespace lite {
namespace {

[[gnu::cold]] Status assign_variable_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 2, 0);
  if (s != Status::kOk) return s;
  const TensorRef* variable = ctx->input(0);
  const TensorRef* value = ctx->input(1);
  bool same_shape = variable->shape.rank == value->shape.rank;
  for (int d = 0; same_shape && d < value->shape.rank; ++d)
    same_shape = variable->shape.dims[d] == value->shape.dims[d];
  if (variable->dtype != value->dtype || !same_shape)
    return fail(ctx, Status::kShapeError, "the value %s %s does not fit the variable '%s' %s %s",
                dtype_name(value->dtype), ShapeText(value->shape).c_str(), variable->name,
                dtype_name(variable->dtype), ShapeText(variable->shape).c_str());
  return Status::kOk;
}

Status assign_variable_eval(OpContext* ctx) {
  const TensorRef* variable = ctx->input(0);
  const TensorRef* value = ctx->input(1);
  if (variable->data != value->data) move_bytes(variable->data, value->data, value->bytes());
  return Status::kOk;
}

}  // namespace

OpKernel assign_variable_kernel() {
  OpKernel k;
  k.prepare = assign_variable_prepare;
  k.eval = assign_variable_eval;
  return k;
}

}  // namespace lite
