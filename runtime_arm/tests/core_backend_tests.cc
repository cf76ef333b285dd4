// The backend seam (backend.h) with a real second backend (core_test_backend.h): per-op placement
// in order of preference with the CPU taking the rest, border copies (how many, when, through the
// host), the backend's own memory, re-placement after a resize, declines and errors at prepare, op
// state following the placement, and outputs byte-identical to a CPU-only interpreter. The model_*
// tests do the same on real models given by LITE_TEST_MODELS (tests/test_backend_seam.py).
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core_model_builder.h"
#include "core_test_backend.h"
#include "core_test_framework.h"
#include "core_test_ops.h"
#include "interpreter.h"
#include "model.h"

using lite::Interpreter;
using lite::Model;
using lite::Status;
using lite_fb::DType;
using lite_fb::OpCode;
using lite_test::BackendStats;
using lite_test::ModelBuilder;
using lite_test::TestBackend;
using Claim = TestBackend::Claim;

namespace {

struct Pair {
  std::vector<uint8_t> bytes;
  std::unique_ptr<Model> model;
  std::unique_ptr<Interpreter> cpu;    // CPU only: the reference run
  std::unique_ptr<Interpreter> mixed;  // with the test backend(s) first
  std::string error;
};

bool load(const ModelBuilder& b, std::vector<std::unique_ptr<lite::Backend>> backends, Pair* out,
          int threads = 1) {
  out->bytes = b.finish();
  lite::ErrorSink sink;
  if (Model::load_memory(out->bytes.data(), out->bytes.size(), true, lite_test::test_ops(), &out->model, &sink) !=
          Status::kOk ||
      Interpreter::create(out->model.get(), threads, {}, &out->cpu, &sink) != Status::kOk ||
      Interpreter::create(out->model.get(), threads, {}, std::move(backends), &out->mixed, &sink) != Status::kOk) {
    out->error = sink.message();
    return false;
  }
  return true;
}

std::vector<std::unique_ptr<lite::Backend>> only(TestBackend::ClaimFn claim, BackendStats* stats,
                                                 const char* name = "test") {
  std::vector<std::unique_ptr<lite::Backend>> v;
  v.emplace_back(new TestBackend(lite_test::test_ops(), claim, stats, name));
  return v;
}

Claim claim_add(const lite::OpContext& ctx) { return ctx.op->opcode() == OpCode::ADD ? Claim::kYes : Claim::kNo; }
Claim claim_exp(const lite::OpContext& ctx) { return ctx.op->opcode() == OpCode::EXP ? Claim::kYes : Claim::kNo; }
Claim claim_add_exp(const lite::OpContext& ctx) {
  return ctx.op->opcode() == OpCode::ADD || ctx.op->opcode() == OpCode::EXP ? Claim::kYes : Claim::kNo;
}
Claim claim_nothing(const lite::OpContext&) { return Claim::kNo; }
// By shape: ADD with at least 4 output elements.
Claim claim_large_add(const lite::OpContext& ctx) {
  return ctx.op->opcode() == OpCode::ADD && ctx.outputs[0]->shape.num_elements() >= 4 ? Claim::kYes : Claim::kNo;
}
Claim decline_add_exp(const lite::OpContext& ctx) {
  return claim_add_exp(ctx) == Claim::kYes ? Claim::kDeclineAtPrepare : Claim::kNo;
}
Claim refuse_add(const lite::OpContext& ctx) {
  return ctx.op->opcode() == OpCode::ADD ? Claim::kFailAtPrepare : Claim::kNo;
}

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// Writes the same pseudo-random values in [-1, 1) into input i of both interpreters.
void fill_input(Pair& p, int i, uint32_t seed) {
  const lite::TensorRef& a = p.cpu->tensor(p.cpu->input_tensor(i)).ref;
  const lite::TensorRef& b = p.mixed->tensor(p.mixed->input_tensor(i)).ref;
  float* x = static_cast<float*>(a.data);
  for (int64_t k = 0; k < a.shape.num_elements(); ++k) {
    seed = seed * 1664525u + 1013904223u;
    x[k] = static_cast<float>(seed >> 8) / static_cast<float>(1 << 24) * 2.0f - 1.0f;
  }
  std::memcpy(b.data, a.data, a.bytes());
}

bool same_outputs(const Pair& p) {
  for (int o = 0; o < p.cpu->num_outputs(); ++o) {
    const lite::TensorRef& a = p.cpu->tensor(p.cpu->output_tensor(o)).ref;
    const lite::TensorRef& b = p.mixed->tensor(p.mixed->output_tensor(o)).ref;
    if (a.bytes() != b.bytes() || std::memcmp(a.data, b.data, a.bytes()) != 0) return false;
  }
  return true;
}

// x [8] -> t0 = x + 1 (test) -> t1 = exp(t0) (cpu) -> t2 = t1 + t0 (test) -> y = exp(t2) (cpu);
// outputs y and t2.
ModelBuilder zigzag_model(std::vector<int64_t> x_shape = {8}) {
  ModelBuilder b;
  float one = 1.0f;
  int x = b.add_tensor("x", DType::FLOAT32, x_shape);
  int c = b.add_constant("one", DType::FLOAT32, {1}, &one, 4);
  int t0 = b.add_tensor("t0", DType::FLOAT32, x_shape);
  int t1 = b.add_tensor("t1", DType::FLOAT32, x_shape);
  int t2 = b.add_tensor("t2", DType::FLOAT32, x_shape);
  int y = b.add_tensor("y", DType::FLOAT32, x_shape);
  b.add_op(OpCode::ADD, "add0", {x, c}, {t0});
  b.add_op(OpCode::EXP, "exp1", {t0}, {t1});
  b.add_op(OpCode::ADD, "add2", {t1, t0}, {t2});
  b.add_op(OpCode::EXP, "exp3", {t2}, {y});
  b.inputs = {x};
  b.outputs = {y, t2};
  return b;
}

}  // namespace

LITE_TEST(backend_places_ops_and_copies_at_borders) {
  BackendStats stats;
  {
    Pair p;
    CHECK_MSG(load(zigzag_model(), only(claim_add, &stats), &p), "%s", p.error.c_str());
    CHECK(p.mixed->op_backend(0) == -1);  // not planned yet
    CHECK_MSG(p.mixed->allocate() == Status::kOk, "%s", p.mixed->error().message().c_str());
    CHECK(p.cpu->allocate() == Status::kOk);
    CHECK(p.mixed->num_backends() == 2 && std::strcmp(p.mixed->backend(0).name(), "cpu") == 0 &&
          std::strcmp(p.mixed->backend(1).name(), "test") == 0);
    CHECK(p.mixed->op_backend(0) == 1 && p.mixed->op_backend(1) == 0 && p.mixed->op_backend(2) == 1 &&
          p.mixed->op_backend(3) == 0);
    // Test-backend tensors live in its own blocks; the host keeps copies only where needed.
    const int x = 0, t0 = 2, t1 = 3, t2 = 4;
    CHECK(stats.owns(p.mixed->backend_view(1, x).data));   // mirror of the graph input
    CHECK(stats.owns(p.mixed->backend_view(1, t0).data));  // produced there
    CHECK(stats.owns(p.mixed->backend_view(1, t1).data));  // mirror of a CPU output
    CHECK(stats.owns(p.mixed->backend_view(1, t2).data));
    CHECK(p.mixed->backend_view(1, 1).data == nullptr);     // the constant is read on the host
    CHECK(stats.live.size() == 4);
    for (int t : {t0, t2}) {
      CHECK(p.mixed->tensor(t).storage == lite::Storage::kArena && p.mixed->tensor(t).home == 1);
      CHECK(!stats.owns(p.mixed->tensor(t).ref.data));
    }
    // x up, t0 down (exp1 reads it), t1 up (add2 reads it), t2 down (exp3 and the graph output).
    CHECK(p.mixed->num_border_copies() == 4);
    for (int run = 1; run <= 3; ++run) {
      fill_input(p, 0, 17u * static_cast<uint32_t>(run));
      CHECK(p.cpu->invoke() == Status::kOk);
      CHECK_MSG(p.mixed->invoke() == Status::kOk, "%s", p.mixed->error().message().c_str());
      CHECK(stats.uploads == 2 * run && stats.downloads == 2 * run);
      CHECK(same_outputs(p));
    }
    CHECK(stats.bytes_copied == 3 * 4 * 8 * sizeof(float));
    CHECK(lite_test::live_states() == 4);  // the two EXP ops of each interpreter, all on the CPU
  }
  CHECK(stats.live.empty() && stats.allocations == 4);
  CHECK(lite_test::live_states() == 0);
}

LITE_TEST(backend_copies_a_tensor_once_for_several_readers) {
  // x is read by three test ops: one mirror, one upload per invoke; a and b never leave the backend.
  ModelBuilder b;
  float one = 1.0f;
  int x = b.add_tensor("x", DType::FLOAT32, {16});
  int c = b.add_constant("one", DType::FLOAT32, {1}, &one, 4);
  int a = b.add_tensor("a", DType::FLOAT32, {16});
  int bb = b.add_tensor("b", DType::FLOAT32, {16});
  int s = b.add_tensor("s", DType::FLOAT32, {16});
  int y = b.add_tensor("y", DType::FLOAT32, {16});
  b.add_op(OpCode::ADD, "a", {x, c}, {a});
  b.add_op(OpCode::ADD, "b", {x, x}, {bb});
  b.add_op(OpCode::ADD, "s", {a, bb}, {s});
  b.add_op(OpCode::ADD, "s_plus_x", {s, x}, {y});
  b.inputs = {x};
  b.outputs = {y};
  BackendStats stats;
  Pair p;
  CHECK_MSG(load(b, only(claim_add, &stats), &p), "%s", p.error.c_str());
  CHECK(p.mixed->allocate() == Status::kOk && p.cpu->allocate() == Status::kOk);
  CHECK(p.mixed->num_border_copies() == 2);
  for (int t : {a, bb, s}) {
    CHECK(p.mixed->tensor(t).storage == lite::Storage::kBackend && p.mixed->tensor(t).ref.data == nullptr);
  }
  for (int run = 1; run <= 2; ++run) {
    fill_input(p, 0, static_cast<uint32_t>(run));
    CHECK(p.cpu->invoke() == Status::kOk && p.mixed->invoke() == Status::kOk);
    CHECK(stats.uploads == run && stats.downloads == run);
    CHECK(same_outputs(p));
  }
}

LITE_TEST(backend_placement_follows_resize) {
  BackendStats stats;
  Pair p;
  CHECK_MSG(load(zigzag_model({-1}), only(claim_large_add, &stats), &p), "%s", p.error.c_str());
  for (int64_t n : {8, 2, 6, 3}) {
    CHECK(p.mixed->resize_input(0, &n, 1) == Status::kOk && p.cpu->resize_input(0, &n, 1) == Status::kOk);
    CHECK_MSG(p.mixed->allocate() == Status::kOk, "%s", p.mixed->error().message().c_str());
    CHECK(p.cpu->allocate() == Status::kOk);
    const bool on_test = n >= 4;
    CHECK(p.mixed->op_backend(0) == (on_test ? 1 : 0) && p.mixed->op_backend(2) == (on_test ? 1 : 0));
    CHECK(p.mixed->num_border_copies() == (on_test ? 4 : 0));
    // The previous plan's buffers were released before the new one was made.
    CHECK(stats.live.size() == (on_test ? 4u : 0u));
    const int uploads = stats.uploads;
    fill_input(p, 0, static_cast<uint32_t>(n));
    CHECK(p.cpu->invoke() == Status::kOk && p.mixed->invoke() == Status::kOk);
    CHECK(stats.uploads - uploads == (on_test ? 2 : 0));
    CHECK(same_outputs(p));
  }
}

LITE_TEST(backend_declining_at_prepare_leaves_op_on_cpu_with_its_state) {
  BackendStats stats;
  {
    Pair p;
    CHECK_MSG(load(zigzag_model(), only(decline_add_exp, &stats), &p), "%s", p.error.c_str());
    CHECK(p.mixed->allocate() == Status::kOk && p.cpu->allocate() == Status::kOk);
    CHECK(p.mixed->error().message().empty());
    for (int k = 0; k < 4; ++k) CHECK(p.mixed->op_backend(k) == 0);
    CHECK(p.mixed->num_border_copies() == 0 && stats.allocations == 0);
    CHECK(lite_test::live_states() == 4);  // both EXP ops of both interpreters kept their CPU state
    fill_input(p, 0, 5);
    CHECK(p.cpu->invoke() == Status::kOk && p.mixed->invoke() == Status::kOk);
    CHECK(same_outputs(p));
  }
  CHECK(lite_test::live_states() == 0);
}

LITE_TEST(backend_takes_op_state_and_scratch_with_the_op) {
  // EXP on the test backend: its CPU prepare's state is freed, the backend's prepare makes its own.
  BackendStats stats;
  {
    Pair p;
    CHECK_MSG(load(zigzag_model(), only(claim_exp, &stats), &p), "%s", p.error.c_str());
    CHECK(p.mixed->allocate() == Status::kOk && p.cpu->allocate() == Status::kOk);
    CHECK(p.mixed->op_backend(1) == 1 && p.mixed->op_backend(3) == 1);
    CHECK(lite_test::live_states() == 4);
    fill_input(p, 0, 9);
    CHECK(p.cpu->invoke() == Status::kOk);
    CHECK_MSG(p.mixed->invoke() == Status::kOk, "%s", p.mixed->error().message().c_str());
    CHECK(same_outputs(p));
    int64_t n = 8;  // same shape: nothing re-prepared
    CHECK(p.mixed->resize_input(0, &n, 1) == Status::kOk && !p.mixed->needs_allocate());
  }
  CHECK(lite_test::live_states() == 0 && stats.live.empty());
}

LITE_TEST(backend_prepare_error_names_the_op) {
  BackendStats stats;
  Pair p;
  CHECK_MSG(load(zigzag_model(), only(refuse_add, &stats), &p), "%s", p.error.c_str());
  CHECK(p.mixed->allocate() == Status::kShapeError);
  const std::string& msg = p.mixed->error().message();
  CHECK_MSG(contains(msg, "ADD 'add0'") && contains(msg, "the test backend refuses"), "%s", msg.c_str());
  CHECK(p.mixed->op_backend(0) == -1 && p.mixed->invoke() == Status::kShapeError);
  CHECK(stats.live.empty() && lite_test::live_states() == 0);
}

LITE_TEST(backend_preference_order_and_border_between_two_backends) {
  // "first" takes ADD; "second" would take ADD and EXP, so it gets EXP only. t0 crosses from first
  // to second through the host: a download then an upload.
  BackendStats first, second;
  std::vector<std::unique_ptr<lite::Backend>> backends;
  backends.emplace_back(new TestBackend(lite_test::test_ops(), claim_add, &first, "first"));
  backends.emplace_back(new TestBackend(lite_test::test_ops(), claim_add_exp, &second, "second"));
  Pair p;
  CHECK_MSG(load(zigzag_model(), std::move(backends), &p), "%s", p.error.c_str());
  CHECK(p.mixed->allocate() == Status::kOk && p.cpu->allocate() == Status::kOk);
  CHECK(p.mixed->op_backend(0) == 1 && p.mixed->op_backend(1) == 2 && p.mixed->op_backend(2) == 1 &&
        p.mixed->op_backend(3) == 2);
  fill_input(p, 0, 3);
  CHECK(p.cpu->invoke() == Status::kOk && p.mixed->invoke() == Status::kOk);
  CHECK(same_outputs(p));
  // first: x and t1 up, t0 and t2 down; second: t0 and t2 up, t1 and y (a graph output) down.
  CHECK(first.uploads == 2 && first.downloads == 2);
  CHECK(second.uploads == 2 && second.downloads == 2);
  CHECK(p.mixed->num_border_copies() == 8);
}

LITE_TEST(backend_copy_failure_is_reported) {
  BackendStats stats;
  Pair p;
  CHECK_MSG(load(zigzag_model(), only(claim_add, &stats), &p), "%s", p.error.c_str());
  stats.fail_downloads = true;
  CHECK(p.mixed->invoke() == Status::kInternal);
  const std::string& msg = p.mixed->error().message();
  CHECK_MSG(contains(msg, "backend 'test'") && contains(msg, "'t0'") && contains(msg, "to the host"), "%s",
            msg.c_str());
}

namespace {
Claim claim_sin(const lite::OpContext& ctx) { return ctx.op->opcode() == OpCode::SIN ? Claim::kYes : Claim::kNo; }
}  // namespace

LITE_TEST(backend_eval_error_names_the_op) {
  ModelBuilder b;
  int x = b.add_tensor("x", DType::FLOAT32, {4});
  int y = b.add_tensor("y", DType::FLOAT32, {4});
  b.add_op(OpCode::SIN, "sine", {x}, {y});
  b.inputs = {x};
  b.outputs = {y};
  BackendStats stats;
  Pair p;
  CHECK_MSG(load(b, only(claim_sin, &stats), &p), "%s", p.error.c_str());
  CHECK(p.mixed->invoke() == Status::kInternal);
  CHECK(p.mixed->op_backend(0) == 1 && stats.uploads == 1 && stats.downloads == 0);
  const std::string& msg = p.mixed->error().message();
  CHECK_MSG(contains(msg, "SIN 'sine'") && contains(msg, "sin exploded at 42"), "%s", msg.c_str());
}

LITE_TEST(backend_that_takes_nothing_leaves_the_cpu_plan_unchanged) {
  BackendStats stats;
  Pair p;
  CHECK_MSG(load(zigzag_model(), only(claim_nothing, &stats), &p), "%s", p.error.c_str());
  CHECK(p.mixed->allocate() == Status::kOk && p.cpu->allocate() == Status::kOk);
  CHECK(p.mixed->num_border_copies() == 0 && stats.allocations == 0);
  CHECK(p.mixed->arena_bytes() == p.cpu->arena_bytes());
  for (int t = 0; t < p.cpu->num_tensors(); ++t) {
    CHECK(p.mixed->tensor(t).storage == p.cpu->tensor(t).storage);
    CHECK(p.mixed->tensor(t).arena_offset == p.cpu->tensor(t).arena_offset);
  }
}

// ---- real models (LITE_TEST_MODELS) ----------------------------------------------------------------
// The test backend takes every ADD and every 1x1 CONV_2D (by weight shape [co, 1, 1, ci]); 3x3 and
// depthwise convolutions and everything else stay on the CPU, so MobileNetV2's expand/project
// convolutions and its depthwise ones alternate across the border.

namespace {

Claim claim_add_and_pointwise_conv(const lite::OpContext& ctx) {
  if (ctx.op->opcode() == OpCode::ADD) return Claim::kYes;
  if (ctx.op->opcode() != OpCode::CONV_2D || ctx.num_inputs < 2 || ctx.inputs[1] == nullptr) return Claim::kNo;
  const lite::Shape& w = ctx.inputs[1]->shape;
  return w.rank == 4 && w.dims[1] == 1 && w.dims[2] == 1 ? Claim::kYes : Claim::kNo;
}

struct ModelSpec {
  std::string name, path;
  std::vector<std::vector<int64_t>> shapes;  // input 0 shapes to run in turn; empty: as declared
};

// LITE_TEST_MODELS="name=path[@1x3x48x320,1x3x48x160];name=path..."
std::vector<ModelSpec> models_from_env() {
  std::vector<ModelSpec> specs;
  const char* env = std::getenv("LITE_TEST_MODELS");
  if (env == nullptr) return specs;
  std::string all(env);
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find(';', start);
    if (end == std::string::npos) end = all.size();
    std::string entry = all.substr(start, end - start);
    start = end + 1;
    ModelSpec spec;
    size_t eq = entry.find('='), at = entry.find('@');
    spec.name = entry.substr(0, eq);
    spec.path = entry.substr(eq + 1, at == std::string::npos ? std::string::npos : at - eq - 1);
    if (at != std::string::npos) {
      std::string shapes = entry.substr(at + 1) + ",";
      std::vector<int64_t> dims;
      std::string number;
      for (char ch : shapes) {
        if (ch >= '0' && ch <= '9') {
          number += ch;
          continue;
        }
        if (!number.empty()) dims.push_back(std::atoll(number.c_str()));
        number.clear();
        if (ch == ',') {
          spec.shapes.push_back(dims);
          dims.clear();
        }
      }
    }
    specs.push_back(spec);
  }
  return specs;
}

}  // namespace

LITE_TEST(model_outputs_with_a_second_backend_match_cpu_only_bytes) {
  std::vector<ModelSpec> specs = models_from_env();
  CHECK_MSG(!specs.empty(), "LITE_TEST_MODELS is empty");
  for (const ModelSpec& spec : specs) {
    BackendStats stats;
    {
      lite::ErrorSink sink;
      std::unique_ptr<Model> model;
      CHECK_MSG(Model::load_file(spec.path.c_str(), lite::builtin_ops(), &model, &sink) == Status::kOk, "%s: %s",
                spec.path.c_str(), sink.message().c_str());
      Pair p;
      std::vector<std::unique_ptr<lite::Backend>> backends;
      backends.emplace_back(new TestBackend(lite::builtin_ops(), claim_add_and_pointwise_conv, &stats));
      CHECK(Interpreter::create(model.get(), 2, {}, &p.cpu, &sink) == Status::kOk);
      CHECK(Interpreter::create(model.get(), 2, {}, std::move(backends), &p.mixed, &sink) == Status::kOk);
      std::vector<std::vector<int64_t>> shapes = spec.shapes;
      if (shapes.empty()) shapes.push_back({});
      uint32_t seed = 1;
      for (const std::vector<int64_t>& shape : shapes) {
        if (!shape.empty()) {
          const int rank = static_cast<int>(shape.size());
          CHECK(p.cpu->resize_input(0, shape.data(), rank) == Status::kOk &&
                p.mixed->resize_input(0, shape.data(), rank) == Status::kOk);
        }
        CHECK_MSG(p.mixed->allocate() == Status::kOk, "%s", p.mixed->error().message().c_str());
        CHECK_MSG(p.cpu->allocate() == Status::kOk, "%s", p.cpu->error().message().c_str());
        int on_test = 0, on_cpu = 0;
        for (int k = 0; k < p.mixed->num_ops(); ++k) {
          const int b = p.mixed->op_backend(k);
          b == 1 ? ++on_test : ++on_cpu;
          // A producer is absorbed into its consumer only when both run on the CPU.
          if (p.mixed->op_computed_by(k) == k + 1) CHECK(b == 0 && p.mixed->op_backend(k + 1) == 0);
        }
        CHECK(on_test > 0 && on_cpu > 0);
        const int copies = p.mixed->num_border_copies();
        for (int run = 0; run < 2; ++run, ++seed) {
          for (int i = 0; i < p.cpu->num_inputs(); ++i) fill_input(p, i, seed * 7919u + static_cast<uint32_t>(i));
          const int before = stats.uploads + stats.downloads;
          CHECK(p.cpu->invoke() == Status::kOk);
          CHECK_MSG(p.mixed->invoke() == Status::kOk, "%s", p.mixed->error().message().c_str());
          CHECK(stats.uploads + stats.downloads - before == copies);  // each border once per invoke
          CHECK_MSG(same_outputs(p), "%s: outputs differ from the CPU-only run", spec.name.c_str());
        }
        std::printf("  %s%s: %d ops on the test backend, %d on the CPU, %d border copies per invoke\n",
                    spec.name.c_str(), shape.empty() ? "" : " (resized)", on_test, on_cpu, copies);
      }
    }
    CHECK(stats.live.empty());
  }
}
