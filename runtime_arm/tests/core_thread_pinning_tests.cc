// Pinning through the thread pool and the interpreter, on this host's real CPUs: workers start on
// the given CPUs, the caller of invoke runs on them during the invoke only (also when it fails),
// and without CPUs nothing is pinned. Needs two allowed CPUs to tell a pinned mask from the
// original one; with fewer the tests say so and pass.
#if defined(__linux__)

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core_model_builder.h"
#include "core_test_framework.h"
#include "cpu_affinity.h"
#include "interpreter.h"
#include "model.h"
#include "thread_pool.h"

using lite::Interpreter;
using lite::Status;
using lite_fb::DType;
using lite_fb::OpCode;

namespace {

constexpr int kThreads = 3;

// Every thread's CPUs as one task per thread saw them. Each task waits until all have arrived, so
// no thread can run a second task: thread w's mask is in cpus[w].
struct Seen {
  std::vector<int> cpus[kThreads];
  std::atomic<int> arrived{0};
};

void record_pool_threads(lite::ThreadPool* pool, Seen* seen) {
  lite::parallel_for(pool, kThreads, [&](size_t, int worker) {
    seen->cpus[worker] = lite::allowed_cpus();
    ++seen->arrived;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (seen->arrived.load() < kThreads && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
}

std::string text(const std::vector<int>& cpus) {
  std::string out = "{";
  for (size_t i = 0; i < cpus.size(); ++i) out += (i > 0 ? "," : "") + std::to_string(cpus[i]);
  return out + "}";
}

// Two allowed CPUs at least: `pin` is the last one alone, different from the whole mask.
bool host_cpus(std::vector<int>* original, std::vector<int>* pin) {
  *original = lite::allowed_cpus();
  if (original->size() < 2) {
    std::printf("  note: %s allowed, pinning cannot be told apart here\n", text(*original).c_str());
    return false;
  }
  *pin = {original->back()};
  return true;
}

// The op of the test models: NEG records the calling thread's CPUs and the pool threads'; ABS
// records the caller's and fails.
Seen g_seen;
std::vector<int> g_caller;

Status same_shape_prepare(lite::OpContext* ctx) {
  ctx->outputs[0]->dtype = ctx->inputs[0]->dtype;
  ctx->outputs[0]->shape = ctx->inputs[0]->shape;
  return Status::kOk;
}

Status record_eval(lite::OpContext* ctx) {
  g_caller = lite::allowed_cpus();
  record_pool_threads(ctx->pool, &g_seen);
  return Status::kOk;
}

Status record_and_fail_eval(lite::OpContext* ctx) {
  g_caller = lite::allowed_cpus();
  return lite::fail(ctx, Status::kInternal, "failing on purpose");
}

const lite::OpRegistry& recording_ops() {
  static lite::OpRegistry registry;
  static bool built = false;
  if (!built) {
    registry.add(OpCode::NEG, {same_shape_prepare, record_eval, nullptr, false});
    registry.add(OpCode::ABS, {same_shape_prepare, record_and_fail_eval, nullptr, false});
    built = true;
  }
  return registry;
}

struct Loaded {
  std::vector<uint8_t> bytes;
  std::unique_ptr<lite::Model> model;
  std::unique_ptr<Interpreter> it;
};

// x [4] -> opcode -> y, on an interpreter of kThreads threads pinned to `cpus`.
bool load(OpCode opcode, const std::vector<int>& cpus, Loaded* out) {
  lite_test::ModelBuilder b;
  const int x = b.add_tensor("x", DType::FLOAT32, {4});
  const int y = b.add_tensor("y", DType::FLOAT32, {4});
  b.add_op(opcode, "recorder", {x}, {y});
  b.inputs = {x};
  b.outputs = {y};
  out->bytes = b.finish();
  lite::ErrorSink sink;
  if (lite::Model::load_memory(out->bytes.data(), out->bytes.size(), true, recording_ops(), &out->model, &sink) !=
          Status::kOk ||
      Interpreter::create(out->model.get(), kThreads, cpus, &out->it, &sink) != Status::kOk) {
    std::printf("  note: %s\n", sink.message().c_str());
    return false;
  }
  return true;
}

}  // namespace

LITE_TEST(thread_pool_workers_start_on_the_given_cpus) {
  std::vector<int> original, pin;
  if (!host_cpus(&original, &pin)) return;
  std::unique_ptr<lite::ThreadPool> pinned = lite::ThreadPool::create(kThreads, pin);
  CHECK(pinned != nullptr);
  Seen seen;
  record_pool_threads(pinned.get(), &seen);
  CHECK_MSG(seen.cpus[0] == original, "the caller: %s", text(seen.cpus[0]).c_str());  // not the pool's business
  for (int w = 1; w < kThreads; ++w) CHECK_MSG(seen.cpus[w] == pin, "worker %d: %s", w, text(seen.cpus[w]).c_str());

  std::unique_ptr<lite::ThreadPool> free_pool = lite::ThreadPool::create(kThreads);
  CHECK(free_pool != nullptr);
  Seen unpinned;
  record_pool_threads(free_pool.get(), &unpinned);
  for (int w = 0; w < kThreads; ++w)
    CHECK_MSG(unpinned.cpus[w] == original, "worker %d: %s", w, text(unpinned.cpus[w]).c_str());
}

LITE_TEST(interpreter_pins_workers_and_the_caller_during_invoke_only) {
  std::vector<int> original, pin;
  if (!host_cpus(&original, &pin)) return;
  bool ran = false;
  Seen seen_pinned;
  std::vector<int> caller_pinned, caller_after, caller_unpinned, own_mask_after, failed_during, failed_after;
  Status failed = Status::kOk;
  // On a thread of its own: a broken restore must not leave the test process pinned.
  std::thread([&]() {
    Loaded pinned, unpinned, failing;
    if (!load(OpCode::NEG, pin, &pinned) || !load(OpCode::NEG, {}, &unpinned) ||
        !load(OpCode::ABS, pin, &failing))
      return;
    g_seen.arrived = 0;
    if (pinned.it->invoke() != Status::kOk) return;
    caller_pinned = g_caller;
    for (int w = 0; w < kThreads; ++w) seen_pinned.cpus[w] = g_seen.cpus[w];
    caller_after = lite::allowed_cpus();

    g_seen.arrived = 0;
    if (unpinned.it->invoke() != Status::kOk) return;
    caller_unpinned = g_caller;

    // The caller's own narrower mask comes back, not the process's.
    if (!lite::set_current_thread_cpus({original.front()})) return;
    if (pinned.it->invoke() != Status::kOk) return;
    own_mask_after = lite::allowed_cpus();
    lite::set_current_thread_cpus(original);

    failed = failing.it->invoke();
    failed_during = g_caller;
    failed_after = lite::allowed_cpus();
    ran = true;
  }).join();
  CHECK(ran);
  CHECK_MSG(caller_pinned == pin, "caller during invoke: %s", text(caller_pinned).c_str());
  for (int w = 1; w < kThreads; ++w)
    CHECK_MSG(seen_pinned.cpus[w] == pin, "worker %d: %s", w, text(seen_pinned.cpus[w]).c_str());
  CHECK_MSG(caller_after == original, "caller after invoke: %s", text(caller_after).c_str());
  CHECK_MSG(caller_unpinned == original, "caller without cpus: %s", text(caller_unpinned).c_str());
  CHECK_MSG(own_mask_after == std::vector<int>({original.front()}), "own mask after: %s",
            text(own_mask_after).c_str());
  CHECK(failed == Status::kInternal);
  CHECK_MSG(failed_during == pin, "caller during a failed invoke: %s", text(failed_during).c_str());
  CHECK_MSG(failed_after == original, "caller after a failed invoke: %s", text(failed_after).c_str());
}

#endif
