// Offsets for the activation arena: tensors whose lifetimes do not overlap may share memory.
// Greedy by size (largest first, each into the best-fitting gap among the tensors live at the same
// time), the heuristic TFLite's planner uses; every offset is aligned.
#pragma once

#include <cstddef>
#include <vector>

namespace lite {

struct ArenaRequest {
  size_t bytes = 0;
  int first_use = 0;  // inclusive step range in which the memory must stay untouched
  int last_use = 0;
};

struct ArenaPlan {
  std::vector<size_t> offsets;  // one per request
  size_t total_bytes = 0;
};

// False when the total size overflows `max_total`.
bool plan_arena(const std::vector<ArenaRequest>& requests, size_t alignment, size_t max_total, ArenaPlan* plan);

}  // namespace lite
