// Reads Model.schema_version before the full flatbuffer verification, so that a file written by
// a newer schema is refused with "update the runtime" even if this runtime's verifier would
// reject its layout.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lite {

// False when the bytes are too malformed to locate the field; an absent field reads as 0.
bool peek_schema_version(const uint8_t* data, size_t size, uint32_t* version);

}  // namespace lite
