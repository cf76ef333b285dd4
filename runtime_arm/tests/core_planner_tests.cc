// The arena planner: no two tensors live at the same time overlap, offsets are aligned, memory is
// reused, alias groups share memory.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arena_planner.h"
#include "core_model_builder.h"
#include "core_test_framework.h"
#include "core_test_ops.h"
#include "interpreter.h"
#include "model.h"

using lite::ArenaPlan;
using lite::ArenaRequest;
using lite_fb::DType;
using lite_fb::OpCode;

namespace {

// The arena limit handed to the planner: 1 TiB where size_t is 64-bit, half the address space on
// 32-bit targets (armv7), where 1 << 40 does not fit.
constexpr size_t kArenaLimit = sizeof(size_t) >= 8 ? static_cast<size_t>(uint64_t{1} << 40) : SIZE_MAX / 2;

bool intervals_overlap(size_t a, size_t an, size_t b, size_t bn) { return a < b + bn && b < a + an; }

// Checks the planner's contract; returns an empty string or the first violation.
std::string check_plan(const std::vector<ArenaRequest>& r, const ArenaPlan& p, size_t alignment) {
  for (size_t i = 0; i < r.size(); ++i) {
    if (p.offsets[i] % alignment != 0) return "unaligned offset " + std::to_string(i);
    if (p.offsets[i] + r[i].bytes > p.total_bytes) return "request past the end " + std::to_string(i);
    for (size_t j = i + 1; j < r.size(); ++j) {
      bool live_together = r[i].first_use <= r[j].last_use && r[j].first_use <= r[i].last_use;
      if (live_together && r[i].bytes > 0 && r[j].bytes > 0 &&
          intervals_overlap(p.offsets[i], r[i].bytes, p.offsets[j], r[j].bytes))
        return "requests " + std::to_string(i) + " and " + std::to_string(j) + " overlap";
    }
  }
  return "";
}

}  // namespace

LITE_TEST(planner_reuses_memory_of_dead_tensors) {
  // A chain: each tensor is live from its producer to its consumer.
  std::vector<ArenaRequest> r = {{100, 0, 1}, {100, 1, 2}, {100, 2, 3}, {100, 3, 4}};
  ArenaPlan p;
  CHECK(lite::plan_arena(r, 64, kArenaLimit, &p));
  CHECK_MSG(check_plan(r, p, 64).empty(), "%s", check_plan(r, p, 64).c_str());
  CHECK_MSG(p.total_bytes == 256, "total %zu", p.total_bytes);  // two 128-byte slots ping-pong
}

LITE_TEST(planner_fills_gaps_best_fit) {
  // Big tensors at both ends of time, a small one in between can reuse the first's memory.
  std::vector<ArenaRequest> r = {{1000, 0, 1}, {1000, 1, 3}, {64, 2, 3}, {500, 3, 4}};
  ArenaPlan p;
  CHECK(lite::plan_arena(r, 64, kArenaLimit, &p));
  CHECK(check_plan(r, p, 64).empty());
  CHECK_MSG(p.total_bytes == 2048, "total %zu", p.total_bytes);
}

LITE_TEST(planner_random_requests_never_overlap) {
  uint64_t state = 12345;
  auto next = [&]() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);
  };
  for (int round = 0; round < 200; ++round) {
    std::vector<ArenaRequest> r(1 + next() % 60);
    size_t sum = 0;
    for (ArenaRequest& q : r) {
      q.bytes = next() % 5 == 0 ? 0 : next() % 5000;
      q.first_use = static_cast<int>(next() % 40);
      q.last_use = q.first_use + static_cast<int>(next() % 10);
      sum += (q.bytes + 63) / 64 * 64;
    }
    ArenaPlan p;
    CHECK(lite::plan_arena(r, 64, kArenaLimit, &p));
    std::string err = check_plan(r, p, 64);
    CHECK_MSG(err.empty(), "round %d: %s", round, err.c_str());
    CHECK(p.total_bytes <= sum);
  }
}

LITE_TEST(planner_refuses_overflowing_total) {
  std::vector<ArenaRequest> r = {{SIZE_MAX - 10, 0, 1}};
  ArenaPlan p;
  CHECK(!lite::plan_arena(r, 64, kArenaLimit, &p));
  std::vector<ArenaRequest> r2 = {{kArenaLimit / 2, 0, 1}, {kArenaLimit / 2, 0, 1}, {kArenaLimit / 2, 0, 1}};
  CHECK(!lite::plan_arena(r2, 64, kArenaLimit, &p));
}

// An interpreter-level check on a graph with branches and an alias: at every op, every arena
// tensor still needed (computed here from the graph, independently of the planner) occupies memory
// disjoint from every other, unless the two are an alias pair.
LITE_TEST(interpreter_plan_keeps_live_tensors_disjoint) {
  lite_test::ModelBuilder b;
  float two[1] = {2.0f};
  int64_t flat[2] = {-1, 6};
  int x = b.add_tensor("x", DType::FLOAT32, {4, 3});
  int one = b.add_constant("one", DType::FLOAT32, {1}, two, 4);
  int shape = b.add_constant("shape", DType::INT64, {2}, flat, sizeof(flat));
  std::vector<int> t;
  for (int i = 0; i < 9; ++i) {
    t.push_back(b.add_tensor("t" + std::to_string(i), DType::FLOAT32, {}));
    b.tensor(t.back()).has_shape = false;  // shapes left to the ops
  }
  b.add_op(OpCode::EXP, "e0", {x}, {t[0]});
  b.add_op(OpCode::ADD, "a1", {t[0], one}, {t[1]});
  b.add_op(OpCode::ADD, "a2", {t[1], t[0]}, {t[2]});      // t0 still live here
  b.add_op(OpCode::RESHAPE, "r3", {t[2], shape}, {t[3]});  // alias of t2
  b.add_op(OpCode::EXP, "e4", {t[3]}, {t[4]});
  b.add_op(OpCode::ADD, "a5", {t[4], t[3]}, {t[5]});
  b.add_op(OpCode::ADD, "a6", {t[5], one}, {t[6]});
  b.add_op(OpCode::ADD, "a7", {t[6], t[6]}, {t[7]});
  b.add_op(OpCode::RESHAPE, "r8", {x, shape}, {t[8]});      // graph input -> graph output: a copy
  b.inputs = {x};
  b.outputs = {t[7], t[5], t[8]};
  std::vector<uint8_t> bytes = b.finish();

  lite::ErrorSink sink;
  std::unique_ptr<lite::Model> model;
  CHECK(lite::Model::load_memory(bytes.data(), bytes.size(), true, lite_test::test_ops(), &model, &sink) ==
        lite::Status::kOk);
  std::unique_ptr<lite::Interpreter> it;
  CHECK(lite::Interpreter::create(model.get(), 1, {}, &it, &sink) == lite::Status::kOk);
  CHECK_MSG(it->allocate() == lite::Status::kOk, "%s", it->error().message().c_str());

  // Aliases share memory, except a graph output with a graph input.
  CHECK(it->tensor(t[3]).ref.data == it->tensor(t[2]).ref.data);
  CHECK(it->tensor(t[8]).ref.data != it->tensor(x).ref.data);

  // Lifetimes from the graph: [producer step, last use step]; inputs and outputs to the end.
  const lite_fb::Graph* g = model->graph();
  int n_ops = static_cast<int>(g->operators()->size());
  int end = n_ops + 1;
  int n = it->num_tensors();
  std::vector<int> first(static_cast<size_t>(n), -1), last(static_cast<size_t>(n), -1);
  first[static_cast<size_t>(x)] = 0;
  last[static_cast<size_t>(x)] = end;
  for (int k = 0; k < n_ops; ++k) {
    const lite_fb::Operator* op = g->operators()->Get(static_cast<flatbuffers::uoffset_t>(k));
    for (int32_t o : *op->outputs()) first[static_cast<size_t>(o)] = last[static_cast<size_t>(o)] = k + 1;
    for (int32_t i : *op->inputs()) last[static_cast<size_t>(i)] = std::max(last[static_cast<size_t>(i)], k + 1);
  }
  for (int32_t o : *g->outputs()) last[static_cast<size_t>(o)] = end;
  // An alias extends the lifetime of the memory it shares.
  auto same_memory = [&](int a, int c) { return it->tensor(a).ref.data == it->tensor(c).ref.data; };
  size_t total = 0;
  for (int i = 0; i < n; ++i) {
    const lite::TensorSlot& s = it->tensor(i);
    if (s.storage != lite::Storage::kArena) continue;
    CHECK(s.arena_offset % 64 == 0);
    CHECK(reinterpret_cast<uintptr_t>(s.ref.data) % 64 == 0);
    total += (s.ref.bytes() + 63) / 64 * 64;
    for (int j = i + 1; j < n; ++j) {
      const lite::TensorSlot& u = it->tensor(j);
      if (u.storage != lite::Storage::kArena || same_memory(i, j)) continue;
      bool live_together = first[static_cast<size_t>(i)] <= last[static_cast<size_t>(j)] &&
                           first[static_cast<size_t>(j)] <= last[static_cast<size_t>(i)];
      bool overlap = intervals_overlap(static_cast<size_t>(s.arena_offset), s.ref.bytes(),
                                       static_cast<size_t>(u.arena_offset), u.ref.bytes());
      CHECK_MSG(!(live_together && overlap), "tensors %s and %s overlap while live", s.ref.name, u.ref.name);
    }
  }
  CHECK_MSG(it->arena_bytes() < total, "arena %zu, sum %zu: no reuse", it->arena_bytes(), total);

  // And the values are right (computed independently here).
  float* xin = static_cast<float*>(it->tensor(x).ref.data);
  for (int i = 0; i < 12; ++i) xin[i] = 0.1f * static_cast<float>(i) - 0.5f;
  CHECK(it->invoke() == lite::Status::kOk);
  const float* y7 = static_cast<const float*>(it->tensor(t[7]).ref.data);
  const float* y5 = static_cast<const float*>(it->tensor(t[5]).ref.data);
  for (int i = 0; i < 12; ++i) {
    float t0 = std::exp(xin[i]);
    float t2 = (t0 + 2.0f) + t0;
    float t5 = std::exp(t2) + t2;
    float t7 = 2.0f * (t5 + 2.0f);
    CHECK(std::fabs(y5[i] - t5) <= 1e-5f * std::fabs(t5));
    CHECK(std::fabs(y7[i] - t7) <= 1e-5f * std::fabs(t7));
    CHECK(static_cast<const float*>(it->tensor(t[8]).ref.data)[i] == xin[i]);
  }
}
