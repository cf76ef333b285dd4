// Views a tensor as [outer, axis_len, inner] around one axis: the shape every single-axis op
// (softmax family, arg min/max, cumsum, top-k) hands to its kernel.
#pragma once

#include <cstddef>

#include "op_api.h"

namespace lite {

struct AxisSplit {
  size_t outer = 1;
  size_t axis_len = 1;
  size_t inner = 1;
};

// `axis` must already be normalized into [0, shape.rank).
inline AxisSplit split_at_axis(const Shape& shape, int axis) {
  AxisSplit s;
  for (int i = 0; i < shape.rank; ++i) {
    const size_t d = static_cast<size_t>(shape.dims[i]);
    if (i < axis)
      s.outer *= d;
    else if (i == axis)
      s.axis_len = d;
    else
      s.inner *= d;
  }
  return s;
}

}  // namespace lite
