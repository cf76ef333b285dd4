// The memory one interpreter may commit for model-sized data (lite_interpreter_options.max_memory_bytes):
// the activation arena, op scratch, packed weights and other op state, prepare-time values. Every
// allocation whose size comes from the model or the caller's shapes is checked against it *before*
// it is made, so a hostile file is refused with a status instead of committing gigabytes.
#pragma once

#include <cstddef>

namespace lite {

// The default bound (lite_runtime.h: LITE_DEFAULT_MAX_MEMORY_BYTES): 1 GiB, several times what the
// PaddleOCR models need at 960x960, far below what a phone app can afford to lose to one model.
constexpr size_t kDefaultMaxMemoryBytes = size_t{1} << 30;

class MemoryBudget {
 public:
  size_t limit() const { return limit_; }
  size_t used() const { return used_; }
  void set_limit(size_t limit) { limit_ = limit; }
  // Forgets what was counted: the interpreter calls it when it re-plans (every op state, prepared
  // value, arena and scratch block is then released or about to be).
  void reset() { used_ = 0; }
  // lite_interpreter_options.packed_weight_ratio: ratio x the weight bytes, for all the interpreter
  // commits; under it ops offer copies of derived weights (OpContext::kept_offer_bytes) instead of
  // making them, and the interpreter grants them once the plan is counted (keep_transformed_weights).
  void set_transformed_limit(size_t bytes) { transformed_limit_ = bytes; }
  size_t transformed_limit() const { return transformed_limit_; }
  bool transformed_bounded() const { return transformed_limit_ != static_cast<size_t>(-1); }
  bool fits(size_t bytes) const { return used_ <= limit_ && bytes <= limit_ - used_; }
  // Counts `bytes` when they fit; false (nothing counted) when they do not.
  bool reserve(size_t bytes);
  // Forgets what was counted after the count was `used` (the interpreter's eager tail, re-run each
  // invoke after a control-flow op whose output shapes only its eval knows).
  void release_to(size_t used) {
    if (used < used_) used_ = used;
  }
  // `bytes` (at least 1) of uninitialized 64-byte aligned memory, counted; nullptr when they do not
  // fit (`over_limit` true) or the system has none. Release with std::free.
  void* allocate(size_t bytes, bool* over_limit);

 private:
  size_t limit_ = kDefaultMaxMemoryBytes;
  size_t used_ = 0;
  size_t transformed_limit_ = static_cast<size_t>(-1);  // no bound outside an interpreter (unit tests)
};

}  // namespace lite
