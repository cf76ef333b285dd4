// The OpenCL C 1.2 source of every kernel of the OpenCL backend (opencl_kernel_source.cc), built
// once per backend into one program (opencl_program_cache.h keeps the device binary).
#pragma once

namespace lite {

extern const char* const kOpenClKernelSource;

}  // namespace lite
