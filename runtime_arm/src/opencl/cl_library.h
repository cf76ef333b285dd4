// Finding and loading libOpenCL at run time (dlopen), so the runtime has no link-time dependency
// on OpenCL and runs CPU-only where there is none. $LITE_OPENCL_LIBRARY, when set, is the only
// library tried; otherwise, in order: the ICD loader by soname (Linux: libOpenCL.so.1,
// libOpenCL.so), then the vendor paths of Android phones (Adreno: /vendor/lib64/libOpenCL.so;
// Mali: libGLES_mali.so / libmali.so, which export the API).
#pragma once

#include <string>

#include "opencl/cl_api.h"

namespace lite {

class ClLibrary {
 public:
  ClLibrary() = default;
  ~ClLibrary();
  ClLibrary(const ClLibrary&) = delete;
  ClLibrary& operator=(const ClLibrary&) = delete;

  // Loads the first library that exports every entry point of cl::Api. On failure returns false
  // and `reason` lists what was tried and why each failed.
  bool load(std::string* reason);
  const cl::Api& api() const { return api_; }
  const std::string& path() const { return path_; }

 private:
  void* handle_ = nullptr;
  cl::Api api_ = {};
  std::string path_;
};

// OpenCL error codes by name ("CL_INVALID_WORK_GROUP_SIZE"); "OpenCL error N" for others.
std::string cl_error_name(cl::cl_int code);

}  // namespace lite
