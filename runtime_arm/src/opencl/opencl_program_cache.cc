#include "opencl/opencl_program_cache.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "opencl/cl_library.h"

namespace lite {

using namespace cl;  // NOLINT: the OpenCL API reads best with its own names

namespace {

constexpr char kMagic[8] = {'L', 'I', 'T', 'E', 'C', 'L', 'B', '1'};
constexpr size_t kMaxKeyBytes = 1 << 16;
constexpr size_t kMaxBinaryBytes = size_t{256} << 20;

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// Reads the whole file when it is a valid entry for `key`; false (with the reason) otherwise.
bool read_entry(const std::string& path, const std::string& key, std::vector<unsigned char>* binary,
                std::string* why) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    *why = "";  // no entry yet: not worth a note
    return false;
  }
  bool ok = false;
  char magic[8];
  uint64_t key_size = 0, binary_size = 0, binary_hash = 0;
  if (std::fread(magic, 1, 8, f) != 8 || std::memcmp(magic, kMagic, 8) != 0) {
    *why = "not a cache file";
  } else if (std::fread(&key_size, 8, 1, f) != 1 || key_size > kMaxKeyBytes) {
    *why = "bad key size";
  } else {
    std::string stored(static_cast<size_t>(key_size), '\0');
    if (std::fread(&stored[0], 1, stored.size(), f) != stored.size() || stored != key) {
      *why = "written for another device, driver, library or source";
    } else if (std::fread(&binary_size, 8, 1, f) != 1 || std::fread(&binary_hash, 8, 1, f) != 1 ||
               binary_size == 0 || binary_size > kMaxBinaryBytes) {
      *why = "bad binary size";
    } else {
      binary->resize(static_cast<size_t>(binary_size));
      if (std::fread(binary->data(), 1, binary->size(), f) != binary->size() || std::fgetc(f) != EOF) {
        *why = "truncated or trailing bytes";
      } else if (fnv1a64(binary->data(), binary->size()) != binary_hash) {
        *why = "binary corrupt (hash mismatch)";
      } else {
        ok = true;
      }
    }
  }
  std::fclose(f);
  return ok;
}

bool write_entry(const std::string& path, const std::string& key, const std::vector<unsigned char>& binary,
                 std::string* why) {
  const std::string tmp = path + ".tmp." + std::to_string(static_cast<long>(getpid()));
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) {
    *why = "cannot write " + tmp;
    return false;
  }
  const uint64_t key_size = key.size(), binary_size = binary.size(), hash = fnv1a64(binary.data(), binary.size());
  bool ok = std::fwrite(kMagic, 1, 8, f) == 8 && std::fwrite(&key_size, 8, 1, f) == 1 &&
            std::fwrite(key.data(), 1, key.size(), f) == key.size() && std::fwrite(&binary_size, 8, 1, f) == 1 &&
            std::fwrite(&hash, 8, 1, f) == 1 && std::fwrite(binary.data(), 1, binary.size(), f) == binary.size();
  ok = (std::fclose(f) == 0) && ok;
  if (ok && std::rename(tmp.c_str(), path.c_str()) == 0) return true;
  std::remove(tmp.c_str());
  *why = "cannot write " + path;
  return false;
}

std::string build_log(const Api& api, cl_program program, cl_device_id device) {
  size_t size = 0;
  api.GetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  if (size > 0) api.GetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, &log[0], nullptr);
  return log.c_str();
}

bool program_binary(const Api& api, cl_program program, std::vector<unsigned char>* binary) {
  size_t size = 0;
  if (api.GetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr) != CL_SUCCESS || size == 0 ||
      size > kMaxBinaryBytes)
    return false;
  binary->resize(size);
  unsigned char* pointer = binary->data();
  return api.GetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(pointer), &pointer, nullptr) == CL_SUCCESS;
}

}  // namespace

uint64_t fnv1a64(const void* data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

ProgramBuild build_program(const Api& api, cl_context context, cl_device_id device, const char* source,
                           const char* options, const std::string& key, const std::string& cache_dir) {
  ProgramBuild result;
  const std::string full_key =
      key + "\noptions=" + options + "\nsource=" + hex64(fnv1a64(source, std::strlen(source)));
  const std::string path =
      cache_dir.empty() ? std::string() : cache_dir + "/opencl-" + hex64(fnv1a64(full_key.data(), full_key.size())) + ".bin";
  if (!path.empty()) {
    std::vector<unsigned char> binary;
    std::string why;
    if (read_entry(path, full_key, &binary, &why)) {
      const size_t size = binary.size();
      const unsigned char* bytes = binary.data();
      cl_int status = CL_SUCCESS, err = CL_SUCCESS;
      cl_program p = api.CreateProgramWithBinary(context, 1, &device, &size, &bytes, &status, &err);
      if (p != nullptr && err == CL_SUCCESS && status == CL_SUCCESS &&
          api.BuildProgram(p, 1, &device, options, nullptr, nullptr) == CL_SUCCESS) {
        result.program = p;
        result.origin = ProgramOrigin::kBinaryCache;
        return result;
      }
      if (p != nullptr) api.ReleaseProgram(p);
      why = "the driver rejected the cached binary (" + cl_error_name(err != CL_SUCCESS ? err : status) + ")";
    }
    if (!why.empty()) result.cache_note = path + ": " + why + "; rebuilt from source";
  }
  cl_int err = CL_SUCCESS;
  cl_program p = api.CreateProgramWithSource(context, 1, &source, nullptr, &err);
  if (p == nullptr) {
    result.error = "clCreateProgramWithSource failed: " + cl_error_name(err);
    return result;
  }
  err = api.BuildProgram(p, 1, &device, options, nullptr, nullptr);
  if (err != CL_SUCCESS) {
    result.error = "building the OpenCL kernels failed (" + cl_error_name(err) + "): " + build_log(api, p, device);
    api.ReleaseProgram(p);
    return result;
  }
  result.program = p;
  if (!path.empty()) {
    std::vector<unsigned char> binary;
    std::string why;
    if (!program_binary(api, p, &binary))
      result.cache_note = "the driver gave no program binary: nothing cached";
    else if (!write_entry(path, full_key, binary, &why))
      result.cache_note = why;
  }
  return result;
}

}  // namespace lite
