// The broadcasts the int8 ADD / MUL accept for their second operand b against a full-shape a: b's
// shape (right-aligned, missing leading dims = 1) is a's on a leading block of dims, 1 on a middle
// block and a's again on a trailing block. Then the output is `blocks` runs of `run` elements, run k
// reading b from offset k * `period` with period `period` (same shape: one run; scalar: period 1;
// [N, 1, 1, C] against [N, H, W, C]: N runs of H * W * C with period C).
#pragma once

#include <cstdint>

#include "op_api.h"
#include "thread_pool.h"

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

// Runs f(a_offset, b_offset, b_period, count) over the output of `bc` in chunks of about 16K elements
// on the pool: a chunk of a repeating b holds whole periods (b read from its block's start), a chunk
// of a same-shape b reads b at its own offset. Each element is computed as in one call.
template <typename F>
void int8_broadcast_chunks(ThreadPool* pool, const Int8Broadcast& bc, const F& f) {
  const bool repeats = bc.period < bc.run;
  const int64_t period = bc.period > 0 ? bc.period : 1;
  int64_t chunk = repeats ? (16384 / period) * period : 16384;
  if (chunk < period && repeats) chunk = period;
  if (chunk < 1) chunk = 1;
  const int64_t chunks_per_block = bc.run > 0 ? (bc.run + chunk - 1) / chunk : 0;
  parallel_for(pool, static_cast<size_t>(bc.blocks * chunks_per_block), [&](size_t t, int) {
    const int64_t k = static_cast<int64_t>(t) / chunks_per_block;
    const int64_t begin = static_cast<int64_t>(t) % chunks_per_block * chunk;
    const int64_t count = bc.run - begin < chunk ? bc.run - begin : chunk;
    f(k * bc.run + begin, k * bc.period + (repeats ? 0 : begin), repeats ? bc.period : count, count);
  });
}

}  // namespace lite
