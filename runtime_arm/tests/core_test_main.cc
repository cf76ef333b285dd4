// Runs every registered test (or those whose name contains argv[1]); prints one line per test.
// Tests named model_* need real models (LITE_TEST_MODELS, set by the Python driver): without it
// they print SKIP and do not count.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core_test_framework.h"

namespace lite_test {

namespace {

struct Entry {
  const char* name;
  TestFn fn;
};

std::vector<Entry>& tests() {
  static std::vector<Entry> all;
  return all;
}

bool g_failed = false;

}  // namespace

void register_test(const char* name, TestFn fn) { tests().push_back({name, fn}); }

void record_failure(const char* file, int line, const char* what) {
  std::printf("  %s:%d: CHECK failed: %s\n", file, line, what);
  g_failed = true;
}

}  // namespace lite_test

int main(int argc, char** argv) {
  const char* filter = argc > 1 ? argv[1] : "";
  int run = 0, failed = 0;
  for (const auto& t : lite_test::tests()) {
    if (std::strstr(t.name, filter) == nullptr) continue;
    if (std::strncmp(t.name, "model_", 6) == 0 && std::getenv("LITE_TEST_MODELS") == nullptr) {
      std::printf("SKIP %s (LITE_TEST_MODELS is not set)\n", t.name);
      continue;
    }
    lite_test::g_failed = false;
    t.fn();
    ++run;
    if (lite_test::g_failed) ++failed;
    std::printf("%s %s\n", lite_test::g_failed ? "FAIL" : "PASS", t.name);
    std::fflush(stdout);
  }
  std::printf("%d tests, %d failed\n", run, failed);
  return failed == 0 && run > 0 ? 0 : 1;
}
