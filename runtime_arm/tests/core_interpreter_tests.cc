// The interpreter: dynamic shapes and resize, prepare-time evaluation of shape subgraphs, op
// errors with op and node names, op state and scratch, inputs persisting across invokes.
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core_model_builder.h"
#include "core_test_framework.h"
#include "core_test_ops.h"
#include "interpreter.h"
#include "model.h"

using lite::Interpreter;
using lite::Model;
using lite::Status;
using lite_fb::DType;
using lite_fb::OpCode;
using lite_test::ModelBuilder;

namespace {

struct Loaded {
  std::vector<uint8_t> bytes;
  std::unique_ptr<Model> model;
  std::unique_ptr<Interpreter> it;
  std::string error;
};

bool load(const ModelBuilder& b, Loaded* out) {
  out->bytes = b.finish();
  lite::ErrorSink sink;
  if (Model::load_memory(out->bytes.data(), out->bytes.size(), true, lite_test::test_ops(), &out->model, &sink) !=
          Status::kOk ||
      Interpreter::create(out->model.get(), 1, {}, &out->it, &sink) != Status::kOk) {
    out->error = sink.message();
    return false;
  }
  return true;
}

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// x [-1, -1] f32 -> t = x + 1 -> r = reshape(t, prod(shape(x))) -> y = exp(r)
ModelBuilder flatten_model() {
  ModelBuilder b;
  float one = 1.0f;
  int x = b.add_tensor("x", DType::FLOAT32, {-1, -1});
  int c1 = b.add_constant("one", DType::FLOAT32, {1}, &one, 4);
  int t = b.add_tensor("t", DType::FLOAT32, {-1, -1});
  int s = b.add_tensor("s", DType::INT64, {2});
  int p = b.add_tensor("p", DType::INT64, {1});
  int r = b.add_tensor("r", DType::FLOAT32, {-1});
  int y = b.add_tensor("y", DType::FLOAT32, {-1});
  b.add_op(OpCode::ADD, "plus_one", {x, c1}, {t});
  b.add_op(OpCode::SHAPE, "shape", {x}, {s});
  b.add_op(OpCode::REDUCE_PROD, "numel", {s}, {p});
  b.add_op(OpCode::RESHAPE, "flatten", {t, p}, {r});
  b.add_op(OpCode::EXP, "exp", {r}, {y});
  b.inputs = {x};
  b.outputs = {y};
  return b;
}

}  // namespace

LITE_TEST(dynamic_input_needs_resize_with_clear_message) {
  Loaded m;
  CHECK_MSG(load(flatten_model(), &m), "%s", m.error.c_str());
  Status s = m.it->invoke();
  CHECK(s == Status::kShapeError);
  const std::string& msg = m.it->error().message();
  CHECK_MSG(contains(msg, "'x'") && contains(msg, "[-1, -1]") && contains(msg, "resize_input"), "%s", msg.c_str());
}

LITE_TEST(shape_subgraph_is_evaluated_at_prepare_and_follows_resizes) {
  Loaded m;
  CHECK_MSG(load(flatten_model(), &m), "%s", m.error.c_str());
  for (int64_t rows : {3, 5, 1}) {
    int64_t dims[2] = {rows, 4};
    CHECK(m.it->resize_input(0, dims, 2) == Status::kOk);
    CHECK(m.it->needs_allocate());
    lite_test::reset_eval_counts();
    CHECK_MSG(m.it->allocate() == Status::kOk, "%s", m.it->error().message().c_str());
    // SHAPE and REDUCE_PROD ran once, at prepare, into heap values.
    CHECK(lite_test::eval_count(OpCode::SHAPE) == 1 && lite_test::eval_count(OpCode::REDUCE_PROD) == 1);
    CHECK(m.it->tensor(3).storage == lite::Storage::kPrepared && m.it->tensor(3).ref.value_known);
    CHECK(*static_cast<const int64_t*>(m.it->tensor(4).ref.data) == rows * 4);
    // The reshape output aliases its input in the arena.
    CHECK(m.it->tensor(5).ref.data == m.it->tensor(2).ref.data);
    float* x = static_cast<float*>(m.it->tensor(0).ref.data);
    for (int64_t i = 0; i < rows * 4; ++i) x[i] = 0.25f * static_cast<float>(i) - 1.0f;
    CHECK(m.it->invoke() == Status::kOk);
    CHECK(m.it->invoke() == Status::kOk);  // inputs persist across invokes
    CHECK(lite_test::eval_count(OpCode::SHAPE) == 1 && lite_test::eval_count(OpCode::REDUCE_PROD) == 1);
    CHECK(lite_test::eval_count(OpCode::ADD) == 2 && lite_test::eval_count(OpCode::EXP) == 2);
    const lite::TensorRef& y = m.it->tensor(6).ref;
    CHECK(y.shape.rank == 1 && y.shape.dims[0] == rows * 4);
    const float* out = static_cast<const float*>(y.data);
    for (int64_t i = 0; i < rows * 4; ++i) {
      float want = std::exp(0.25f * static_cast<float>(i) - 1.0f + 1.0f);
      CHECK_MSG(std::fabs(out[i] - want) <= 1e-6f * want, "y[%lld] = %g, want %g", static_cast<long long>(i),
                static_cast<double>(out[i]), static_cast<double>(want));
    }
  }
  // Same shape again: nothing to redo.
  int64_t dims[2] = {1, 4};
  CHECK(m.it->resize_input(0, dims, 2) == Status::kOk);
  CHECK(!m.it->needs_allocate());
}

LITE_TEST(resize_input_validates_arguments) {
  Loaded m;
  CHECK(load(flatten_model(), &m));
  int64_t bad[2] = {2, -3};
  CHECK(m.it->resize_input(0, bad, 2) == Status::kInvalidArgument);
  CHECK(m.it->resize_input(1, bad, 2) == Status::kInvalidArgument);
  CHECK(m.it->resize_input(0, bad, 9) == Status::kInvalidArgument);
  int64_t huge[2] = {int64_t{1} << 40, int64_t{1} << 40};
  CHECK(m.it->resize_input(0, huge, 2) == Status::kOk);
  const Status status = m.it->allocate();
  CHECK_MSG(status == Status::kShapeError, "status %d: %s", static_cast<int>(status), m.it->error().message().c_str());
  CHECK_MSG(contains(m.it->error().message(), "2 GiB"), "%s", m.it->error().message().c_str());
  // Recovers after a good resize.
  int64_t good[2] = {2, 2};
  CHECK(m.it->resize_input(0, good, 2) == Status::kOk);
  CHECK(m.it->invoke() == Status::kOk);
}

LITE_TEST(constant_subgraph_folds_and_alias_of_constant_uses_weights) {
  // Large constant reshaped (too big for prepare-time evaluation): output is the constant memory.
  ModelBuilder b;
  std::vector<float> big(70000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i % 97);
  int64_t shape[2] = {700, 100};
  int x = b.add_tensor("x", DType::FLOAT32, {1});
  int c = b.add_constant("big", DType::FLOAT32, {70000}, big.data(), big.size() * 4);
  int s = b.add_constant("shape", DType::INT64, {2}, shape, sizeof(shape));
  int r = b.add_tensor("r", DType::FLOAT32, {700, 100});
  int y = b.add_tensor("y", DType::FLOAT32, {700, 100});
  b.add_op(OpCode::RESHAPE, "reshape_const", {c, s}, {r});
  b.add_op(OpCode::ADD, "add", {r, x}, {y});
  b.inputs = {x};
  b.outputs = {y};
  Loaded m;
  CHECK_MSG(load(b, &m), "%s", m.error.c_str());
  lite_test::reset_eval_counts();
  CHECK(m.it->allocate() == Status::kOk);
  CHECK(m.it->tensor(r).storage == lite::Storage::kConstant);
  CHECK(m.it->tensor(r).ref.data == m.it->tensor(c).ref.data);
  *static_cast<float*>(m.it->tensor(x).ref.data) = 0.5f;
  CHECK(m.it->invoke() == Status::kOk);
  CHECK(lite_test::eval_count(OpCode::RESHAPE) == 1);  // called, does nothing (same memory)
  const float* out = static_cast<const float*>(m.it->tensor(y).ref.data);
  CHECK(out[0] == 0.5f && out[69999] == static_cast<float>(69999 % 97) + 0.5f);

  // Small constant subgraph: evaluated at prepare, skipped at invoke.
  ModelBuilder b2;
  float k[4] = {1, 2, 3, 4};
  int x2 = b2.add_tensor("x", DType::FLOAT32, {4});
  int k1 = b2.add_constant("k", DType::FLOAT32, {4}, k, sizeof(k));
  int kk = b2.add_tensor("kk", DType::FLOAT32, {4});
  int y2 = b2.add_tensor("y", DType::FLOAT32, {4});
  b2.add_op(OpCode::ADD, "fold", {k1, k1}, {kk});
  b2.add_op(OpCode::ADD, "add", {x2, kk}, {y2});
  b2.inputs = {x2};
  b2.outputs = {y2};
  Loaded m2;
  CHECK(load(b2, &m2));
  lite_test::reset_eval_counts();
  CHECK(m2.it->invoke() == Status::kOk);
  CHECK(lite_test::eval_count(OpCode::ADD) == 2);
  CHECK(m2.it->tensor(kk).storage == lite::Storage::kPrepared);
  CHECK(m2.it->invoke() == Status::kOk);
  CHECK(lite_test::eval_count(OpCode::ADD) == 3);
  CHECK(static_cast<const float*>(m2.it->tensor(y2).ref.data)[3] == 8.0f);
}

LITE_TEST(op_errors_carry_op_code_and_node_name) {
  struct Case {
    OpCode code;
    Status status;
    const char* message;
  };
  const Case cases[] = {
      {OpCode::SIN, Status::kInternal, "SIN 'the_node': sin exploded at 42"},
      {OpCode::TAN, Status::kShapeError, "TAN 'the_node': tan refuses rank 3"},
      {OpCode::COS, Status::kUnsupported, "COS 'the_node': prepare failed (status 4)"},
  };
  for (const Case& c : cases) {
    ModelBuilder b;
    int x = b.add_tensor("x", DType::FLOAT32, {4});
    int y = b.add_tensor("y", DType::FLOAT32, {4});
    b.add_op(c.code, "the_node", {x}, {y});
    b.inputs = {x};
    b.outputs = {y};
    Loaded m;
    CHECK_MSG(load(b, &m), "%s", m.error.c_str());
    CHECK(m.it->invoke() == c.status);
    CHECK_MSG(m.it->error().message() == c.message, "got '%s'", m.it->error().message().c_str());
    CHECK(m.it->error().status() == c.status);
  }
}

LITE_TEST(op_state_is_freed_on_reprepare_and_destroy) {
  int before = lite_test::live_states();
  {
    Loaded m;
    CHECK(load(flatten_model(), &m));
    int64_t dims[2] = {2, 2};
    CHECK(m.it->resize_input(0, dims, 2) == Status::kOk);
    CHECK(m.it->invoke() == Status::kOk);
    CHECK(lite_test::live_states() == before + 1);
    dims[0] = 3;
    CHECK(m.it->resize_input(0, dims, 2) == Status::kOk);
    CHECK(m.it->invoke() == Status::kOk);
    CHECK(lite_test::live_states() == before + 1);
  }
  CHECK(lite_test::live_states() == before);
}

LITE_TEST(graph_output_may_be_input_or_constant) {
  ModelBuilder b;
  float k[2] = {7, 8};
  int x = b.add_tensor("x", DType::FLOAT32, {2});
  int c = b.add_constant("k", DType::FLOAT32, {2}, k, sizeof(k));
  b.inputs = {x};
  b.outputs = {x, c};
  Loaded m;
  CHECK_MSG(load(b, &m), "%s", m.error.c_str());
  CHECK(m.it->allocate() == Status::kOk);
  static_cast<float*>(m.it->tensor(x).ref.data)[1] = 3.0f;
  CHECK(m.it->invoke() == Status::kOk);
  CHECK(static_cast<const float*>(m.it->tensor(m.it->output_tensor(0)).ref.data)[1] == 3.0f);
  CHECK(static_cast<const float*>(m.it->tensor(m.it->output_tensor(1)).ref.data)[1] == 8.0f);
}

LITE_TEST(zero_sized_tensors_are_fine) {
  Loaded m;
  CHECK(load(flatten_model(), &m));
  int64_t dims[2] = {0, 4};
  CHECK(m.it->resize_input(0, dims, 2) == Status::kOk);
  CHECK_MSG(m.it->invoke() == Status::kOk, "%s", m.it->error().message().c_str());
  CHECK(m.it->tensor(6).ref.shape.dims[0] == 0);
  CHECK(m.it->tensor(6).ref.data != nullptr);
}

LITE_TEST(computed_outputs_must_match_declared_dtype_and_shape) {
  auto model = [](int dtype, std::vector<int64_t> y_shape, std::vector<int64_t> x_shape = {2, 3}) {
    ModelBuilder b;
    float c[6] = {1, 2, 3, 4, 5, 6};
    int x = b.add_tensor("x", DType::FLOAT32, std::move(x_shape));
    int k = b.add_constant("c", DType::FLOAT32, {1}, c, 4);
    int y = b.add_tensor("y", DType::FLOAT32, std::move(y_shape));
    b.tensor(y).dtype = dtype;
    b.add_op(OpCode::ADD, "add", {x, k}, {y});
    b.inputs = {x};
    b.outputs = {y};
    return b;
  };
  Loaded ok;
  CHECK(load(model(static_cast<int>(DType::FLOAT32), {2, -1}), &ok));
  CHECK(ok.it->allocate() == Status::kOk);

  Loaded wrong_dtype;
  CHECK(load(model(static_cast<int>(DType::INT64), {2, 3}), &wrong_dtype));
  CHECK(wrong_dtype.it->allocate() == Status::kInvalidModel);
  CHECK_MSG(wrong_dtype.it->error().message() ==
                "ADD 'add': output 0 'y' is computed as FLOAT32, the model declares INT64",
            "%s", wrong_dtype.it->error().message().c_str());

  Loaded wrong_shape;
  CHECK(load(model(static_cast<int>(DType::FLOAT32), {2, 4}), &wrong_shape));
  CHECK(wrong_shape.it->allocate() == Status::kShapeError);
  CHECK_MSG(contains(wrong_shape.it->error().message(), "computed with shape [2, 3], the model declares [2, 4]"),
            "%s", wrong_shape.it->error().message().c_str());
  // Only dynamic dims can be resized; the dims a dynamic input decides are declared dynamic too.
  Loaded resized;
  CHECK(load(model(static_cast<int>(DType::FLOAT32), {-1, 3}, {-1, 3}), &resized));
  int64_t dims[2] = {5, 3};
  CHECK(resized.it->resize_input(0, dims, 2) == Status::kOk);
  CHECK_MSG(resized.it->allocate() == Status::kOk, "%s", resized.it->error().message().c_str());
  CHECK(resized.it->tensor(2).ref.shape.dims[0] == 5);
}

LITE_TEST(interpreters_of_one_model_run_in_parallel_threads) {
  std::vector<uint8_t> bytes = flatten_model().finish();
  lite::ErrorSink sink;
  std::unique_ptr<Model> model;
  CHECK(Model::load_memory(bytes.data(), bytes.size(), false, lite_test::test_ops(), &model, &sink) == Status::kOk);
  constexpr int kThreads = 4;
  int failures[kThreads] = {};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t]() {
      lite::ErrorSink local;
      std::unique_ptr<Interpreter> it;
      if (Interpreter::create(model.get(), 1, {}, &it, &local) != Status::kOk) {
        ++failures[t];
        return;
      }
      for (int round = 0; round < 50; ++round) {
        int64_t rows = 1 + (t + round) % 5;
        int64_t dims[2] = {rows, 3};
        if (it->resize_input(0, dims, 2) != Status::kOk || it->allocate() != Status::kOk) {
          ++failures[t];
          continue;
        }
        float* x = static_cast<float*>(it->tensor(0).ref.data);
        for (int64_t i = 0; i < rows * 3; ++i) x[i] = static_cast<float>(t) * 0.1f + static_cast<float>(i) * 0.01f;
        if (it->invoke() != Status::kOk) {
          ++failures[t];
          continue;
        }
        const float* y = static_cast<const float*>(it->tensor(6).ref.data);
        for (int64_t i = 0; i < rows * 3; ++i) {
          float want = std::exp(x[i] + 1.0f);
          if (std::fabs(y[i] - want) > 1e-6f * want) ++failures[t];
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) CHECK_MSG(failures[t] == 0, "thread %d: %d failures", t, failures[t]);
}

LITE_TEST(graph_output_never_shares_a_graph_input_through_alias_chains) {
  ModelBuilder b;
  int64_t flat[1] = {6};
  int64_t square[2] = {3, 2};
  int x = b.add_tensor("x", DType::FLOAT32, {2, 3});
  int s1 = b.add_constant("flat", DType::INT64, {1}, flat, sizeof(flat));
  int s2 = b.add_constant("square", DType::INT64, {2}, square, sizeof(square));
  int r = b.add_tensor("r", DType::FLOAT32, {6});
  int y = b.add_tensor("y", DType::FLOAT32, {3, 2});
  b.add_op(OpCode::RESHAPE, "r1", {x, s1}, {r});
  b.add_op(OpCode::RESHAPE, "r2", {r, s2}, {y});
  b.inputs = {x};
  b.outputs = {y};
  Loaded m;
  CHECK_MSG(load(b, &m), "%s", m.error.c_str());
  CHECK(m.it->allocate() == Status::kOk);
  CHECK(m.it->tensor(r).ref.data == m.it->tensor(x).ref.data);  // inner alias is fine
  CHECK(m.it->tensor(y).ref.data != m.it->tensor(x).ref.data);
  float* in = static_cast<float*>(m.it->tensor(x).ref.data);
  for (int i = 0; i < 6; ++i) in[i] = static_cast<float>(i);
  CHECK(m.it->invoke() == Status::kOk);
  in[0] = 100.0f;  // the caller prepares the next input: the previous output must not change
  CHECK(static_cast<const float*>(m.it->tensor(y).ref.data)[0] == 0.0f);
  CHECK(static_cast<const float*>(m.it->tensor(y).ref.data)[5] == 5.0f);
}
