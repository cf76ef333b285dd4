// An int8 ADD / MUL whose second operand is one known value maps each of a's 256 possible bytes to
// one output byte: the op is a 256-entry table. Building that table by running the op's own
// reference kernel over all 256 bytes gives exactly the reference's outputs for every parameter set
// (including the rescales the vector plans do not cover, which otherwise run the scalar reference),
// and applying it is the table activations' byte gather: one pass, a shuffle per 16-64 bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "op_api.h"

namespace lite {

// True when b is a single value known at prepare (a scalar constant, any rank of ones).
inline bool is_known_scalar_int8(const TensorRef* b) {
  return b != nullptr && b->value_known && b->data != nullptr && b->shape.num_elements() == 1;
}

// table[q + 128] = reference(a = q, b = *b_value); `reference` has the ref kernels' signature
// (count, params, a, b, b_period, output).
template <typename Params>
void build_scalar_operand_table(void (*reference)(size_t, const Params*, const int8_t*, const int8_t*, size_t,
                                                  int8_t*),
                                const Params& params, int8_t b_value, int8_t table[256]) {
  int8_t every_byte[256];
  for (int q = -128; q <= 127; ++q) every_byte[q + 128] = static_cast<int8_t>(q);
  reference(256, &params, every_byte, &b_value, 1, table);
}

}  // namespace lite
