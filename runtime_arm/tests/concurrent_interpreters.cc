// Several interpreters on one shared model, each with its own worker threads, invoked at the same
// time (the C API's thread contract: a model may serve many interpreters in many threads). Built
// under ThreadSanitizer by `make tsan` and driven by tests/test_tsan.py: any race is a TSan report;
// the outputs of every interpreter and every round must equal one reference run, byte for byte.
//
//   concurrent_interpreters MODEL [--interpreters N] [--threads T] [--rounds R] [--dynamic-dim D]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "lite_runtime.h"

namespace {

struct Options {
  int interpreters = 3;
  int threads = 2;
  int rounds = 4;
  int64_t dynamic_dim = 16;
};

// All outputs of one invoke, concatenated; empty with a message on stderr on failure.
std::vector<unsigned char> run_once(lite_interpreter* it) {
  std::vector<unsigned char> all;
  for (int i = 0; i < lite_interpreter_input_count(it); ++i) {
    std::vector<unsigned char> value(lite_interpreter_input_bytes(it, i));
    for (size_t b = 0; b < value.size(); ++b) value[b] = static_cast<unsigned char>((b * 37 + i) % 61);
    if (lite_interpreter_set_input(it, i, value.data(), value.size()) != LITE_OK) return {};
  }
  if (lite_interpreter_invoke(it) != LITE_OK) {
    std::fprintf(stderr, "invoke: %s\n", lite_interpreter_error_message(it));
    return {};
  }
  for (int i = 0; i < lite_interpreter_output_count(it); ++i) {
    std::vector<unsigned char> out(lite_interpreter_output_bytes(it, i));
    if (lite_interpreter_get_output(it, i, out.data(), out.size()) != LITE_OK) return {};
    all.insert(all.end(), out.begin(), out.end());
  }
  all.push_back(1);  // never empty on success
  return all;
}

lite_interpreter* create(const lite_model* model, int threads, int64_t dynamic_dim) {
  lite_interpreter_options options = lite_interpreter_options_default();
  options.num_threads = threads;
  lite_interpreter* it = nullptr;
  lite_error error;
  if (lite_interpreter_create(model, &options, &it, &error) != LITE_OK) {
    std::fprintf(stderr, "create: %s\n", error.message);
    return nullptr;
  }
  for (int i = 0; i < lite_interpreter_input_count(it); ++i) {
    int64_t dims[LITE_MAX_RANK];
    const int rank = lite_interpreter_input_shape(it, i, dims, LITE_MAX_RANK);
    for (int d = 0; d < rank; ++d)
      if (dims[d] < 0) dims[d] = d == 0 ? 1 : dynamic_dim;
    if (lite_interpreter_resize_input(it, i, dims, rank) != LITE_OK) {
      std::fprintf(stderr, "resize: %s\n", lite_interpreter_error_message(it));
      lite_interpreter_destroy(it);
      return nullptr;
    }
  }
  return it;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL [--interpreters N] [--threads T] [--rounds R] [--dynamic-dim D]\n", argv[0]);
    return 2;
  }
  Options o;
  for (int a = 2; a + 1 < argc; a += 2) {
    if (std::strcmp(argv[a], "--interpreters") == 0) o.interpreters = std::atoi(argv[a + 1]);
    else if (std::strcmp(argv[a], "--threads") == 0) o.threads = std::atoi(argv[a + 1]);
    else if (std::strcmp(argv[a], "--rounds") == 0) o.rounds = std::atoi(argv[a + 1]);
    else if (std::strcmp(argv[a], "--dynamic-dim") == 0) o.dynamic_dim = std::atoll(argv[a + 1]);
  }
  lite_model* model = nullptr;
  lite_error error;
  if (lite_model_load_file(argv[1], &model, &error) != LITE_OK) {
    std::fprintf(stderr, "load: %s\n", error.message);
    return 1;
  }
  lite_interpreter* reference_it = create(model, 1, o.dynamic_dim);
  if (reference_it == nullptr) return 1;
  const std::vector<unsigned char> reference = run_once(reference_it);
  lite_interpreter_destroy(reference_it);
  if (reference.empty()) return 1;

  std::vector<int> mismatches(static_cast<size_t>(o.interpreters), 0);
  std::vector<std::thread> workers;
  for (int w = 0; w < o.interpreters; ++w) {
    workers.emplace_back([&, w] {
      lite_interpreter* it = create(model, o.threads, o.dynamic_dim);
      if (it == nullptr) {
        mismatches[static_cast<size_t>(w)] = -1;
        return;
      }
      for (int r = 0; r < o.rounds; ++r)
        if (run_once(it) != reference) ++mismatches[static_cast<size_t>(w)];
      lite_interpreter_destroy(it);
    });
  }
  for (std::thread& t : workers) t.join();
  lite_model_destroy(model);
  int failed = 0;
  for (int w = 0; w < o.interpreters; ++w) {
    std::printf("interpreter %d: %d of %d rounds differ from the reference\n", w, mismatches[static_cast<size_t>(w)],
                o.rounds);
    failed += mismatches[static_cast<size_t>(w)] != 0;
  }
  return failed == 0 ? 0 : 1;
}
