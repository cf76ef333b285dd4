// ONNX sequences and optionals at run time. A value of a non-tensor kind (lite_fb::ValueKind) is
// one self-describing buffer: a header, one entry per element (dtype is the value's, shape and
// offset the element's), then the elements' bytes, each at an 8-byte aligned offset. Its tensor
// view keeps the file's element dtype and has shape [bytes / dtype size], so control flow, the
// memory bound and the C API carry it like any dynamic tensor. Every reader validates it first
// (read_sequence): a buffer a caller wrote by hand is an error, never an out-of-bounds read.
#pragma once

#include <cstddef>
#include <cstdint>

#include "op_api.h"

namespace lite {

constexpr uint32_t kSequenceMagic = 0x3151534cu;  // "LSQ1"

struct SequenceHeader {
  uint32_t magic;
  uint8_t kind;       // lite_fb::ValueKind
  uint8_t has_value;  // 0 only for an empty optional
  uint8_t dtype;      // every element's lite_fb::DType
  uint8_t reserved;
  int64_t count;
};

struct SequenceEntry {
  int32_t rank;
  int32_t reserved;
  int64_t dims[kMaxRank];
  uint64_t offset;  // from the start of the buffer
  uint64_t bytes;
};

// A validated view of a sequence / optional value.
struct SequenceView {
  lite_fb::ValueKind kind = lite_fb::ValueKind::SEQUENCE;
  bool has_value = true;
  lite_fb::DType dtype = lite_fb::DType::FLOAT32;
  int64_t count = 0;
  const SequenceEntry* entries = nullptr;
  const uint8_t* base = nullptr;
  size_t bytes = 0;  // of the whole value
  TensorRef element(int64_t i) const;  // element i (0 <= i < count) as a tensor view
};

// Validates `t` (a value of a non-tensor kind) into `view`; false with a reason in `why` otherwise.
bool read_sequence(const TensorRef& t, SequenceView* view, const char** why);

// The header alone (O(1)): for callers that read one element, which check it with
// valid_sequence_entry; reading a value of n elements one by one then costs O(n), not O(n^2).
bool read_sequence_header(const TensorRef& t, SequenceView* view, const char** why);
bool valid_sequence_entry(const SequenceView& view, int64_t i);

// Bytes of a value with these elements; false when over `limit`.
bool sequence_bytes(const TensorRef* const* elements, int64_t count, size_t limit, size_t* bytes);

// Writes the value into `dst` (sequence_bytes of it, zero-filled padding included).
void write_sequence(void* dst, size_t bytes, lite_fb::ValueKind kind, bool has_value, lite_fb::DType dtype,
                    const TensorRef* const* elements, int64_t count);

}  // namespace lite
