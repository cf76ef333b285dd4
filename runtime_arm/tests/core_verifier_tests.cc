// The loader and semantic verifier refuse broken models with a clear message (hand-built models).
#include <cstring>
#include <memory>
#include <string>

#include "core_model_builder.h"
#include "core_test_framework.h"
#include "core_test_ops.h"
#include "interpreter.h"
#include "model.h"

using lite::Model;
using lite::Status;
using lite_fb::DType;
using lite_fb::OpCode;
using lite_test::ModelBuilder;

namespace {

// x [2,3] + c [2,3] -> y
ModelBuilder add_model() {
  ModelBuilder b;
  float c[6] = {1, 2, 3, 4, 5, 6};
  int x = b.add_tensor("x", DType::FLOAT32, {2, 3});
  int k = b.add_constant("c", DType::FLOAT32, {2, 3}, c, sizeof(c));
  int y = b.add_tensor("y", DType::FLOAT32, {2, 3});
  b.add_op(OpCode::ADD, "add", {x, k}, {y});
  b.inputs = {x};
  b.outputs = {y};
  return b;
}

Status load(const std::vector<uint8_t>& bytes, std::string* message, std::unique_ptr<Model>* out = nullptr) {
  lite::ErrorSink sink;
  std::unique_ptr<Model> model;
  Status s = Model::load_memory(bytes.data(), bytes.size(), true, lite_test::test_ops(), &model, &sink);
  *message = sink.message();
  if (out != nullptr) *out = std::move(model);
  return s;
}

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

}  // namespace

LITE_TEST(verifier_accepts_good_model) {
  std::string msg;
  CHECK_MSG(load(add_model().finish(), &msg) == Status::kOk, "%s", msg.c_str());
}

LITE_TEST(verifier_refuses_wrong_identifier) {
  std::vector<uint8_t> bytes = add_model().finish();
  std::memcpy(bytes.data() + 4, "ONNX", 4);
  std::string msg;
  CHECK(load(bytes, &msg) == Status::kInvalidModel);
  CHECK_MSG(contains(msg, "identifier"), "%s", msg.c_str());
}

LITE_TEST(verifier_refuses_newer_schema_version) {
  ModelBuilder b = add_model();
  b.schema_version = 7;
  std::string msg;
  CHECK(load(b.finish(), &msg) == Status::kVersionMismatch);
  CHECK_MSG(msg == "model schema version 7 is newer than this runtime supports (1): update the runtime", "%s",
            msg.c_str());
}

LITE_TEST(verifier_refuses_missing_schema_version) {
  ModelBuilder b = add_model();
  b.schema_version = 0;
  std::string msg;
  CHECK(load(b.finish(), &msg) == Status::kInvalidModel);
  CHECK_MSG(contains(msg, "schema_version"), "%s", msg.c_str());
}

LITE_TEST(verifier_refuses_every_truncation) {
  std::vector<uint8_t> bytes = add_model().finish();
  for (size_t n = 1; n < bytes.size(); ++n) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<long>(n));
    std::string msg;
    CHECK_MSG(load(cut, &msg) != Status::kOk, "prefix of %zu bytes loaded", n);
  }
}

LITE_TEST(verifier_refuses_op_input_out_of_range) {
  ModelBuilder b = add_model();
  b.op(0).inputs[1] = 5;
  std::string msg;
  CHECK(load(b.finish(), &msg) == Status::kInvalidModel);
  CHECK_MSG(contains(msg, "out of range") && contains(msg, "'add'"), "%s", msg.c_str());
}

LITE_TEST(verifier_allows_absent_optional_input_only) {
  ModelBuilder b = add_model();
  b.op(0).inputs.push_back(-1);  // a trailing absent optional input is fine
  std::string msg;
  CHECK_MSG(load(b.finish(), &msg) == Status::kOk, "%s", msg.c_str());
  ModelBuilder c = add_model();
  c.op(0).outputs = {-1};
  CHECK(load(c.finish(), &msg) == Status::kInvalidModel);
  ModelBuilder d = add_model();
  d.inputs = {-1};
  CHECK(load(d.finish(), &msg) == Status::kInvalidModel);
  ModelBuilder e = add_model();
  e.outputs = {3};
  CHECK(load(e.finish(), &msg) == Status::kInvalidModel);
}

LITE_TEST(verifier_refuses_constant_size_mismatch) {
  ModelBuilder b = add_model();
  b.buffers()[1].resize(20);
  std::string msg;
  CHECK(load(b.finish(), &msg) == Status::kInvalidModel);
  CHECK_MSG(contains(msg, "20 bytes") && contains(msg, "24"), "%s", msg.c_str());
}

LITE_TEST(verifier_refuses_dynamic_constant) {
  ModelBuilder b = add_model();
  b.tensor(1).shape = {-1, 6};
  std::string msg;
  CHECK(load(b.finish(), &msg) == Status::kInvalidModel);
  CHECK_MSG(contains(msg, "static"), "%s", msg.c_str());
}

LITE_TEST(verifier_refuses_constant_size_overflow) {
  ModelBuilder b = add_model();
  b.tensor(1).shape = {int64_t{1} << 40, int64_t{1} << 40};
  std::string msg;
  CHECK(load(b.finish(), &msg) == Status::kInvalidModel);
}

LITE_TEST(verifier_refuses_bad_dims_rank_dtype) {
  std::string msg;
  ModelBuilder a = add_model();
  a.tensor(0).shape = {2, -2};
  CHECK(load(a.finish(), &msg) == Status::kInvalidModel);
  CHECK_MSG(contains(msg, "-2"), "%s", msg.c_str());
  ModelBuilder b = add_model();
  b.tensor(2).shape = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  CHECK(load(b.finish(), &msg) == Status::kInvalidModel);
  CHECK_MSG(contains(msg, "rank"), "%s", msg.c_str());
  ModelBuilder c = add_model();
  c.tensor(2).dtype = 99;
  CHECK(load(c.finish(), &msg) == Status::kInvalidModel);
  CHECK_MSG(contains(msg, "dtype"), "%s", msg.c_str());
}

LITE_TEST(verifier_refuses_buffer_index_out_of_range) {
  ModelBuilder b = add_model();
  b.tensor(1).buffer = 9;
  std::string msg;
  CHECK(load(b.finish(), &msg) == Status::kInvalidModel);
  CHECK_MSG(contains(msg, "buffer index 9"), "%s", msg.c_str());
}

LITE_TEST(verifier_refuses_non_empty_buffer_zero) {
  ModelBuilder b = add_model();
  b.buffers()[0] = {1, 2, 3, 4};
  std::string msg;
  CHECK(load(b.finish(), &msg) == Status::kInvalidModel);
}

LITE_TEST(verifier_reports_all_unsupported_ops_at_once) {
  ModelBuilder b;
  int x = b.add_tensor("x", DType::FLOAT32, {1, 4});
  int t1 = b.add_tensor("t1", DType::FLOAT32, {1, 4});
  int t2 = b.add_tensor("t2", DType::FLOAT32, {1, 4});
  int t3 = b.add_tensor("t3", DType::FLOAT32, {1, 4});
  int t4 = b.add_tensor("t4", DType::FLOAT32, {1, 4});
  b.add_op(OpCode::CONV_2D, "conv_a", {x}, {t1});
  b.add_op(OpCode::MATMUL, "mm", {t1}, {t2});
  b.add_op(OpCode::CONV_2D, "conv_b", {t2}, {t3});
  int raw = b.add_op(OpCode::ADD, "future_op", {t3}, {t4});
  b.op(raw).opcode = 999;
  b.inputs = {x};
  b.outputs = {t4};
  std::string msg;
  CHECK(load(b.finish(), &msg) == Status::kUnsupported);
  CHECK_MSG(contains(msg, "3 op codes") && contains(msg, "CONV_2D (node 'conv_a' and 1 more)") &&
                contains(msg, "MATMUL (node 'mm')") && contains(msg, "opcode 999"),
            "%s", msg.c_str());
}

LITE_TEST(verifier_refuses_double_writes_and_writes_to_inputs_or_constants) {
  std::string msg;
  ModelBuilder a = add_model();
  a.add_op(OpCode::ADD, "again", {0, 1}, {2});
  CHECK(load(a.finish(), &msg) == Status::kInvalidModel);
  CHECK_MSG(contains(msg, "already writes"), "%s", msg.c_str());
  ModelBuilder b = add_model();
  b.op(0).outputs = {0};
  b.outputs = {0};
  CHECK(load(b.finish(), &msg) == Status::kInvalidModel);
  CHECK_MSG(contains(msg, "graph input"), "%s", msg.c_str());
  ModelBuilder c = add_model();
  c.op(0).outputs = {1};
  c.outputs = {1};
  CHECK(load(c.finish(), &msg) == Status::kInvalidModel);
  CHECK_MSG(contains(msg, "constant"), "%s", msg.c_str());
  ModelBuilder d = add_model();
  d.inputs = {1};
  CHECK(load(d.finish(), &msg) == Status::kInvalidModel);
  ModelBuilder e = add_model();
  e.inputs = {0, 0};
  CHECK(load(e.finish(), &msg) == Status::kInvalidModel);
}

LITE_TEST(verifier_refuses_non_topological_order) {
  ModelBuilder b;
  int x = b.add_tensor("x", DType::FLOAT32, {4});
  int t = b.add_tensor("t", DType::FLOAT32, {4});
  int y = b.add_tensor("y", DType::FLOAT32, {4});
  b.add_op(OpCode::ADD, "second", {t, x}, {y});
  b.add_op(OpCode::ADD, "first", {x, x}, {t});
  b.inputs = {x};
  b.outputs = {y};
  std::string msg;
  CHECK(load(b.finish(), &msg) == Status::kInvalidModel);
  CHECK_MSG(contains(msg, "topological"), "%s", msg.c_str());
  ModelBuilder c = add_model();
  c.op(0).inputs[0] = 2;  // reads its own output
  CHECK(load(c.finish(), &msg) == Status::kInvalidModel);
}

LITE_TEST(verifier_refuses_unwritten_output_and_missing_graph) {
  std::string msg;
  ModelBuilder a = add_model();
  a.add_tensor("orphan", DType::FLOAT32, {1});
  a.outputs = {3};
  CHECK(load(a.finish(), &msg) == Status::kInvalidModel);
  CHECK_MSG(contains(msg, "never written"), "%s", msg.c_str());
  ModelBuilder b = add_model();
  b.has_graph = false;
  CHECK(load(b.finish(), &msg) == Status::kInvalidModel);
  ModelBuilder c = add_model();
  c.outputs = {};
  CHECK(load(c.finish(), &msg) == Status::kInvalidModel);
  ModelBuilder d = add_model();
  d.op(0).has_outputs = false;
  CHECK(load(d.finish(), &msg) == Status::kInvalidModel);
}

LITE_TEST(verifier_checks_options_type) {
  std::string msg;
  ModelBuilder a = add_model();
  a.op(0).options_type = lite_fb::OpOptions::Conv2DOptions;
  CHECK(load(a.finish(), &msg) == Status::kInvalidModel);
  CHECK_MSG(contains(msg, "Conv2DOptions") && contains(msg, "BinaryOptions"), "%s", msg.c_str());
  ModelBuilder b = add_model();
  b.op(0).options_type = lite_fb::OpOptions::BinaryOptions;
  CHECK_MSG(load(b.finish(), &msg) == Status::kOk, "%s", msg.c_str());
}

LITE_TEST(verifier_checks_quantization) {
  std::string msg;
  ModelBuilder ok = add_model();
  ok.tensor(1).scales = {0.5f, 0.25f};
  ok.tensor(1).zero_points = {0, 1};
  ok.tensor(1).quant_axis = 0;
  CHECK_MSG(load(ok.finish(), &msg) == Status::kOk, "%s", msg.c_str());

  ModelBuilder a = add_model();
  a.tensor(0).scales = {0.5f, 0.25f};  // per-tensor with two scales
  CHECK(load(a.finish(), &msg) == Status::kInvalidModel);
  ModelBuilder b = add_model();
  b.tensor(1).scales = {0.5f, 0.25f, 1.0f};  // axis 0 has 2 channels
  b.tensor(1).quant_axis = 0;
  CHECK(load(b.finish(), &msg) == Status::kInvalidModel);
  ModelBuilder c = add_model();
  c.tensor(1).scales = {0.5f, 0.25f};
  c.tensor(1).quant_axis = 2;  // rank 2
  CHECK(load(c.finish(), &msg) == Status::kInvalidModel);
  ModelBuilder d = add_model();
  d.tensor(0).scales = {0.5f};
  d.tensor(0).zero_points = {1, 2};
  CHECK(load(d.finish(), &msg) == Status::kInvalidModel);
  ModelBuilder e = add_model();
  e.tensor(0).scales = {-1.0f};
  CHECK(load(e.finish(), &msg) == Status::kInvalidModel);
  ModelBuilder f = add_model();
  f.tensor(0).force_quantization = true;  // no scales at all
  CHECK(load(f.finish(), &msg) == Status::kInvalidModel);
}

LITE_TEST(loader_reports_io_errors) {
  lite::ErrorSink sink;
  std::unique_ptr<Model> model;
  CHECK(Model::load_file("/nonexistent/model.lite", lite_test::test_ops(), &model, &sink) == Status::kIoError);
  CHECK_MSG(contains(sink.message(), "/nonexistent/model.lite"), "%s", sink.message().c_str());
  CHECK(Model::load_file("/tmp", lite_test::test_ops(), &model, &sink) == Status::kIoError);
  CHECK(Model::load_file("/dev/null", lite_test::test_ops(), &model, &sink) != Status::kOk);
}

LITE_TEST(loader_realigns_misaligned_weights) {
  std::vector<uint8_t> bytes = add_model().finish();
  // Borrowed at an 8-aligned but not 64-aligned address: weights are copied, results unchanged.
  for (size_t shift : {size_t{8}, size_t{1}, size_t{0}}) {
    std::vector<uint8_t> storage(bytes.size() + 128);
    uint8_t* base = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64 + shift;
    std::memcpy(base, bytes.data(), bytes.size());
    lite::ErrorSink sink;
    std::unique_ptr<Model> model;
    CHECK_MSG(Model::load_memory(base, bytes.size(), false, lite_test::test_ops(), &model, &sink) == Status::kOk,
              "%s", sink.message().c_str());
    std::unique_ptr<lite::Interpreter> it;
    CHECK(lite::Interpreter::create(model.get(), 1, {}, &it, &sink) == Status::kOk);
    CHECK(it->allocate() == Status::kOk);
    const lite::TensorSlot& c = it->tensor(1);
    CHECK(reinterpret_cast<uintptr_t>(c.ref.data) % 64 == 0);
    float* x = static_cast<float*>(it->tensor(0).ref.data);
    for (int i = 0; i < 6; ++i) x[i] = static_cast<float>(10 * i);
    CHECK(it->invoke() == Status::kOk);
    const float* y = static_cast<const float*>(it->tensor(2).ref.data);
    for (int i = 0; i < 6; ++i) CHECK(y[i] == static_cast<float>(10 * i + i + 1));
    if (shift == 8) CHECK(model->realigned_bytes() == 24);
  }
}

LITE_TEST(verifier_refuses_misaligned_int64_vectors) {
  // Point tensor 0's shape offset 4 bytes further: the flatbuffer still verifies (length 1 read from
  // the low half of dim 0), but the int64 element is no longer 8-byte aligned.
  ModelBuilder b = add_model();
  b.tensor(0).shape = {1, 5};
  b.outputs = {2};
  std::vector<uint8_t> bytes = b.finish();
  const lite_fb::Model* m = lite_fb::GetModel(bytes.data());
  const lite_fb::Tensor* t = m->graph()->tensors()->Get(0);
  const flatbuffers::Table* table = reinterpret_cast<const flatbuffers::Table*>(t);
  size_t field = static_cast<size_t>(reinterpret_cast<const uint8_t*>(t) - bytes.data()) +
                 table->GetOptionalFieldOffset(lite_fb::Tensor::VT_SHAPE);
  uint32_t offset;
  std::memcpy(&offset, bytes.data() + field, 4);
  offset += 4;
  std::memcpy(bytes.data() + field, &offset, 4);
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  CHECK(lite_fb::VerifyModelBuffer(verifier));  // the structural verifier does not notice
  std::string msg;
  CHECK(load(bytes, &msg) == Status::kInvalidModel);
  CHECK_MSG(contains(msg, "not 8-byte aligned"), "%s", msg.c_str());
}
