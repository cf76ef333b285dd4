// Overflow-checked size arithmetic for every size derived from a model file or a user shape.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lite {

inline bool checked_mul(size_t a, size_t b, size_t* out) { return !__builtin_mul_overflow(a, b, out); }
inline bool checked_add(size_t a, size_t b, size_t* out) { return !__builtin_add_overflow(a, b, out); }

// Rounds `value` up to a multiple of `alignment` (a power of two); false on overflow.
inline bool checked_align_up(size_t value, size_t alignment, size_t* out) {
  size_t sum;
  if (!checked_add(value, alignment - 1, &sum)) return false;
  *out = sum & ~(alignment - 1);
  return true;
}

// Number of elements of `dims`; false when a dim is negative or the product of the non-zero dims
// exceeds `limit`. Zero dims are left out of that product so that an empty tensor cannot carry
// huge dims (a [0, 2^40, 2^40] shape would overflow every stride and partial product computed
// from it): every tensor that passes has all partial products of its dims within `limit`.
inline bool checked_num_elements(const int64_t* dims, int rank, size_t limit, size_t* out) {
  size_t nonzero = 1;
  bool empty = false;
  for (int i = 0; i < rank; ++i) {
    if (dims[i] < 0) return false;
    if (dims[i] == 0) {
      empty = true;
      continue;
    }
    // Compared before the cast: on 32-bit targets a dim of 2^32 or more would truncate (2^40 -> 0).
    if (static_cast<uint64_t>(dims[i]) > limit) return false;
    if (!checked_mul(nonzero, static_cast<size_t>(dims[i]), &nonzero) || nonzero > limit) return false;
  }
  *out = empty ? 0 : nonzero;
  return true;
}

}  // namespace lite
