// The elementwise op group's kernels (registered by register_elementwise.cc).
#pragma once

#include "op_api.h"

namespace lite {

OpKernel binary_op_kernel();  // ADD ... PRELU, comparisons and logical ops (binary.cc)
OpKernel unary_op_kernel();   // RELU ... SHRINK (unary.cc); IDENTITY is an alias op (reshape_family.cc)
OpKernel cast_op_kernel();    // cast.cc
OpKernel where_op_kernel();   // where.cc

}  // namespace lite
