// The tensor / data-movement op group's kernels (registered by register_tensor.cc).
#pragma once

#include "op_api.h"

namespace lite {

OpKernel concat_kernel();             // concat.cc
OpKernel split_kernel();              // split.cc
OpKernel slice_kernel();              // slice.cc
OpKernel reshape_kernel();            // reshape_family.cc: outputs alias input 0
OpKernel flatten_kernel();
OpKernel squeeze_kernel();
OpKernel unsqueeze_kernel();
OpKernel identity_kernel();
OpKernel transpose_kernel();          // transpose.cc
OpKernel pad_kernel();                // pad.cc
OpKernel gather_kernel();             // gather.cc
OpKernel gather_elements_kernel();
OpKernel gather_nd_kernel();
OpKernel scatter_elements_kernel();   // scatter.cc
OpKernel scatter_nd_kernel();
OpKernel shape_kernel();              // shape.cc
OpKernel size_kernel();
OpKernel expand_kernel();             // expand.cc
OpKernel tile_kernel();               // tile.cc
OpKernel range_kernel();              // range.cc
OpKernel constant_of_shape_kernel();  // constant_of_shape.cc
OpKernel one_hot_kernel();            // one_hot.cc
OpKernel trilu_kernel();              // trilu.cc
OpKernel if_kernel();                 // control_flow.cc: bodies run in child interpreters
OpKernel loop_kernel();
OpKernel scan_kernel();
OpKernel non_zero_kernel();           // non_zero.cc
OpKernel reverse_sequence_kernel();   // reverse_sequence.cc
OpKernel assign_variable_kernel();    // assign_variable.cc
OpKernel sequence_kernel();           // sequence_ops.cc: every op SEQUENCE_CONSTRUCT..OPTIONAL_GET_ELEMENT

}  // namespace lite
