// Building the backend's OpenCL program, through an on-disk cache of the device binary (cold start:
// compiling the kernels costs seconds on a phone's driver, loading a binary milliseconds).
//
// One file per program in the user's cache directory, named by a hash of the key: device name,
// driver version, platform, this library's version, build options and a hash of the kernel source.
// The file repeats the full key and carries its binary's size and hash, so a truncated, corrupt or
// foreign file (another device or driver, a hash collision) is detected, ignored and rewritten;
// a binary the driver rejects is rebuilt from source too. Files are written to a temporary name
// and renamed (atomic on POSIX), so a reader never sees half a file.
#pragma once

#include <string>

#include "opencl/cl_api.h"

namespace lite {

enum class ProgramOrigin {
  kSource,       // compiled from source (no cache directory, or nothing usable in it)
  kBinaryCache,  // loaded from the cache directory
};

struct ProgramBuild {
  cl::cl_program program = nullptr;  // null on failure, with `error`
  ProgramOrigin origin = ProgramOrigin::kSource;
  std::string error;
  std::string cache_note;  // why a cache file was not used or not written ("" when all went well)
};

// `key` identifies device, driver and library (the caller's); source and options are added here.
ProgramBuild build_program(const cl::Api& api, cl::cl_context context, cl::cl_device_id device, const char* source,
                           const char* options, const std::string& key, const std::string& cache_dir);

// FNV-1a 64 of bytes: file names and integrity checks (not a security boundary: a file the user
// can write is trusted as much as the user's own cache directory).
uint64_t fnv1a64(const void* data, size_t size);

}  // namespace lite
