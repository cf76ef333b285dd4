// The C API (include/lite_runtime.h) over Model and Interpreter.
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "checked_math.h"
#include "cpu_affinity.h"
#include "interpreter.h"
#include "lite_runtime.h"
#include "model.h"
#include "opencl/opencl_backend.h"
#include "sequence_value.h"

#ifndef LITE_RUNTIME_VERSION
#define LITE_RUNTIME_VERSION "unknown"  // set by CMake from the project version
#endif

static_assert(static_cast<int>(lite::Status::kInternal) == LITE_INTERNAL, "lite_status must mirror lite::Status");
static_assert(static_cast<int>(lite_fb::DType::MAX) == LITE_UINT64, "lite_dtype must mirror the schema's DType");
static_assert(lite::kMaxRank == LITE_MAX_RANK, "LITE_MAX_RANK must equal lite::kMaxRank");

struct lite_model {
  std::unique_ptr<lite::Model> model;
};

struct lite_interpreter {
  std::unique_ptr<lite::Interpreter> it;
  std::string backend_note;  // lite_interpreter_backend_note
  lite::OpenClBackend* opencl = nullptr;  // owned by `it`; null when not in use
  std::string backend_info;               // lite_interpreter_backend_info's last answer
  std::string backend_profile;            // lite_interpreter_backend_profile's last answer
};

namespace {

lite_status to_c(lite::Status s) { return static_cast<lite_status>(s); }

lite_status report(const lite::ErrorSink& sink, lite::Status status, lite_error* error) {
  if (error != nullptr) {
    error->code = to_c(status);
    std::snprintf(error->message, sizeof(error->message), "%s", status == lite::Status::kOk ? "" : sink.message().c_str());
  }
  return to_c(status);
}

lite_status finish_load(lite::Status s, std::unique_ptr<lite::Model> loaded, const lite::ErrorSink& sink,
                        lite_model** model, lite_error* error) {
  if (s == lite::Status::kOk) {
    lite_model* m = new (std::nothrow) lite_model;
    if (m == nullptr) {
      lite::ErrorSink oom;
      oom.set(lite::Status::kOutOfMemory, "out of memory");
      return report(oom, lite::Status::kOutOfMemory, error);
    }
    m->model = std::move(loaded);
    *model = m;
  }
  return report(sink, s, error);
}

bool valid_input(const lite_interpreter* it, int i) { return it != nullptr && i >= 0 && i < it->it->num_inputs(); }
bool valid_output(const lite_interpreter* it, int i) {
  return it != nullptr && i >= 0 && i < it->it->num_outputs();
}

// A sequence / optional input holds the runtime's own buffer format (sequence_value.h): the tensor
// calls (resize, raw bytes, a data pointer) are refused for it, naming the call that sets it.
lite_status tensor_input(lite_interpreter* it, int index, const char* call) {
  const lite::TensorRef& t = it->it->tensor(it->it->input_tensor(index)).ref;
  if (t.kind == lite_fb::ValueKind::TENSOR) return LITE_OK;
  return to_c(it->it->error().set(
      lite::Status::kInvalidArgument,
      "%s: input %d '%s' is a sequence or optional; set it with lite_interpreter_set_input_sequence", call, index,
      t.name));
}

// Tensor index of input (is_input) or output `i`, -1 when out of range.
int io_tensor(const lite_interpreter* it, bool is_input, int i) {
  if (is_input) return valid_input(it, i) ? it->it->input_tensor(i) : -1;
  return valid_output(it, i) ? it->it->output_tensor(i) : -1;
}

const lite::Shape& io_shape(const lite_interpreter* it, bool is_input, int i) {
  // Inputs report the requested shape even before allocation; outputs the tensor's shape.
  if (is_input) return it->it->input_shape(i);
  return it->it->tensor(it->it->output_tensor(i)).ref.shape;
}

int copy_shape(const lite_interpreter* it, bool is_input, int i, int64_t* dims, int max_rank) {
  if (io_tensor(it, is_input, i) < 0) return -1;
  const lite::Shape& s = io_shape(it, is_input, i);
  for (int d = 0; d < s.rank && d < max_rank && dims != nullptr; ++d) dims[d] = s.dims[d];
  return s.rank;
}

size_t shape_bytes(const lite::Shape& s, lite_fb::DType dtype) {
  size_t n = 1;
  for (int d = 0; d < s.rank; ++d) {
    if (s.dims[d] < 0) return 0;
    if (__builtin_mul_overflow(n, static_cast<size_t>(s.dims[d]), &n)) return 0;
  }
  size_t bytes;
  return __builtin_mul_overflow(n, lite::dtype_size(dtype), &bytes) ? 0 : bytes;
}

size_t io_bytes(const lite_interpreter* it, bool is_input, int i) {
  int t = io_tensor(it, is_input, i);
  if (t < 0) return 0;
  return shape_bytes(io_shape(it, is_input, i), it->it->tensor(t).ref.dtype);
}

lite_status io_quantization(const lite_interpreter* it, bool is_input, int i, lite_quantization* q) {
  if (it == nullptr || q == nullptr) return LITE_INVALID_ARGUMENT;
  int t = io_tensor(it, is_input, i);
  if (t < 0) {
    it->it->error().set(lite::Status::kInvalidArgument, "%s index %d out of range", is_input ? "input" : "output", i);
    return LITE_INVALID_ARGUMENT;
  }
  *q = lite_quantization{0, -1, nullptr, nullptr};
  const lite_fb::Quantization* fq = it->it->tensor(t).ref.quantization;
  if (fq == nullptr || fq->scale() == nullptr) return LITE_OK;
  q->count = static_cast<int>(fq->scale()->size());
  q->axis = fq->axis();
  q->scales = fq->scale()->data();
  q->zero_points = fq->zero_point() != nullptr ? fq->zero_point()->data() : nullptr;
  return LITE_OK;
}

lite_status index_error(lite_interpreter* it, bool is_input, int i) {
  if (it == nullptr) return LITE_INVALID_ARGUMENT;
  int count = is_input ? it->it->num_inputs() : it->it->num_outputs();
  return to_c(it->it->error().set(lite::Status::kInvalidArgument, "%s index %d out of range (%d %ss)",
                                  is_input ? "input" : "output", i, count, is_input ? "input" : "output"));
}

}  // namespace

extern "C" {

const char* lite_version(void) { return LITE_RUNTIME_VERSION; }

lite_status lite_model_load_file(const char* path, lite_model** model, lite_error* error) {
  lite::ErrorSink sink;
  if (model == nullptr) return report(sink, sink.set(lite::Status::kInvalidArgument, "model is NULL"), error);
  *model = nullptr;
  std::unique_ptr<lite::Model> loaded;
  lite::Status s = lite::Model::load_file(path, lite::builtin_ops(), &loaded, &sink);
  return finish_load(s, std::move(loaded), sink, model, error);
}

lite_status lite_model_load_memory(const void* data, size_t size, lite_memory_mode mode, lite_model** model,
                                   lite_error* error) {
  lite::ErrorSink sink;
  if (model == nullptr) return report(sink, sink.set(lite::Status::kInvalidArgument, "model is NULL"), error);
  *model = nullptr;
  if (mode != LITE_MEMORY_BORROW && mode != LITE_MEMORY_COPY)
    return report(sink, sink.set(lite::Status::kInvalidArgument, "unknown memory mode %d", static_cast<int>(mode)),
                  error);
  std::unique_ptr<lite::Model> loaded;
  lite::Status s =
      lite::Model::load_memory(data, size, mode == LITE_MEMORY_COPY, lite::builtin_ops(), &loaded, &sink);
  return finish_load(s, std::move(loaded), sink, model, error);
}

void lite_model_destroy(lite_model* model) { delete model; }

lite_interpreter_options lite_interpreter_options_default(void) {
  lite_interpreter_options o;
  o.struct_size = sizeof(lite_interpreter_options);
  o.num_threads = 1;
  o.reserved = 0;
  o.cpu_affinity = LITE_CPU_AFFINITY_NONE;
  o.backend = LITE_BACKEND_CPU;
  o.precision = LITE_PRECISION_FP32;
  o.cache_dir = nullptr;
  o.max_memory_bytes = LITE_DEFAULT_MAX_MEMORY_BYTES;
  o.tune = LITE_TUNE_NONE;
  o.packed_weight_ratio = LITE_DEFAULT_PACKED_WEIGHT_RATIO;
  return o;
}

lite_status lite_interpreter_create(const lite_model* model, const lite_interpreter_options* options,
                                    lite_interpreter** interpreter, lite_error* error) {
  lite::ErrorSink sink;
  if (interpreter == nullptr)
    return report(sink, sink.set(lite::Status::kInvalidArgument, "interpreter is NULL"), error);
  *interpreter = nullptr;
  if (model == nullptr) return report(sink, sink.set(lite::Status::kInvalidArgument, "model is NULL"), error);
  lite_interpreter_options o = lite_interpreter_options_default();
  if (options != nullptr) {
    // Read only the fields the caller's struct has.
    if (options->struct_size < offsetof(lite_interpreter_options, num_threads) + sizeof(int))
      return report(sink, sink.set(lite::Status::kInvalidArgument, "options.struct_size %zu is too small",
                                   options->struct_size),
                    error);
    o.num_threads = options->num_threads;
    if (options->struct_size >= offsetof(lite_interpreter_options, cpu_affinity) + sizeof(int))
      o.cpu_affinity = options->cpu_affinity;
    if (options->struct_size >= offsetof(lite_interpreter_options, backend) + sizeof(int))
      o.backend = options->backend;
    if (options->struct_size >= offsetof(lite_interpreter_options, precision) + sizeof(int))
      o.precision = options->precision;
    if (options->struct_size >= offsetof(lite_interpreter_options, cache_dir) + sizeof(const char*))
      o.cache_dir = options->cache_dir;
    if (options->struct_size >= offsetof(lite_interpreter_options, max_memory_bytes) + sizeof(size_t) &&
        options->max_memory_bytes != 0)
      o.max_memory_bytes = options->max_memory_bytes;
    if (options->struct_size >= offsetof(lite_interpreter_options, tune) + sizeof(int)) o.tune = options->tune;
    if (options->struct_size >= offsetof(lite_interpreter_options, packed_weight_ratio) + sizeof(float) &&
        options->packed_weight_ratio != 0.0f)
      o.packed_weight_ratio = options->packed_weight_ratio;
  }
  if (o.backend != LITE_BACKEND_CPU && o.backend != LITE_BACKEND_OPENCL && o.backend != LITE_BACKEND_AUTO)
    return report(sink,
                  sink.set(lite::Status::kInvalidArgument,
                           "backend %d is unknown (0: LITE_BACKEND_CPU, 1: LITE_BACKEND_OPENCL, 2: LITE_BACKEND_AUTO)",
                           o.backend),
                  error);
  if (o.precision != LITE_PRECISION_FP32 && o.precision != LITE_PRECISION_FP16 &&
      o.precision != LITE_PRECISION_FP16_COMPUTE)
    return report(sink,
                  sink.set(lite::Status::kInvalidArgument,
                           "precision %d is unknown (0: LITE_PRECISION_FP32, 1: LITE_PRECISION_FP16, 2: LITE_PRECISION_FP16_COMPUTE)", o.precision),
                  error);
  if (o.tune < LITE_TUNE_NONE || o.tune > LITE_TUNE_EXHAUSTIVE)
    return report(sink,
                  sink.set(lite::Status::kInvalidArgument,
                           "tune %d is unknown (0: none, 1: fast, 2: normal, 3: exhaustive)", o.tune),
                  error);
  if (!(o.packed_weight_ratio >= 0.0f))
    return report(sink,
                  sink.set(lite::Status::kInvalidArgument, "packed_weight_ratio %g must be >= 0 (0: the default, %g)",
                           static_cast<double>(o.packed_weight_ratio),
                           static_cast<double>(LITE_DEFAULT_PACKED_WEIGHT_RATIO)),
                  error);
  if (o.num_threads < 1 || o.num_threads > 256)
    return report(sink, sink.set(lite::Status::kInvalidArgument, "num_threads %d (1..256)", o.num_threads), error);
  if (o.cpu_affinity != LITE_CPU_AFFINITY_NONE && o.cpu_affinity != LITE_CPU_AFFINITY_FAST_CORES)
    return report(sink,
                  sink.set(lite::Status::kInvalidArgument,
                           "cpu_affinity %d is unknown (0: LITE_CPU_AFFINITY_NONE, 1: LITE_CPU_AFFINITY_FAST_CORES)",
                           o.cpu_affinity),
                  error);
  const std::vector<int> cpus = o.cpu_affinity == LITE_CPU_AFFINITY_FAST_CORES
                                    ? lite::fastest_allowed_cpus(o.num_threads)
                                    : std::vector<int>();
  std::vector<std::unique_ptr<lite::Backend>> backends;
  std::string note;
  lite::OpenClBackend* opencl = nullptr;
  if (o.backend != LITE_BACKEND_CPU) {
    lite::OpenClOptions cl_options;
    cl_options.precision = static_cast<lite::ClPrecision>(o.precision);
    if (o.cache_dir != nullptr) cl_options.cache_dir = o.cache_dir;
    cl_options.tune = static_cast<lite::TuneLevel>(o.tune);
    std::string reason;
    std::unique_ptr<lite::OpenClBackend> cl = lite::OpenClBackend::create(cl_options, &reason);
    opencl = cl.get();
    if (cl != nullptr)
      backends.push_back(std::move(cl));
    else if (o.backend == LITE_BACKEND_OPENCL)
      return report(sink, sink.set(lite::Status::kUnsupported, "backend 'opencl' is unavailable: %s", reason.c_str()),
                    error);
    else
      note = "OpenCL unavailable, running on the CPU: " + reason;
  }
  std::unique_ptr<lite::Interpreter> it;
  lite::Status s = lite::Interpreter::create(model->model.get(), o.num_threads, cpus, std::move(backends), &it, &sink);
  if (s != lite::Status::kOk) return report(sink, s, error);
  lite_interpreter* result = new (std::nothrow) lite_interpreter;
  if (result == nullptr) return report(sink, sink.set(lite::Status::kOutOfMemory, "out of memory"), error);
  result->it = std::move(it);
  result->backend_note = note;
  result->opencl = opencl;
  result->it->set_max_memory_bytes(o.max_memory_bytes);
  result->it->set_packed_weight_ratio(o.packed_weight_ratio);
  *interpreter = result;
  return report(sink, lite::Status::kOk, error);
}

void lite_interpreter_destroy(lite_interpreter* interpreter) { delete interpreter; }

int lite_interpreter_cpu_affinity_cpus(const lite_interpreter* it, int* cpus, int capacity) {
  if (it == nullptr || capacity < 0 || (cpus == nullptr && capacity > 0)) return -1;
  const std::vector<int>& chosen = it->it->cpus();
  for (size_t i = 0; i < chosen.size() && i < static_cast<size_t>(capacity); ++i) cpus[i] = chosen[i];
  return static_cast<int>(chosen.size());
}

const char* lite_interpreter_error_message(const lite_interpreter* interpreter) {
  return interpreter != nullptr ? interpreter->it->error().message().c_str() : "interpreter is NULL";
}

int lite_interpreter_input_count(const lite_interpreter* it) { return it != nullptr ? it->it->num_inputs() : 0; }
int lite_interpreter_output_count(const lite_interpreter* it) { return it != nullptr ? it->it->num_outputs() : 0; }

const char* lite_interpreter_input_name(const lite_interpreter* it, int index) {
  int t = io_tensor(it, true, index);
  return t >= 0 ? it->it->tensor(t).ref.name : nullptr;
}

const char* lite_interpreter_output_name(const lite_interpreter* it, int index) {
  int t = io_tensor(it, false, index);
  return t >= 0 ? it->it->tensor(t).ref.name : nullptr;
}

int lite_interpreter_input_index(const lite_interpreter* it, const char* name) {
  if (it == nullptr || name == nullptr) return -1;
  for (int i = 0; i < it->it->num_inputs(); ++i)
    if (std::strcmp(it->it->tensor(it->it->input_tensor(i)).ref.name, name) == 0) return i;
  return -1;
}

int lite_interpreter_output_index(const lite_interpreter* it, const char* name) {
  if (it == nullptr || name == nullptr) return -1;
  for (int i = 0; i < it->it->num_outputs(); ++i)
    if (std::strcmp(it->it->tensor(it->it->output_tensor(i)).ref.name, name) == 0) return i;
  return -1;
}

int lite_interpreter_input_dtype(const lite_interpreter* it, int index) {
  int t = io_tensor(it, true, index);
  return t >= 0 ? static_cast<int>(it->it->tensor(t).ref.dtype) : -1;
}

int lite_interpreter_output_dtype(const lite_interpreter* it, int index) {
  int t = io_tensor(it, false, index);
  return t >= 0 ? static_cast<int>(it->it->tensor(t).ref.dtype) : -1;
}

int lite_interpreter_input_shape(const lite_interpreter* it, int index, int64_t* dims, int max_rank) {
  return copy_shape(it, true, index, dims, max_rank);
}

int lite_interpreter_output_shape(const lite_interpreter* it, int index, int64_t* dims, int max_rank) {
  return copy_shape(it, false, index, dims, max_rank);
}

size_t lite_interpreter_input_bytes(const lite_interpreter* it, int index) { return io_bytes(it, true, index); }
size_t lite_interpreter_output_bytes(const lite_interpreter* it, int index) { return io_bytes(it, false, index); }

lite_status lite_interpreter_input_quantization(const lite_interpreter* it, int index, lite_quantization* q) {
  return io_quantization(it, true, index, q);
}

lite_status lite_interpreter_output_quantization(const lite_interpreter* it, int index, lite_quantization* q) {
  return io_quantization(it, false, index, q);
}

lite_status lite_interpreter_resize_input(lite_interpreter* it, int index, const int64_t* dims, int rank) {
  if (it == nullptr) return LITE_INVALID_ARGUMENT;
  if (valid_input(it, index) && tensor_input(it, index, "resize_input") != LITE_OK) return LITE_INVALID_ARGUMENT;
  return to_c(it->it->resize_input(index, dims, rank));
}

lite_status lite_interpreter_allocate(lite_interpreter* it) {
  if (it == nullptr) return LITE_INVALID_ARGUMENT;
  return to_c(it->it->allocate());
}

lite_status lite_interpreter_set_input(lite_interpreter* it, int index, const void* data, size_t bytes) {
  if (!valid_input(it, index)) return index_error(it, true, index);
  if (tensor_input(it, index, "set_input") != LITE_OK) return LITE_INVALID_ARGUMENT;
  lite::Status s = it->it->allocate();
  if (s != lite::Status::kOk) return to_c(s);
  const lite::TensorSlot& slot = it->it->tensor(it->it->input_tensor(index));
  size_t need = slot.ref.bytes();
  if (bytes != need)
    return to_c(it->it->error().set(lite::Status::kInvalidArgument,
                                    "input %d '%s' of shape %s takes %zu bytes (%s), got %zu", index, slot.ref.name,
                                    lite::format_shape(slot.ref.shape).c_str(), need,
                                    lite::dtype_name(slot.ref.dtype), bytes));
  if (need > 0 && data == nullptr)
    return to_c(it->it->error().set(lite::Status::kInvalidArgument, "input %d: data is NULL", index));
  if (need > 0) std::memcpy(slot.ref.data, data, need);
  return LITE_OK;
}

void* lite_interpreter_input_data(lite_interpreter* it, int index) {
  if (!valid_input(it, index)) {
    index_error(it, true, index);
    return nullptr;
  }
  if (tensor_input(it, index, "input_data") != LITE_OK) return nullptr;
  if (it->it->allocate() != lite::Status::kOk) return nullptr;
  return it->it->tensor(it->it->input_tensor(index)).ref.data;
}

const void* lite_interpreter_output_data(lite_interpreter* it, int index) {
  if (!valid_output(it, index)) {
    index_error(it, false, index);
    return nullptr;
  }
  if (it->it->allocate() != lite::Status::kOk) return nullptr;
  return it->it->tensor(it->it->output_tensor(index)).ref.data;
}

lite_status lite_interpreter_invoke(lite_interpreter* it) {
  if (it == nullptr) return LITE_INVALID_ARGUMENT;
  return to_c(it->it->invoke());
}

lite_status lite_interpreter_reset_variables(lite_interpreter* it) {
  if (it == nullptr) return LITE_INVALID_ARGUMENT;
  it->it->reset_variables();
  return LITE_OK;
}

int lite_interpreter_variable_count(const lite_interpreter* it) {
  return it == nullptr ? 0 : it->it->num_variables();
}

lite_status lite_interpreter_get_output(lite_interpreter* it, int index, void* dst, size_t bytes) {
  if (!valid_output(it, index)) return index_error(it, false, index);
  lite::Status s = it->it->allocate();
  if (s != lite::Status::kOk) return to_c(s);
  const lite::TensorSlot& slot = it->it->tensor(it->it->output_tensor(index));
  size_t have = slot.ref.bytes();
  if (bytes != have)
    return to_c(it->it->error().set(lite::Status::kInvalidArgument,
                                    "output %d '%s' has %zu bytes (%s), the destination %zu", index, slot.ref.name,
                                    have, lite::dtype_name(slot.ref.dtype), bytes));
  if (have > 0 && dst == nullptr)
    return to_c(it->it->error().set(lite::Status::kInvalidArgument, "output %d: dst is NULL", index));
  if (have > 0) std::memcpy(dst, slot.ref.data, have);
  return LITE_OK;
}

size_t lite_interpreter_arena_bytes(const lite_interpreter* it) { return it != nullptr ? it->it->arena_bytes() : 0; }

size_t lite_interpreter_memory_bytes(const lite_interpreter* it) { return it != nullptr ? it->it->memory_bytes() : 0; }
size_t lite_interpreter_weights_bytes(const lite_interpreter* it) { return it != nullptr ? it->it->weights_bytes() : 0; }

int lite_interpreter_tensor_count(const lite_interpreter* it) { return it != nullptr ? it->it->num_tensors() : 0; }

lite_status lite_interpreter_tensor_info(const lite_interpreter* it, int index, lite_tensor_info* info) {
  if (it == nullptr || info == nullptr) return LITE_INVALID_ARGUMENT;
  if (index < 0 || index >= it->it->num_tensors())
    return to_c(it->it->error().set(lite::Status::kInvalidArgument, "tensor index %d out of range", index));
  const lite::TensorSlot& slot = it->it->tensor(index);
  std::memset(info, 0, sizeof(*info));
  info->name = slot.ref.name;
  info->dtype = static_cast<int>(slot.ref.dtype);
  info->rank = slot.ref.shape.rank;
  for (int d = 0; d < slot.ref.shape.rank; ++d) info->dims[d] = slot.ref.shape.dims[d];
  info->bytes = shape_bytes(slot.ref.shape, slot.ref.dtype);
  switch (slot.storage) {
    case lite::Storage::kNone: info->storage = LITE_STORAGE_NONE; break;
    case lite::Storage::kConstant: info->storage = LITE_STORAGE_CONSTANT; break;
    case lite::Storage::kArena: info->storage = LITE_STORAGE_ARENA; break;
    case lite::Storage::kPrepared: info->storage = LITE_STORAGE_PREPARED; break;
    case lite::Storage::kBackend: info->storage = LITE_STORAGE_BACKEND; break;
    case lite::Storage::kVariable: info->storage = LITE_STORAGE_VARIABLE; break;
  }
  info->arena_offset = slot.storage == lite::Storage::kArena ? slot.arena_offset : -1;
  info->data = slot.ref.data;
  return LITE_OK;
}

lite_status lite_interpreter_set_profiling(lite_interpreter* it, int enabled) {
  if (it == nullptr) return LITE_INVALID_ARGUMENT;
  it->it->set_profiling(enabled != 0);
  if (it->opencl != nullptr) it->opencl->set_profiling(enabled != 0);
  return LITE_OK;
}

int lite_interpreter_profile_count(const lite_interpreter* it) { return it != nullptr ? it->it->num_ops() : 0; }

int lite_interpreter_op_computed_by(const lite_interpreter* it, int index) {
  if (it == nullptr || index < 0 || index >= it->it->num_ops()) return -2;
  return it->it->op_computed_by(index);
}

const char* lite_interpreter_op_backend(const lite_interpreter* it, int index) {
  if (it == nullptr || index < 0 || index >= it->it->num_ops()) return nullptr;
  const int backend = it->it->op_backend(index);
  return backend >= 0 ? it->it->backend(backend).name() : nullptr;
}

lite_status lite_interpreter_profile_entry(const lite_interpreter* it, int index, lite_op_profile* entry) {
  if (it == nullptr || entry == nullptr) return LITE_INVALID_ARGUMENT;
  if (index < 0 || index >= it->it->num_ops())
    return to_c(it->it->error().set(lite::Status::kInvalidArgument, "op index %d out of range", index));
  const lite_fb::Operator* op = it->it->op(index);
  lite::OpProfile profile = it->it->op_profile(index);
  entry->op_index = index;
  entry->op_name = lite::opcode_name(op->opcode());
  entry->node_name = op->name() != nullptr ? op->name()->c_str() : "";
  entry->total_seconds = profile.seconds;
  entry->calls = profile.calls;
  return LITE_OK;
}

const char* lite_interpreter_backend_note(const lite_interpreter* it) {
  return it != nullptr ? it->backend_note.c_str() : "";
}

const char* lite_interpreter_backend_info(lite_interpreter* it) {
  if (it == nullptr) return "";
  it->backend_info = it->opencl != nullptr ? it->opencl->describe() : std::string();
  return it->backend_info.c_str();
}

const char* lite_interpreter_backend_profile(lite_interpreter* it) {
  if (it == nullptr) return "";
  it->backend_profile = it->opencl != nullptr ? it->opencl->profile_report() : std::string();
  return it->backend_profile.c_str();
}

// ---- sequences and optionals (sequence_value.h) -------------------------------------------------
// Left out of builds without the sequence ops (LITE_RUNTIME_SEQUENCES=OFF, the ARM default): the
// symbols are absent there, which keeps the library's export table (and its size budget) as it was.
#ifndef LITE_NO_SEQUENCES

int lite_interpreter_input_kind(const lite_interpreter* it, int index) {
  int t = io_tensor(it, true, index);
  return t >= 0 ? static_cast<int>(it->it->tensor(t).ref.kind) : -1;
}

int lite_interpreter_output_kind(const lite_interpreter* it, int index) {
  int t = io_tensor(it, false, index);
  return t >= 0 ? static_cast<int>(it->it->tensor(t).ref.kind) : -1;
}

namespace {

// Output `index` as a sequence view whose header is validated (an element is checked when read); the
// error is set on the interpreter otherwise.
lite::Status output_view(lite_interpreter* it, int index, lite::SequenceView* view) {
  if (!valid_output(it, index)) return static_cast<lite::Status>(index_error(it, false, index));
  const lite::TensorRef& t = it->it->tensor(it->it->output_tensor(index)).ref;
  const char* why = "";
  if (t.kind == lite_fb::ValueKind::TENSOR)
    return it->it->error().set(lite::Status::kInvalidArgument, "output %d '%s' is a tensor, not a sequence or optional",
                               index, t.name);
  if (it->it->needs_allocate() || !lite::read_sequence_header(t, view, &why))
    return it->it->error().set(lite::Status::kInvalidArgument, "output %d '%s' has no value yet (invoke first)", index,
                               t.name);
  return lite::Status::kOk;
}

}  // namespace

int64_t lite_interpreter_output_sequence_length(lite_interpreter* it, int index) {
  lite::SequenceView view;
  return output_view(it, index, &view) == lite::Status::kOk ? view.count : -1;
}

int lite_interpreter_output_has_element(lite_interpreter* it, int index) {
  lite::SequenceView view;
  return output_view(it, index, &view) == lite::Status::kOk ? (view.has_value ? 1 : 0) : -1;
}

lite_status lite_interpreter_output_sequence_element(lite_interpreter* it, int index, int64_t i,
                                                     lite_sequence_element* element) {
  lite::SequenceView view;
  lite::Status s = output_view(it, index, &view);
  if (s != lite::Status::kOk) return to_c(s);
  if (element == nullptr || i < 0 || i >= view.count)
    return to_c(it->it->error().set(lite::Status::kInvalidArgument, "element %lld of output %d: %s",
                                    static_cast<long long>(i), index,
                                    element == nullptr ? "element is NULL" : "out of range"));
  if (!lite::valid_sequence_entry(view, i))
    return to_c(it->it->error().set(lite::Status::kInvalidArgument, "element %lld of output %d: %s",
                                    static_cast<long long>(i), index, "is not a valid sequence entry"));
  const lite::TensorRef e = view.element(i);
  element->dtype = static_cast<int>(e.dtype);
  element->rank = e.shape.rank;
  for (int d = 0; d < LITE_MAX_RANK; ++d) element->dims[d] = d < e.shape.rank ? e.shape.dims[d] : 0;
  element->data = e.data;
  element->bytes = e.bytes();
  return LITE_OK;
}

namespace {

// The input's elements as tensor views (checked against the input's kind and dtype) and the bytes
// of their value; LITE_OK or the error (set on the interpreter).
lite_status sequence_refs(lite_interpreter* it, int index, const lite_sequence_element* elements, int64_t count,
                          std::vector<lite::TensorRef>* refs, size_t* bytes) {
  if (!valid_input(it, index)) return index_error(it, true, index);
  lite::ErrorSink& error = it->it->error();
  const lite::TensorRef& in = it->it->tensor(it->it->input_tensor(index)).ref;
  const lite_fb::ValueKind kind = in.kind;
  const bool optional = kind == lite_fb::ValueKind::OPTIONAL_TENSOR || kind == lite_fb::ValueKind::OPTIONAL_SEQUENCE;
  if (kind == lite_fb::ValueKind::TENSOR || count < -1 || (count == -1 && !optional) ||
      (kind == lite_fb::ValueKind::OPTIONAL_TENSOR && count != 1 && count != -1) ||
      (count > 0 && elements == nullptr) || count > 1000000)
    return to_c(error.set(lite::Status::kInvalidArgument, "input %d '%s' (kind %d) cannot take %lld elements", index,
                          in.name, static_cast<int>(kind), static_cast<long long>(count)));
  refs->assign(static_cast<size_t>(count > 0 ? count : 0), lite::TensorRef());
  std::vector<const lite::TensorRef*> pointers;
  for (size_t i = 0; i < refs->size(); ++i) {
    const lite_sequence_element& e = elements[i];
    lite::TensorRef& r = (*refs)[i];
    r.dtype = static_cast<lite_fb::DType>(e.dtype);
    r.shape.rank = e.rank;
    size_t n = 0;
    const bool shape_ok = e.rank >= 0 && e.rank <= LITE_MAX_RANK &&
                          lite::checked_num_elements(e.dims, e.rank, lite::Interpreter::kMaxTensorBytes, &n);
    if (shape_ok)
      for (int d = 0; d < e.rank; ++d) r.shape.dims[d] = e.dims[d];
    r.data = const_cast<void*>(e.data);
    if (e.dtype != static_cast<int>(in.dtype) || !shape_ok || e.bytes != r.bytes() || (e.bytes > 0 && e.data == nullptr))
      return to_c(error.set(lite::Status::kInvalidArgument,
                            "input %d '%s': element %zu must be %s with a valid shape, bytes = its size, data set", index,
                            in.name, i, lite::dtype_name(in.dtype)));
    pointers.push_back(&r);
  }
  if (!lite::sequence_bytes(pointers.data(), static_cast<int64_t>(pointers.size()), lite::Interpreter::kMaxTensorBytes,
                            bytes))
    return to_c(error.set(lite::Status::kInvalidArgument, "input %d '%s': the sequence exceeds 2 GiB", index, in.name));
  return LITE_OK;
}

}  // namespace

lite_status lite_interpreter_resize_input_sequence(lite_interpreter* it, int index, const lite_sequence_element* elements,
                                                   int64_t count) {
  std::vector<lite::TensorRef> refs;
  size_t bytes = 0;
  lite_status s = sequence_refs(it, index, elements, count, &refs, &bytes);
  if (s != LITE_OK) return s;
  const int64_t dims[1] = {static_cast<int64_t>(bytes / lite::dtype_size(it->it->tensor(it->it->input_tensor(index)).ref.dtype))};
  return to_c(it->it->resize_input(index, dims, 1));
}

lite_status lite_interpreter_set_input_sequence(lite_interpreter* it, int index, const lite_sequence_element* elements,
                                                int64_t count) {
  std::vector<lite::TensorRef> refs;
  size_t bytes = 0;
  lite_status s = lite_interpreter_resize_input_sequence(it, index, elements, count);
  if (s == LITE_OK) s = sequence_refs(it, index, elements, count, &refs, &bytes);
  if (s == LITE_OK) s = to_c(it->it->allocate());
  if (s != LITE_OK) return s;
  std::vector<const lite::TensorRef*> pointers;
  for (const lite::TensorRef& r : refs) pointers.push_back(&r);
  const lite::TensorRef& in = it->it->tensor(it->it->input_tensor(index)).ref;
  lite::write_sequence(in.data, bytes, in.kind, count >= 0, in.dtype, pointers.data(), static_cast<int64_t>(pointers.size()));
  return LITE_OK;
}

#endif  // LITE_NO_SEQUENCES

}  // extern "C"
