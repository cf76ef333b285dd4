// SLICE's view of its input (ONNX Slice-13 clamping, negative starts and steps): shared by the CPU
// kernel (a strided copy) and the OpenCL backend (a strided gather between images).
#pragma once

#include <cstdint>

#include "op_api.h"

namespace lite {

struct SliceView {
  Shape out;
  int64_t offset = 0;              // elements from the input's start to the view's first element
  int64_t strides[kMaxRank] = {};  // element strides of the view
};

// The view of input 0 selected by the prepare-time starts / ends / axes / steps inputs; an error
// status (reported into ctx) for a malformed slice.
Status slice_view(OpContext* ctx, SliceView* view);

}  // namespace lite
