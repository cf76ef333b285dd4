// A minimal test registry for the runtime's C++ unit tests (no third-party framework): TEST()
// registers a function, CHECK() records a failure and returns. Driven by tests/test_runtime_core.py.
#pragma once

#include <cstdio>

namespace lite_test {

using TestFn = void (*)();
void register_test(const char* name, TestFn fn);
void record_failure(const char* file, int line, const char* what);

struct TestRegistrar {
  TestRegistrar(const char* name, TestFn fn) { register_test(name, fn); }
};

}  // namespace lite_test

#define LITE_TEST(name)                                                        \
  static void name();                                                          \
  static lite_test::TestRegistrar name##_registrar(#name, name);               \
  static void name()

#define CHECK(cond)                                                           \
  do {                                                                        \
    if (!(cond)) {                                                            \
      lite_test::record_failure(__FILE__, __LINE__, #cond);                   \
      return;                                                                 \
    }                                                                         \
  } while (0)

// CHECK with a printf-style note (e.g. an error message) printed on failure.
#define CHECK_MSG(cond, ...)                                                  \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::fprintf(stdout, "  note: ");                                       \
      std::fprintf(stdout, __VA_ARGS__);                                      \
      std::fprintf(stdout, "\n");                                             \
      lite_test::record_failure(__FILE__, __LINE__, #cond);                   \
      return;                                                                 \
    }                                                                         \
  } while (0)
