// libFuzzer target over the public C API (make fuzz; docs/RELIABILITY.md): the input is a .lite
// file. It is loaded from memory (borrowed at an 8- but not 64-byte aligned address) and, when it
// verifies, run as an application would: create an interpreter with a small memory bound, read
// every inspection call, resize dynamic inputs, allocate, set inputs, invoke, read outputs, resize
// them larger and invoke again. The caller's mistakes are tried too (a wrong rank, wrong byte
// counts, indices out of range): each must be refused with LITE_INVALID_ARGUMENT and a message.
// Every failure must carry a message; anything else (a crash, a sanitizer report, a leak, a memory
// blow-up past -rss_limit_mb, a hang past -timeout) is a finding.
#include <sys/stat.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "lite_runtime.h"

namespace {

// Enough for the corpus's real models at small shapes; a hostile plan beyond it is refused by the
// bound before anything is allocated, which is what this target checks.
constexpr size_t kMaxMemoryBytes = size_t{48} << 20;

void expect(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "fuzz_c_api: broken contract: %s\n", what);
  std::abort();
}

void expect_message(lite_interpreter* it, lite_status s) {
  if (s != LITE_OK) expect(lite_interpreter_error_message(it)[0] != '\0', "a failed call left no message");
}

void inspect(lite_interpreter* it) {
  const int inputs = lite_interpreter_input_count(it), outputs = lite_interpreter_output_count(it);
  int64_t dims[LITE_MAX_RANK];
  lite_quantization q;
  for (int i = -1; i <= inputs; ++i) {
    const char* name = lite_interpreter_input_name(it, i);
    expect((name != nullptr) == (i >= 0 && i < inputs), "input name by index");
    if (name != nullptr) expect(lite_interpreter_input_index(it, name) >= 0, "input index by name");
    lite_interpreter_input_shape(it, i, dims, LITE_MAX_RANK);
    lite_interpreter_input_dtype(it, i);
    lite_interpreter_input_bytes(it, i);
    if (lite_interpreter_input_quantization(it, i, &q) == LITE_OK)
      for (int k = 0; k < q.count; ++k) (void)q.scales[k];
  }
  for (int i = -1; i <= outputs; ++i) {
    const char* name = lite_interpreter_output_name(it, i);
    if (name != nullptr) lite_interpreter_output_index(it, name);
    lite_interpreter_output_shape(it, i, dims, LITE_MAX_RANK);
    lite_interpreter_output_dtype(it, i);
    lite_interpreter_output_bytes(it, i);
    lite_interpreter_output_quantization(it, i, &q);
  }
  lite_tensor_info info;
  for (int t = 0; t < lite_interpreter_tensor_count(it); ++t) {
    if (lite_interpreter_tensor_info(it, t, &info) != LITE_OK) continue;
    expect(info.name != nullptr && info.rank >= 0 && info.rank <= LITE_MAX_RANK, "tensor info");
  }
  lite_op_profile entry;
  for (int k = 0; k < lite_interpreter_profile_count(it); ++k) {
    expect(lite_interpreter_profile_entry(it, k, &entry) == LITE_OK, "profile entry in range");
    lite_interpreter_op_computed_by(it, k);
    lite_interpreter_op_backend(it, k);
  }
}

size_t dtype_bytes(int dtype) {
  switch (dtype) {
    case LITE_FLOAT64: case LITE_INT64: case LITE_UINT64: return 8;
    case LITE_FLOAT32: case LITE_INT32: case LITE_UINT32: return 4;
    case LITE_FLOAT16: case LITE_INT16: case LITE_UINT16: return 2;
    default: return 1;
  }
}

// The value a sequence / optional input gets: `size` elements of shape [size] of its dtype (an
// optional tensor: one; in the grown pass an optional has no value), over `storage`.
int64_t sequence_value(lite_interpreter* it, int i, int64_t size, std::vector<unsigned char>* storage,
                       std::vector<lite_sequence_element>* elements) {
  const int kind = lite_interpreter_input_kind(it, i);
  const bool optional = kind == LITE_KIND_OPTIONAL_TENSOR || kind == LITE_KIND_OPTIONAL_SEQUENCE;
  if (optional && size > 4) return -1;
  const int64_t count = kind == LITE_KIND_OPTIONAL_TENSOR ? 1 : size;
  const int dtype = lite_interpreter_input_dtype(it, i);
  const size_t bytes = static_cast<size_t>(size) * dtype_bytes(dtype);
  storage->assign(bytes, static_cast<unsigned char>(0x3c + i));
  elements->assign(static_cast<size_t>(count), lite_sequence_element{});
  for (lite_sequence_element& e : *elements) {
    e.dtype = dtype;
    e.rank = 1;
    e.dims[0] = size;
    e.data = storage->data();
    e.bytes = bytes;
  }
  return count;
}

// Resolves every dynamic dim of every input to `size` (grow: the dims that were dynamic, + 3); a
// sequence / optional input is resized to its sequence_value.
lite_status resize(lite_interpreter* it, const std::vector<std::vector<int>>& dynamic, int64_t size) {
  for (int i = 0; i < lite_interpreter_input_count(it); ++i) {
    if (lite_interpreter_input_kind(it, i) != LITE_KIND_TENSOR) {
      std::vector<unsigned char> storage;
      std::vector<lite_sequence_element> elements;
      const int64_t count = sequence_value(it, i, size, &storage, &elements);
      lite_status s = lite_interpreter_resize_input_sequence(it, i, elements.data(), count);
      expect_message(it, s);
      if (s != LITE_OK) return s;
      continue;
    }
    int64_t dims[LITE_MAX_RANK];
    const int rank = lite_interpreter_input_shape(it, i, dims, LITE_MAX_RANK);
    if (rank < 0 || rank > LITE_MAX_RANK || dynamic[static_cast<size_t>(i)].empty()) continue;
    for (int d : dynamic[static_cast<size_t>(i)]) dims[d] = size;
    lite_status s = lite_interpreter_resize_input(it, i, dims, rank);
    expect_message(it, s);
    if (s != LITE_OK) return s;
  }
  return LITE_OK;
}

// The caller's mistakes: each is refused as INVALID_ARGUMENT with a message, and changes nothing.
void misuse(lite_interpreter* it) {
  const int inputs = lite_interpreter_input_count(it);
  int64_t dims[LITE_MAX_RANK + 1] = {};
  expect(lite_interpreter_resize_input(it, inputs, dims, 1) == LITE_INVALID_ARGUMENT, "resize: index");
  for (int i = 0; i < inputs; ++i) {
    const int rank = lite_interpreter_input_shape(it, i, dims, LITE_MAX_RANK);
    if (rank < 0 || rank >= LITE_MAX_RANK) continue;
    dims[rank] = 1;
    lite_status s = lite_interpreter_resize_input(it, i, dims, rank + 1);
    expect(s == LITE_INVALID_ARGUMENT, "resize with the wrong rank is the caller's error");
    expect_message(it, s);
  }
  unsigned char byte = 0;
  expect(lite_interpreter_set_input(it, inputs, &byte, 1) == LITE_INVALID_ARGUMENT, "set_input: index");
  expect(lite_interpreter_get_output(it, -1, &byte, 1) == LITE_INVALID_ARGUMENT, "get_output: index");
}

lite_status run(lite_interpreter* it, int64_t size) {
  lite_status s = lite_interpreter_allocate(it);
  expect_message(it, s);
  if (s != LITE_OK) return s;
  expect(lite_interpreter_memory_bytes(it) <= kMaxMemoryBytes, "committed memory within the bound");
  for (int i = 0; i < lite_interpreter_input_count(it); ++i) {
    if (lite_interpreter_input_kind(it, i) != LITE_KIND_TENSOR) {
      unsigned char one = 0;
      expect(lite_interpreter_set_input(it, i, &one, 1) == LITE_INVALID_ARGUMENT, "set_input: a sequence input");
      std::vector<unsigned char> storage;
      std::vector<lite_sequence_element> elements;
      const int64_t count = sequence_value(it, i, size, &storage, &elements);
      s = lite_interpreter_set_input_sequence(it, i, elements.data(), count);
      expect_message(it, s);
      if (s != LITE_OK) return s;
      continue;
    }
    const size_t bytes = lite_interpreter_input_bytes(it, i);
    std::vector<unsigned char> value(bytes, static_cast<unsigned char>(0x3c + i));
    if (lite_interpreter_input_dtype(it, i) == LITE_INT64)  // trip counts, indices: small, so a loop ends
      for (size_t k = 0; k + 8 <= bytes; k += 8) {
        const int64_t small = 2 + i;
        std::memcpy(value.data() + k, &small, 8);
      }
    if (bytes > 0) {
      unsigned char one = 0;
      expect(lite_interpreter_set_input(it, i, &one, bytes + 1) == LITE_INVALID_ARGUMENT, "set_input: bytes");
    }
    s = lite_interpreter_set_input(it, i, value.data(), bytes);
    expect_message(it, s);
    if (s != LITE_OK) return s;
  }
  s = lite_interpreter_invoke(it);
  expect_message(it, s);
  if (s != LITE_OK) return s;
  for (int i = 0; i < lite_interpreter_output_count(it); ++i) {
    std::vector<unsigned char> out(lite_interpreter_output_bytes(it, i));
    s = lite_interpreter_get_output(it, i, out.data(), out.size());
    expect_message(it, s);
    if (s != LITE_OK) return s;
    if (!out.empty()) expect(lite_interpreter_output_data(it, i) != nullptr, "output data after invoke");
    if (lite_interpreter_output_kind(it, i) > LITE_KIND_TENSOR) {  // a sequence / optional: every element
      const int64_t length = lite_interpreter_output_sequence_length(it, i);
      expect(length >= 0 && lite_interpreter_output_has_element(it, i) >= 0, "sequence output after invoke");
      lite_sequence_element e;
      for (int64_t k = -1; k <= length; ++k)
        expect((lite_interpreter_output_sequence_element(it, i, k, &e) == LITE_OK) == (k >= 0 && k < length),
               "sequence element by index");
    }
  }
  // a stateful model's variables back to their initial values, then one more step of the stream
  expect(lite_interpreter_reset_variables(nullptr) == LITE_INVALID_ARGUMENT, "reset_variables: NULL");
  expect(lite_interpreter_reset_variables(it) == LITE_OK, "reset_variables");
  expect(lite_interpreter_variable_count(it) >= 0, "variable_count");
  s = lite_interpreter_invoke(it);
  expect_message(it, s);
  return s;
}

}  // namespace

// libFuzzer writes every new input into the first folder it is given; the regression tests list
// tests/fuzz/regressions exactly, so a command line naming a folder there is refused (its files,
// given one by one, are replayed).
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  char regressions[PATH_MAX];
  if (realpath(LITE_FUZZ_REGRESSIONS_DIR, regressions) == nullptr) return 0;
  const std::string root = regressions;
  for (int i = 1; i < *argc; ++i) {
    const char* argument = (*argv)[i];
    char resolved[PATH_MAX];
    struct stat info;
    if (argument[0] == '-' || realpath(argument, resolved) == nullptr) continue;
    if (stat(resolved, &info) != 0 || !S_ISDIR(info.st_mode)) continue;
    const std::string path = resolved;
    if (path == root || path.compare(0, root.size() + 1, root + "/") == 0) {
      std::fprintf(stderr, "%s is a regression folder: libFuzzer would add its new inputs there. Pass its "
                   "files (regressions/c_api/*) to replay them, or a corpus folder outside the repository "
                   "(make fuzz uses build/fuzz/corpus/c_api)\n", argument);
      std::exit(2);
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> storage(size + 72);
  const uintptr_t base = reinterpret_cast<uintptr_t>(storage.data());
  uint8_t* model_bytes = storage.data() + (64 - base % 64) % 64 + 8;
  if (size > 0) std::memcpy(model_bytes, data, size);
  lite_error error;
  lite_model* model = nullptr;
  lite_status s = lite_model_load_memory(model_bytes, size, LITE_MEMORY_BORROW, &model, &error);
  if (s != LITE_OK) {
    expect(model == nullptr && error.message[0] != '\0', "a refused load sets no model and has a message");
    return 0;
  }
  lite_interpreter_options options = lite_interpreter_options_default();
  options.max_memory_bytes = kMaxMemoryBytes;
  lite_interpreter* it = nullptr;
  s = lite_interpreter_create(model, &options, &it, &error);
  if (s != LITE_OK) {
    expect(it == nullptr && error.message[0] != '\0', "a refused create has a message");
    lite_model_destroy(model);
    return 0;
  }
  inspect(it);
  std::vector<std::vector<int>> dynamic(static_cast<size_t>(lite_interpreter_input_count(it)));
  bool any_dynamic = false;
  for (int i = 0; i < lite_interpreter_input_count(it); ++i) {
    int64_t dims[LITE_MAX_RANK];
    const int rank = lite_interpreter_input_shape(it, i, dims, LITE_MAX_RANK);
    for (int d = 0; d < rank && d < LITE_MAX_RANK; ++d)
      if (dims[d] < 0) dynamic[static_cast<size_t>(i)].push_back(d);
    any_dynamic = any_dynamic || !dynamic[static_cast<size_t>(i)].empty();
  }
  misuse(it);
  s = resize(it, dynamic, 4);
  if (s == LITE_OK) s = run(it, 4);
  inspect(it);
  if (s == LITE_OK && any_dynamic && resize(it, dynamic, 7) == LITE_OK) {
    run(it, 7);
    inspect(it);
  }
  lite_interpreter_destroy(it);
  lite_model_destroy(model);
  return 0;
}
