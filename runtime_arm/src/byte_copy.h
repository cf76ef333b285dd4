// Byte copies that accept empty ranges. A zero-element tensor may have no buffer at all (data is
// null), and memcpy / memmove with a null pointer is undefined even for zero bytes, so every copy
// whose size comes from a runtime shape goes through these.
#pragma once

#include <cstddef>
#include <cstring>

namespace lite {

inline void copy_bytes(void* dst, const void* src, size_t bytes) {
  if (bytes > 0) std::memcpy(dst, src, bytes);
}

inline void move_bytes(void* dst, const void* src, size_t bytes) {
  if (bytes > 0) std::memmove(dst, src, bytes);
}

}  // namespace lite
