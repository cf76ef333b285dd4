#include "schema_version.h"

#include <cstring>

namespace lite {

namespace {

template <typename T>
bool read_at(const uint8_t* data, size_t size, uint64_t offset, T* out) {
  if (offset > size || size - offset < sizeof(T)) return false;
  std::memcpy(out, data + offset, sizeof(T));  // little-endian hosts only, like the runtime
  return true;
}

}  // namespace

bool peek_schema_version(const uint8_t* data, size_t size, uint32_t* version) {
  uint32_t root;
  if (!read_at(data, size, 0, &root)) return false;
  int32_t to_vtable;
  if (!read_at(data, size, root, &to_vtable)) return false;
  int64_t vtable = static_cast<int64_t>(root) - to_vtable;
  if (vtable < 0) return false;
  uint16_t vtable_size;
  if (!read_at(data, size, static_cast<uint64_t>(vtable), &vtable_size)) return false;
  *version = 0;
  if (vtable_size < 6) return true;  // field 0 (schema_version) not in the vtable
  uint16_t field_offset;
  if (!read_at(data, size, static_cast<uint64_t>(vtable) + 4, &field_offset)) return false;
  if (field_offset == 0) return true;
  return read_at(data, size, static_cast<uint64_t>(root) + field_offset, version);
}

}  // namespace lite
