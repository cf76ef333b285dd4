#include "arena_planner.h"

#include <algorithm>

#include "checked_math.h"

namespace lite {

namespace {

struct Placed {
  size_t offset;
  size_t bytes;
  int first_use;
  int last_use;
};

bool overlaps(const Placed& p, const ArenaRequest& r) {
  return p.first_use <= r.last_use && r.first_use <= p.last_use;
}

}  // namespace

bool plan_arena(const std::vector<ArenaRequest>& requests, size_t alignment, size_t max_total, ArenaPlan* plan) {
  size_t n = requests.size();
  std::vector<size_t> sizes(n);
  for (size_t i = 0; i < n; ++i)
    if (!checked_align_up(requests[i].bytes, alignment, &sizes[i])) return false;
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  // Largest first; among equals the earlier-used first, so plans are deterministic.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (sizes[a] != sizes[b]) return sizes[a] > sizes[b];
    return requests[a].first_use < requests[b].first_use;
  });

  plan->offsets.assign(n, 0);
  plan->total_bytes = 0;
  std::vector<Placed> placed;  // kept sorted by offset
  placed.reserve(n);
  for (size_t i : order) {
    const ArenaRequest& r = requests[i];
    size_t size = sizes[i];
    if (size == 0) continue;  // offset 0, touches nothing
    size_t cursor = 0;
    size_t best_offset = 0, best_gap = 0;
    bool found = false;
    for (const Placed& p : placed) {
      if (!overlaps(p, r)) continue;
      if (p.offset > cursor) {
        size_t gap = p.offset - cursor;
        if (gap >= size && (!found || gap < best_gap)) {
          found = true;
          best_gap = gap;
          best_offset = cursor;
        }
      }
      size_t end;
      if (!checked_add(p.offset, p.bytes, &end)) return false;
      cursor = std::max(cursor, end);
    }
    size_t offset = found ? best_offset : cursor;
    size_t end;
    if (!checked_add(offset, size, &end) || end > max_total) return false;
    plan->offsets[i] = offset;
    plan->total_bytes = std::max(plan->total_bytes, end);
    Placed entry{offset, size, r.first_use, r.last_use};
    auto it = std::upper_bound(placed.begin(), placed.end(), entry,
                               [](const Placed& a, const Placed& b) { return a.offset < b.offset; });
    placed.insert(it, entry);
  }
  return true;
}

}  // namespace lite
