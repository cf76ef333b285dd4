// Interpreter::keep_transformed_weights: the packed-weight bound's greedy knapsack, run once per
// plan (its own file so that ARM builds compile it for size with the rest of the prepare-time code).
#include "interpreter.h"

namespace lite {

// Under a packed-weight bound the Winograd convolutions were prepared without their transformed
// weights and offered them (OpContext::kept_offer_bytes); with the plan and every other op's memory
// counted, the offers that save the most per byte are granted while they fit (a greedy knapsack over
// the layers) and their ops prepared again, keeping their copies (with a larger tile, more scratch).
Status Interpreter::keep_transformed_weights() {
  const size_t limit = memory_.transformed_limit(), before = memory_.used();
  size_t left = limit > before ? limit - before : 0;
  for (;;) {
    Node* best = nullptr;
    for (int k = 0; k < planned_end_; ++k) {
      Node& node = nodes_[static_cast<size_t>(k)];
      const OpContext& c = node.ctx;
      if (c.kept_offer_bytes == 0 || c.kept_offer_bytes > left || c.kept_granted || node.done_at_prepare ||
          node.backend != 0)
        continue;
      if (best == nullptr || c.kept_offer_saving * static_cast<double>(best->ctx.kept_offer_bytes) >
                                 best->ctx.kept_offer_saving * static_cast<double>(c.kept_offer_bytes))
        best = &node;
    }
    if (best == nullptr) break;
    left -= best->ctx.kept_offer_bytes;
    best->ctx.kept_granted = true;
    Status s = prepare_node(static_cast<int>(best - nodes_.data()));
    if (s != Status::kOk) return s;
    // (its offer counted any scratch beyond its run-time request, so the bound holds)
    const size_t need = best->ctx.scratch_bytes_requested, have = scratch_.size();
    if (need > have && (!memory_.reserve(need - have) || !scratch_.allocate(need, false)))
      return error_.set(Status::kOutOfMemory, "cannot allocate %zu bytes of op scratch", need);
    for (int k = 0; k < planned_end_; ++k) {
      Node& node = nodes_[static_cast<size_t>(k)];
      if (!node.done_at_prepare && node.ctx.scratch_bytes_requested > 0) node.ctx.scratch = scratch_.data();
    }
  }
  planned_memory_ += memory_.used() - before;
  memory_bytes_ = memory_.used();
  return Status::kOk;
}

}  // namespace lite
