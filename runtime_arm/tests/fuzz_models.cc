// Fuzz harness over the C API (built with ASan/UBSan by `make asan`; driven by
// tests/test_fuzz_models.py with mutated real .lite files).
//
//   fuzz_models [--dynamic-dim N] [--shape D0xD1x...] [--grow N] [--max-arena BYTES] FILE... | @LISTFILE
//
// For every file: load (alternately from the file and from memory borrowed at a misaligned
// address), create an interpreter, resize dynamic input dims (to the matching dim of --shape when
// the input's rank equals its rank, else to N), zero the inputs, invoke, read the
// outputs. Prints one line per file, "<path>: ok" or "<path>: <stage>: <status>: <message>"
// (control characters in the message printed as '?').
// Any crash, leak or sanitizer report is a bug in the runtime; the process exits 0 otherwise.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "lite_runtime.h"

namespace {

const char* status_name(lite_status s) {
  switch (s) {
    case LITE_OK: return "OK";
    case LITE_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case LITE_IO_ERROR: return "IO_ERROR";
    case LITE_INVALID_MODEL: return "INVALID_MODEL";
    case LITE_UNSUPPORTED: return "UNSUPPORTED";
    case LITE_OUT_OF_MEMORY: return "OUT_OF_MEMORY";
    case LITE_SHAPE_ERROR: return "SHAPE_ERROR";
    case LITE_VERSION_MISMATCH: return "VERSION_MISMATCH";
    case LITE_INTERNAL: return "INTERNAL";
  }
  return "UNKNOWN_STATUS";
}

bool read_file(const char* path, std::vector<unsigned char>* out) {
  FILE* f = std::fopen(path, "rb");
  if (f == nullptr) return false;
  unsigned char chunk[65536];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), f)) > 0) out->insert(out->end(), chunk, chunk + n);
  std::fclose(f);
  return true;
}

struct Options {
  int64_t dynamic_dim = 8;
  std::vector<int64_t> shape;  // preferred sizes for dynamic dims, by position
  size_t max_arena = size_t{16} << 20;
  int64_t grow = 1;  // round 1 adds this to every dynamic dim >= 4
};

// Resizes, allocates, sets zero inputs, invokes and reads the outputs once. `skipped` receives a
// line when the plan is too large to run quickly under the sanitizers.
lite_status run_round(lite_interpreter* it, const Options& options, int round, const char** stage,
                      std::vector<unsigned>* dynamic_masks, std::string* skipped, const std::string& prefix) {
  lite_status s = LITE_OK;
  *stage = "resize";
  for (int i = 0; i < lite_interpreter_input_count(it) && s == LITE_OK; ++i) {
    int64_t declared[LITE_MAX_RANK];
    int rank = lite_interpreter_input_shape(it, i, declared, LITE_MAX_RANK);
    if (rank < 0) return LITE_INTERNAL;
    if (round == 0) dynamic_masks->push_back(0);
    unsigned& mask = (*dynamic_masks)[static_cast<size_t>(i)];
    int64_t dims[LITE_MAX_RANK];
    bool dynamic = false;
    for (int d = 0; d < rank; ++d) {
      int64_t want = static_cast<size_t>(rank) == options.shape.size() ? options.shape[static_cast<size_t>(d)]
                                                                      : options.dynamic_dim;
      dims[d] = declared[d];
      if (round == 0 && declared[d] < 0) {
        dims[d] = want;
        mask |= 1u << d;
        dynamic = true;
      } else if (round == 1 && (mask & (1u << d)) != 0 && dims[d] >= 4) {
        dims[d] += options.grow;
        dynamic = true;
      }
    }
    if (dynamic) s = lite_interpreter_resize_input(it, i, dims, rank);
  }
  if (s == LITE_OK) {
    *stage = "allocate";
    s = lite_interpreter_allocate(it);
  }
  if (s != LITE_OK) return s;
  if (lite_interpreter_arena_bytes(it) > options.max_arena) {
    *skipped = prefix + "skipped: arena of " + std::to_string(lite_interpreter_arena_bytes(it)) + " bytes";
    return s;
  }
  *stage = "set_input";
  for (int i = 0; i < lite_interpreter_input_count(it) && s == LITE_OK; ++i) {
    std::vector<unsigned char> zeros(lite_interpreter_input_bytes(it, i));
    s = lite_interpreter_set_input(it, i, zeros.data(), zeros.size());
  }
  if (s == LITE_OK) {
    *stage = "invoke";
    s = lite_interpreter_invoke(it);
  }
  for (int i = 0; i < lite_interpreter_output_count(it) && s == LITE_OK; ++i) {
    *stage = "get_output";
    std::vector<unsigned char> out(lite_interpreter_output_bytes(it, i));
    s = lite_interpreter_get_output(it, i, out.data(), out.size());
  }
  return s;
}

// Runs one model; returns the line to print.
std::string run_one(const char* path, bool from_memory, const Options& options) {
  std::string prefix = std::string(path) + ": ";
  lite_error error;
  lite_model* model = nullptr;
  lite_status s;
  std::vector<unsigned char> storage;
  if (from_memory) {
    std::vector<unsigned char> bytes;
    if (!read_file(path, &bytes)) return prefix + "read: cannot read the file";
    // Borrowed at an address that is 8- but not 64-byte aligned: the loader must cope.
    storage.resize(bytes.size() + 128);
    uintptr_t base = reinterpret_cast<uintptr_t>(storage.data());
    size_t shift = (64 - base % 64) % 64 + 8;
    if (!bytes.empty()) std::memcpy(storage.data() + shift, bytes.data(), bytes.size());
    s = lite_model_load_memory(storage.data() + shift, bytes.size(), LITE_MEMORY_BORROW, &model, &error);
  } else {
    s = lite_model_load_file(path, &model, &error);
  }
  if (s != LITE_OK) {
    if (model != nullptr) return prefix + "BUG: model set on failure";
    if (std::strlen(error.message) == 0) return prefix + "BUG: load failed without a message";
    return prefix + "load: " + status_name(s) + ": " + error.message;
  }
  std::string result;
  lite_interpreter* it = nullptr;
  s = lite_interpreter_create(model, nullptr, &it, &error);
  if (s != LITE_OK) {
    lite_model_destroy(model);
    return prefix + "create: " + status_name(s) + ": " + error.message;
  }
  const char* stage = "resize";
  // Round 0 at the requested sizes; round 1 grows the dynamic dims >= 4 by --grow (a re-prepare
  // and re-plan, as after a user's resize) when the model has any.
  std::vector<unsigned> dynamic_masks;  // per input: which dims were dynamic in the model
  for (int round = 0; round < 2 && s == LITE_OK && result.empty(); ++round) {
    s = run_round(it, options, round, &stage, &dynamic_masks, &result, prefix);
    bool any_dynamic = false;
    for (unsigned m : dynamic_masks) any_dynamic = any_dynamic || m != 0;
    if (!any_dynamic) break;
  }
  if (result.empty()) {
    if (s == LITE_OK) {
      result = prefix + "ok";
    } else {
      const char* message = lite_interpreter_error_message(it);
      result = prefix + stage + ": " + status_name(s) + ": " +
               (message[0] != '\0' ? message : "BUG: error without a message");
    }
  }
  lite_interpreter_destroy(it);
  lite_model_destroy(model);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  std::vector<std::string> paths;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--dynamic-dim") == 0 && a + 1 < argc) {
      options.dynamic_dim = std::atoll(argv[++a]);
    } else if (std::strcmp(argv[a], "--shape") == 0 && a + 1 < argc) {
      for (char* p = argv[++a]; *p != '\0';) {
        char* end = nullptr;
        options.shape.push_back(std::strtoll(p, &end, 10));
        if (end == p) break;
        p = *end == 'x' ? end + 1 : end;
      }
    } else if (std::strcmp(argv[a], "--grow") == 0 && a + 1 < argc) {
      options.grow = std::atoll(argv[++a]);
    } else if (std::strcmp(argv[a], "--max-arena") == 0 && a + 1 < argc) {
      options.max_arena = static_cast<size_t>(std::atoll(argv[++a]));
    } else if (argv[a][0] == '@') {
      FILE* list = std::fopen(argv[a] + 1, "r");
      if (list == nullptr) {
        std::fprintf(stderr, "cannot open list %s\n", argv[a] + 1);
        return 2;
      }
      char line[4096];
      while (std::fgets(line, sizeof(line), list) != nullptr) {
        line[std::strcspn(line, "\r\n")] = '\0';
        if (line[0] != '\0') paths.emplace_back(line);
      }
      std::fclose(list);
    } else {
      paths.emplace_back(argv[a]);
    }
  }
  for (size_t i = 0; i < paths.size(); ++i) {
    std::string line = run_one(paths[i].c_str(), i % 2 == 1, options);
    // One line per file: a control character in a message (a mutated node or tensor name) is
    // shown as '?', so that a newline cannot split the line.
    for (char& c : line)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }
  return 0;
}
