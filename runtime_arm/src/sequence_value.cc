// The buffer of a sequence / optional value (sequence_value.h).
#include "sequence_value.h"

#include <cstring>

#include "checked_math.h"

namespace lite {

namespace {

constexpr size_t kAlign = 8;

size_t entries_end(int64_t count) {
  return sizeof(SequenceHeader) + static_cast<size_t>(count) * sizeof(SequenceEntry);
}

}  // namespace

TensorRef SequenceView::element(int64_t i) const {
  const SequenceEntry& e = entries[i];
  TensorRef t;
  t.dtype = dtype;
  t.shape.rank = e.rank;
  for (int d = 0; d < e.rank; ++d) t.shape.dims[d] = e.dims[d];
  t.data = const_cast<uint8_t*>(base + e.offset);
  return t;
}

bool read_sequence_header(const TensorRef& t, SequenceView* view, const char** why) {
  const size_t bytes = t.data == nullptr ? 0 : t.bytes();
  if (bytes < sizeof(SequenceHeader)) {
    *why = "is not a sequence value (shorter than its header)";
    return false;
  }
  SequenceHeader h;
  std::memcpy(&h, t.data, sizeof(h));
  const size_t max_count = (bytes - sizeof(SequenceHeader)) / sizeof(SequenceEntry);
  if (h.magic != kSequenceMagic || h.kind < 1 || h.kind > 3 || h.has_value > 1 ||
      h.dtype != static_cast<uint8_t>(t.dtype) || h.count < 0 || static_cast<uint64_t>(h.count) > max_count ||
      (h.kind == 2 && h.count > 1) || (!h.has_value && h.count != 0)) {
    *why = "is not a valid sequence value (header)";
    return false;
  }
  view->kind = static_cast<lite_fb::ValueKind>(h.kind);
  view->has_value = h.has_value != 0;
  view->dtype = t.dtype;
  view->count = h.count;
  view->base = static_cast<const uint8_t*>(t.data);
  view->bytes = bytes;
  view->entries = reinterpret_cast<const SequenceEntry*>(view->base + sizeof(SequenceHeader));
  return true;
}

bool valid_sequence_entry(const SequenceView& view, int64_t i) {
  const SequenceEntry& e = view.entries[i];
  size_t elements = 0, need = 0;
  return e.rank >= 0 && e.rank <= kMaxRank && checked_num_elements(e.dims, e.rank, SIZE_MAX, &elements) &&
         checked_mul(elements, dtype_size(view.dtype), &need) && need == e.bytes &&
         e.offset >= entries_end(view.count) && e.offset % kAlign == 0 && e.offset <= view.bytes &&
         e.bytes <= view.bytes - e.offset;
}

bool read_sequence(const TensorRef& t, SequenceView* view, const char** why) {
  if (!read_sequence_header(t, view, why)) return false;
  for (int64_t i = 0; i < view->count; ++i)
    if (!valid_sequence_entry(*view, i)) {
      *why = "is not a valid sequence value (an element's entry)";
      return false;
    }
  return true;
}

bool sequence_bytes(const TensorRef* const* elements, int64_t count, size_t limit, size_t* bytes) {
  size_t total = entries_end(count);
  for (int64_t i = 0; i < count; ++i) {
    size_t aligned;
    if (!checked_align_up(elements[i]->bytes(), kAlign, &aligned) || !checked_add(total, aligned, &total))
      return false;
  }
  *bytes = total;
  return total <= limit;
}

void write_sequence(void* dst, size_t bytes, lite_fb::ValueKind kind, bool has_value, lite_fb::DType dtype,
                    const TensorRef* const* elements, int64_t count) {
  uint8_t* out = static_cast<uint8_t*>(dst);
  std::memset(out, 0, bytes);
  SequenceHeader h{kSequenceMagic, static_cast<uint8_t>(kind), static_cast<uint8_t>(has_value ? 1 : 0),
                   static_cast<uint8_t>(dtype), 0, count};
  std::memcpy(out, &h, sizeof(h));
  size_t offset = entries_end(count);
  for (int64_t i = 0; i < count; ++i) {
    const TensorRef& t = *elements[i];
    SequenceEntry e{};
    e.rank = t.shape.rank;
    for (int d = 0; d < t.shape.rank; ++d) e.dims[d] = t.shape.dims[d];
    e.offset = offset;
    e.bytes = t.bytes();
    std::memcpy(out + sizeof(SequenceHeader) + static_cast<size_t>(i) * sizeof(SequenceEntry), &e, sizeof(e));
    if (e.bytes > 0) std::memcpy(out + offset, t.data, e.bytes);
    offset += (e.bytes + kAlign - 1) / kAlign * kAlign;
  }
}

}  // namespace lite
