/* Runs the aarch64 CPython of a Debian rootfs from a main executable that keeps its symbols, so the
 * qemu counting plugin can find the lite_bench_marker_* functions a script calls through ctypes. */
#include <dlfcn.h>
#include <stdio.h>

static volatile int g_state;
__attribute__((noipa, used, visibility("default"))) void lite_bench_marker_begin(void) { g_state = 1; }
__attribute__((noipa, used, visibility("default"))) void lite_bench_marker_iteration(void) { g_state += 2; }
__attribute__((noipa, used, visibility("default"))) void lite_bench_marker_end(void) { g_state = -1; }

int main(int argc, char** argv) {
  void* py = dlopen("libpython3.11.so.1.0", RTLD_NOW | RTLD_GLOBAL);
  if (py == NULL) {
    fprintf(stderr, "%s\n", dlerror());
    return 2;
  }
  int (*bytes_main)(int, char**) = (int (*)(int, char**))dlsym(py, "Py_BytesMain");
  return bytes_main(argc, argv);
}
