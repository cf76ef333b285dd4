#include "opencl/cl_library.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace lite {

namespace {

#if defined(__LP64__)
#define LITE_ANDROID_LIB "lib64"
#else
#define LITE_ANDROID_LIB "lib"
#endif

const char* const kCandidates[] = {
    "libOpenCL.so.1",
    "libOpenCL.so",
    "/vendor/" LITE_ANDROID_LIB "/libOpenCL.so",
    "/system/vendor/" LITE_ANDROID_LIB "/libOpenCL.so",
    "/system/" LITE_ANDROID_LIB "/libOpenCL.so",
    "/vendor/" LITE_ANDROID_LIB "/egl/libGLES_mali.so",
    "/system/vendor/" LITE_ANDROID_LIB "/egl/libGLES_mali.so",
    "/vendor/" LITE_ANDROID_LIB "/libmali.so",
    "/system/" LITE_ANDROID_LIB "/libmali.so",
};

template <typename Fn>
bool bind(void* handle, const char* name, Fn* fn, std::string* missing) {
  void* symbol = dlsym(handle, name);
  if (symbol == nullptr) {
    if (missing->empty()) *missing = name;
    return false;
  }
  *fn = reinterpret_cast<Fn>(symbol);
  return true;
}

bool bind_all(void* h, cl::Api* a, std::string* missing) {
  bool ok = true;
  ok &= bind(h, "clGetPlatformIDs", &a->GetPlatformIDs, missing);
  ok &= bind(h, "clGetPlatformInfo", &a->GetPlatformInfo, missing);
  ok &= bind(h, "clGetDeviceIDs", &a->GetDeviceIDs, missing);
  ok &= bind(h, "clGetDeviceInfo", &a->GetDeviceInfo, missing);
  ok &= bind(h, "clCreateContext", &a->CreateContext, missing);
  ok &= bind(h, "clReleaseContext", &a->ReleaseContext, missing);
  ok &= bind(h, "clCreateCommandQueue", &a->CreateCommandQueue, missing);
  ok &= bind(h, "clReleaseCommandQueue", &a->ReleaseCommandQueue, missing);
  ok &= bind(h, "clCreateProgramWithSource", &a->CreateProgramWithSource, missing);
  ok &= bind(h, "clCreateProgramWithBinary", &a->CreateProgramWithBinary, missing);
  ok &= bind(h, "clBuildProgram", &a->BuildProgram, missing);
  ok &= bind(h, "clGetProgramBuildInfo", &a->GetProgramBuildInfo, missing);
  ok &= bind(h, "clGetProgramInfo", &a->GetProgramInfo, missing);
  ok &= bind(h, "clReleaseProgram", &a->ReleaseProgram, missing);
  ok &= bind(h, "clCreateKernel", &a->CreateKernel, missing);
  ok &= bind(h, "clReleaseKernel", &a->ReleaseKernel, missing);
  ok &= bind(h, "clSetKernelArg", &a->SetKernelArg, missing);
  ok &= bind(h, "clGetKernelWorkGroupInfo", &a->GetKernelWorkGroupInfo, missing);
  ok &= bind(h, "clCreateBuffer", &a->CreateBuffer, missing);
  ok &= bind(h, "clCreateImage", &a->CreateImage, missing);
  ok &= bind(h, "clReleaseMemObject", &a->ReleaseMemObject, missing);
  ok &= bind(h, "clEnqueueWriteImage", &a->EnqueueWriteImage, missing);
  ok &= bind(h, "clEnqueueReadImage", &a->EnqueueReadImage, missing);
  ok &= bind(h, "clEnqueueNDRangeKernel", &a->EnqueueNDRangeKernel, missing);
  ok &= bind(h, "clFinish", &a->Finish, missing);
  ok &= bind(h, "clGetEventProfilingInfo", &a->GetEventProfilingInfo, missing);
  ok &= bind(h, "clReleaseEvent", &a->ReleaseEvent, missing);
  return ok;
}

}  // namespace

ClLibrary::~ClLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

bool ClLibrary::load(std::string* reason) {
  std::string tried;
  auto try_path = [&](const char* path) {
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      const char* why = dlerror();
      tried += std::string("\n  ") + path + ": " + (why != nullptr ? why : "not found");
      return false;
    }
    cl::Api api = {};
    std::string missing;
    if (!bind_all(h, &api, &missing)) {
      tried += std::string("\n  ") + path + ": no symbol " + missing;
      dlclose(h);
      return false;
    }
    handle_ = h;
    api_ = api;
    path_ = path;
    return true;
  };
  const char* env = std::getenv("LITE_OPENCL_LIBRARY");
  if (env != nullptr && env[0] != '\0') {  // the user's choice: nothing else is tried
    if (try_path(env)) return true;
  } else {
    for (const char* path : kCandidates)
      if (try_path(path)) return true;
  }
  *reason = "no OpenCL library found; tried:" + tried;
  return false;
}

std::string cl_error_name(cl::cl_int code) {
  switch (code) {
    case -1: return "CL_DEVICE_NOT_FOUND";
    case -2: return "CL_DEVICE_NOT_AVAILABLE";
    case -3: return "CL_COMPILER_NOT_AVAILABLE";
    case -4: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case -5: return "CL_OUT_OF_RESOURCES";
    case -6: return "CL_OUT_OF_HOST_MEMORY";
    case -10: return "CL_IMAGE_FORMAT_NOT_SUPPORTED";
    case -11: return "CL_BUILD_PROGRAM_FAILURE";
    case -30: return "CL_INVALID_VALUE";
    case -33: return "CL_INVALID_DEVICE";
    case -34: return "CL_INVALID_CONTEXT";
    case -38: return "CL_INVALID_MEM_OBJECT";
    case -39: return "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR";
    case -40: return "CL_INVALID_IMAGE_SIZE";
    case -42: return "CL_INVALID_BINARY";
    case -44: return "CL_INVALID_PROGRAM";
    case -46: return "CL_INVALID_KERNEL_NAME";
    case -48: return "CL_INVALID_KERNEL";
    case -49: return "CL_INVALID_ARG_INDEX";
    case -50: return "CL_INVALID_ARG_VALUE";
    case -51: return "CL_INVALID_ARG_SIZE";
    case -52: return "CL_INVALID_KERNEL_ARGS";
    case -53: return "CL_INVALID_WORK_DIMENSION";
    case -54: return "CL_INVALID_WORK_GROUP_SIZE";
    case -55: return "CL_INVALID_WORK_ITEM_SIZE";
    case -63: return "CL_INVALID_GLOBAL_WORK_SIZE";
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "OpenCL error %d", static_cast<int>(code));
      return buf;
    }
  }
}

}  // namespace lite
