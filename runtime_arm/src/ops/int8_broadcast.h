// The broadcasts the int8 ADD / MUL accept for their second operand b against a full-shape a: b's
// shape (right-aligned, missing leading dims = 1) is a's on a leading block of dims, 1 on a middle
// block and a's again on a trailing block. Then the output is `blocks` runs of `run` elements, run k
// reading b from offset k * `period` with period `period` (same shape: one run; scalar: period 1;
// [N, 1, 1, C] against [N, H, W, C]: N runs of H * W * C with period C).
#pragma once

#include <cstdint>

#include "op_api.h"

namespace lite {

struct Int8Broadcast {
  int64_t blocks = 1;  // runs
  int64_t run = 0;     // output elements per run
  int64_t period = 0;  // b elements per run (b repeats with this period inside a run)
};

inline bool int8_broadcast(const Shape& a, const Shape& b, Int8Broadcast* out) {
  if (b.rank > a.rank) return false;
  int64_t bdims[kMaxRank];
  const int pad = a.rank - b.rank;
  for (int d = 0; d < a.rank; ++d) bdims[d] = d < pad ? 1 : b.dims[d - pad];
  int d = 0;
  int64_t lead = 1, middle = 1, trail = 1;
  while (d < a.rank && bdims[d] == a.dims[d] && bdims[d] != 1) lead *= a.dims[d++];
  while (d < a.rank && bdims[d] == 1) middle *= a.dims[d++];
  for (; d < a.rank; ++d) {
    if (bdims[d] != a.dims[d]) return false;
    trail *= a.dims[d];
  }
  if (middle == 1) {  // no broadcast at all: one run over everything
    out->blocks = 1;
    out->run = lead * trail;
    out->period = lead * trail;
    return true;
  }
  out->blocks = lead;
  out->run = middle * trail;
  out->period = trail;
  return true;
}

}  // namespace lite
