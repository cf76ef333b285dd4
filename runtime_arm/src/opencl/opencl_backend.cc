#include "opencl/opencl_backend.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "opencl/half_float.h"
#include "opencl/opencl_kernel_source.h"
#include "opencl/opencl_ops.h"
#include "opencl/opencl_program_cache.h"

#ifndef LITE_RUNTIME_VERSION
#define LITE_RUNTIME_VERSION "unknown"  // set by CMake from the project version
#endif

namespace lite {

namespace {

// The host copy of an image on its way to or from the device, sized from a tensor's shape: malloc
// (a failure is a status), never a std::vector (the runtime has no exceptions: bad_alloc aborts).
class StagingPixels {
 public:
  explicit StagingPixels(size_t bytes) : data_(static_cast<unsigned char*>(std::malloc(bytes))) {}
  ~StagingPixels() { std::free(data_); }
  StagingPixels(const StagingPixels&) = delete;
  StagingPixels& operator=(const StagingPixels&) = delete;
  unsigned char* data() const { return data_; }

 private:
  unsigned char* data_;
};

}  // namespace

using namespace cl;  // NOLINT: the OpenCL API reads best with its own names

bool image_shape_of(const Shape& shape, size_t max_width, ImageShape* out) {
  int64_t d[4] = {1, 1, 1, 1};
  for (int i = 0; i < shape.rank; ++i) {
    const int slot = i < shape.rank - 3 ? 0 : 4 - shape.rank + i;  // leading dims fold into N
    if (shape.dims[i] < 1 || shape.dims[i] > INT_MAX / 4) return false;
    d[slot] *= shape.dims[i];
    if (d[slot] > INT_MAX / 4) return false;  // checked per factor: no int64 overflow
  }
  for (int64_t v : d)
    if (v < 1 || v > INT_MAX / 4) return false;
  out->n = static_cast<int>(d[0]);
  out->h = static_cast<int>(d[1]);
  out->w = static_cast<int>(d[2]);
  out->c = static_cast<int>(d[3]);
  out->tall = false;
  if (out->width() > max_width) {  // positions become rows
    int64_t rows = 0;
    if (__builtin_mul_overflow(d[0], d[1], &rows) || __builtin_mul_overflow(rows, d[2], &rows) || rows > INT_MAX / 4)
      return false;
    out->n = static_cast<int>(rows);
    out->h = out->w = 1;
    out->tall = true;
  }
  return true;
}

namespace {

std::string device_string(const Api& api, cl_device_id device, cl_device_info what) {
  size_t size = 0;
  if (api.GetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string s(size, '\0');
  if (api.GetDeviceInfo(device, what, size, &s[0], nullptr) != CL_SUCCESS) return "";
  s.resize(std::strlen(s.c_str()));
  return s;
}

// The first GPU of any platform, else the first device of any type (CPU implementations: PoCL,
// Intel's CPU runtime, rusticl on llvmpipe, oclgrind's simulator).
bool pick_device(const Api& api, cl_device_id* device, std::string* reason) {
  cl_uint count = 0;
  cl_int err = api.GetPlatformIDs(0, nullptr, &count);
  if (err != CL_SUCCESS || count == 0) {
    *reason = "no OpenCL platform (" + cl_error_name(err) + "; is an ICD installed?)";
    return false;
  }
  std::vector<cl_platform_id> platforms(count);
  if (api.GetPlatformIDs(count, platforms.data(), nullptr) != CL_SUCCESS) {
    *reason = "clGetPlatformIDs failed";
    return false;
  }
  for (cl_device_type type : {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ALL}) {
    for (cl_platform_id p : platforms) {
      cl_uint n = 0;
      if (api.GetDeviceIDs(p, type, 1, device, &n) == CL_SUCCESS && n > 0) return true;
    }
  }
  *reason = "no OpenCL device on " + std::to_string(count) + " platform(s)";
  return false;
}

}  // namespace

std::unique_ptr<OpenClBackend> OpenClBackend::create(const OpenClOptions& options, std::string* reason) {
  std::unique_ptr<OpenClBackend> b(new OpenClBackend());
  b->options_ = options;
  const char* refuse_env = std::getenv("LITE_OPENCL_REFUSE_OPS");
  b->refuse_ops_ = "," + options.refuse_ops + "," + (refuse_env != nullptr ? refuse_env : "") + ",";
  if (!b->library_.load(reason)) return nullptr;
  const Api& api = b->api();
  if (!pick_device(api, &b->device_, reason)) return nullptr;
  b->device_name_ = device_string(api, b->device_, CL_DEVICE_NAME);
  cl_platform_id platform = nullptr;
  api.GetDeviceInfo(b->device_, CL_DEVICE_PLATFORM, sizeof(platform), &platform, nullptr);
  std::string platform_text;
  for (cl_platform_info what : {CL_PLATFORM_NAME, CL_PLATFORM_VERSION}) {
    size_t size = 0;
    if (platform == nullptr || api.GetPlatformInfo(platform, what, 0, nullptr, &size) != CL_SUCCESS) continue;
    std::string v(size, '\0');
    if (size > 0 && api.GetPlatformInfo(platform, what, size, &v[0], nullptr) == CL_SUCCESS)
      platform_text += std::string(v.c_str()) + ";";
    if (what == CL_PLATFORM_NAME) b->platform_name_ = v.c_str();
  }
  b->program_key_ = "device=" + b->device_name_ + "\ndevice_version=" + device_string(api, b->device_, CL_DEVICE_VERSION) +
                    "\ndriver=" + device_string(api, b->device_, CL_DRIVER_VERSION) + "\nplatform=" + platform_text +
                    "\nlite=" LITE_RUNTIME_VERSION;
  if (options.tune != TuneLevel::kNone)
    b->tuning_.open(options.cache_dir, b->program_key_ + "\nprecision=" + std::to_string(static_cast<int>(options.precision)));
  cl_bool images = CL_FALSE;
  api.GetDeviceInfo(b->device_, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, nullptr);
  api.GetDeviceInfo(b->device_, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof(size_t), &b->max_image_width_, nullptr);
  api.GetDeviceInfo(b->device_, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof(size_t), &b->max_image_height_, nullptr);
  if (images != CL_TRUE || b->max_image_width_ == 0 || b->max_image_height_ == 0) {
    *reason = "OpenCL device '" + b->device_name_ + "' has no image support";
    return nullptr;
  }
  cl_int err = CL_SUCCESS;
  b->context_ = api.CreateContext(nullptr, 1, &b->device_, nullptr, nullptr, &err);
  if (b->context_ == nullptr) {
    *reason = "clCreateContext failed: " + cl_error_name(err);
    return nullptr;
  }
  b->queue_ = api.CreateCommandQueue(b->context_, b->device_, 0, &err);
  if (b->queue_ == nullptr) {
    *reason = "clCreateCommandQueue failed: " + cl_error_name(err);
    return nullptr;
  }
  if (options.precision == ClPrecision::kFp16Compute &&
      (" " + device_string(api, b->device_, CL_DEVICE_EXTENSIONS) + " ").find(" cl_khr_fp16 ") == std::string::npos) {
    *reason = "OpenCL device '" + b->device_name_ +
              "' has no cl_khr_fp16 (half arithmetic) for precision fp16_compute; precision fp16 (half storage, "
              "float math) works on it";
    return nullptr;
  }
  // fp16 storage needs half RGBA images: probe one.
  if (options.precision != ClPrecision::kFp32) {
    cl_mem probe = b->create_image(ImageShape{}, CL_MEM_READ_WRITE, nullptr, true, &err);
    if (probe == nullptr) {
      *reason = "OpenCL device '" + b->device_name_ + "' has no half-float RGBA images: " + cl_error_name(err);
      return nullptr;
    }
    api.ReleaseMemObject(probe);
  }
  return b;
}

OpenClBackend::~OpenClBackend() {
  if (!library_.path().empty()) {
    const Api& a = api();
    for (const auto& pending : pending_events_) a.ReleaseEvent(pending.second);
    if (program_ != nullptr) a.ReleaseProgram(program_);
    if (queue_ != nullptr) a.ReleaseCommandQueue(queue_);
    if (context_ != nullptr) a.ReleaseContext(context_);
  }
}

const OpKernel* OpenClBackend::kernel_for(const OpContext& ctx) {
  const std::string op = std::string(",") + opcode_name(ctx.op->opcode()) + ",";
  if (refuse_ops_.find(op) != std::string::npos) return nullptr;
  return opencl_kernel_for(this, ctx);
}

bool OpenClBackend::fits_image(const Shape& shape) const {
  ImageShape s;
  return image_shape(shape, &s) && s.width() <= max_image_width_ && s.height() <= max_image_height_;
}

cl_mem OpenClBackend::create_image(const ImageShape& s, cl_mem_flags flags, const void* host, bool half, cl_int* err) {
  cl_image_format format = {CL_RGBA, half ? CL_HALF_FLOAT : CL_FLOAT};
  cl_image_desc desc = {};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = s.width();
  desc.image_height = s.height();
  if (host != nullptr) flags |= CL_MEM_COPY_HOST_PTR;
  return api().CreateImage(context_, flags, &format, &desc, const_cast<void*>(host), err);
}

Status OpenClBackend::allocate(TensorRef* tensor) {
  ImageShape s;
  if (tensor->dtype != lite_fb::DType::FLOAT32 || !image_shape(tensor->shape, &s)) return Status::kUnsupported;
  cl_int err = CL_SUCCESS;
  tensor->data = create_image(s, CL_MEM_READ_WRITE, nullptr, half_storage(), &err);
  return tensor->data != nullptr ? Status::kOk : Status::kOutOfMemory;
}

void OpenClBackend::release(TensorRef* tensor) {
  if (tensor->data != nullptr) api().ReleaseMemObject(static_cast<cl_mem>(tensor->data));
  tensor->data = nullptr;
}

void OpenClBackend::pack(const float* dense, const ImageShape& s, bool half, void* pixels) const {
  const size_t width = s.width();
  for (int row = 0; row < s.n * s.h; ++row) {
    for (size_t x = 0; x < width; ++x) {
      const int cb = static_cast<int>(x / static_cast<size_t>(s.w)), w = static_cast<int>(x % static_cast<size_t>(s.w));
      const float* src = dense + (static_cast<size_t>(row) * s.w + w) * s.c;
      const size_t pixel = static_cast<size_t>(row) * width + x;
      for (int l = 0; l < 4; ++l) {
        const int c = cb * 4 + l;
        const float v = c < s.c ? src[c] : 0.0f;
        if (half)
          static_cast<uint16_t*>(pixels)[pixel * 4 + l] = float_to_half(v);
        else
          static_cast<float*>(pixels)[pixel * 4 + l] = v;
      }
    }
  }
}

void OpenClBackend::unpack(const void* pixels, const ImageShape& s, bool half, float* dense) const {
  const size_t width = s.width();
  for (int row = 0; row < s.n * s.h; ++row) {
    for (int w = 0; w < s.w; ++w) {
      float* dst = dense + (static_cast<size_t>(row) * s.w + w) * s.c;
      for (int c = 0; c < s.c; ++c) {
        const size_t pixel = static_cast<size_t>(row) * width + static_cast<size_t>(c / 4) * s.w + w;
        dst[c] = half ? half_to_float(static_cast<const uint16_t*>(pixels)[pixel * 4 + c % 4])
                      : static_cast<const float*>(pixels)[pixel * 4 + c % 4];
      }
    }
  }
}

Status OpenClBackend::copy_from_host(const void* host, TensorRef* tensor) {
  ImageShape s;
  if (!image_shape(tensor->shape, &s)) return Status::kInternal;
  const bool half = half_storage();
  const StagingPixels pixels(s.width() * s.height() * pixel_bytes(half));
  if (pixels.data() == nullptr) return Status::kOutOfMemory;
  pack(static_cast<const float*>(host), s, half, pixels.data());
  const size_t origin[3] = {0, 0, 0}, region[3] = {s.width(), s.height(), 1};
  const cl_int err = api().EnqueueWriteImage(queue_, static_cast<cl_mem>(tensor->data), CL_TRUE, origin, region, 0, 0,
                                             pixels.data(), 0, nullptr, nullptr);
  return err == CL_SUCCESS ? Status::kOk : Status::kInternal;
}

Status OpenClBackend::copy_to_host(const TensorRef& tensor, void* host) {
  ImageShape s;
  if (!image_shape(tensor.shape, &s)) return Status::kInternal;
  const bool half = half_storage();
  const StagingPixels pixels(s.width() * s.height() * pixel_bytes(half));
  if (pixels.data() == nullptr) return Status::kOutOfMemory;
  const size_t origin[3] = {0, 0, 0}, region[3] = {s.width(), s.height(), 1};
  const cl_int err = api().EnqueueReadImage(queue_, static_cast<cl_mem>(tensor.data), CL_TRUE, origin, region, 0, 0,
                                            pixels.data(), 0, nullptr, nullptr);
  if (err != CL_SUCCESS) return Status::kInternal;
  unpack(pixels.data(), s, half, static_cast<float*>(host));
  return Status::kOk;
}

cl_kernel OpenClBackend::create_kernel(const char* kernel_name, std::string* error) {
  const Api& a = api();
  if (program_ == nullptr && program_error_.empty()) {
    const auto start = std::chrono::steady_clock::now();
    ProgramBuild build =
        build_program(a, context_, device_, kOpenClKernelSource,
                      options_.precision == ClPrecision::kFp16Compute ? "-cl-std=CL1.2 -DLITE_HALF_STORAGE=1 -DLITE_HALF_MATH=1"
                      : options_.precision == ClPrecision::kFp16      ? "-cl-std=CL1.2 -DLITE_HALF_STORAGE=1"
                                                                      : "-cl-std=CL1.2",
                      program_key_, options_.cache_dir);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    program_ = build.program;
    program_error_ = build.error;
    char text[96];
    std::snprintf(text, sizeof(text), "program %s in %.1f ms",
                  build.origin == ProgramOrigin::kBinaryCache ? "loaded from the binary cache" : "compiled from source", ms);
    program_note_ = text;
    program_ms_ = ms;
    program_origin_ = build.origin == ProgramOrigin::kBinaryCache ? "loaded" : "compiled";
    if (!build.cache_note.empty()) program_note_ += "; " + build.cache_note;
  }
  if (program_ == nullptr) {
    *error = program_error_;
    return nullptr;
  }
  cl_int err = CL_SUCCESS;
  cl_kernel k = a.CreateKernel(program_, kernel_name, &err);
  if (k == nullptr) *error = std::string("clCreateKernel '") + kernel_name + "' failed: " + cl_error_name(err);
  return k;
}

std::string OpenClBackend::describe() const {
  std::string tuning = std::string("; tuning ") + tune_level_name(options_.tune);
  if (tuning_.loaded() > 0) tuning += ", " + std::to_string(tuning_.loaded()) + " choices loaded from the cache";
  if (!tuning_.note().empty()) tuning += ", " + tuning_.note();
  return "opencl: device '" + device_name_ + "' of platform '" + platform_name_ + "' via " + library_.path() +
         (program_note_.empty() ? std::string("; program not built yet") : "; " + program_note_) + tuning;
}

cl_mem OpenClBackend::create_constant_image(const TensorRef& tensor, std::string* error) {
  ImageShape s;
  if (tensor.dtype != lite_fb::DType::FLOAT32 || !image_shape(tensor.shape, &s)) {
    *error = "constant is not a float32 tensor of rank <= 4";
    return nullptr;
  }
  // Constants stay float under half storage: a per-channel scale or bias rounded to half is the same
  // error at every pixel of its channel, a bias that adds up linearly through the layers (on
  // PP-OCRv4 det it was half of the fp16 error), and they are small (a vector per op, mostly).
  const bool half = false;
  const StagingPixels pixels(s.width() * s.height() * pixel_bytes(half));
  if (pixels.data() == nullptr) {
    *error = "out of memory for the constant's staging copy";
    return nullptr;
  }
  pack(static_cast<const float*>(tensor.data), s, half, pixels.data());
  cl_int err = CL_SUCCESS;
  cl_mem m = create_image(s, CL_MEM_READ_ONLY, pixels.data(), half, &err);
  if (m == nullptr) *error = "clCreateImage failed: " + cl_error_name(err);
  return m;
}

cl_mem OpenClBackend::create_buffer(const void* data, size_t bytes, std::string* error) {
  cl_int err = CL_SUCCESS;
  cl_mem m = api().CreateBuffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, const_cast<void*>(data), &err);
  if (m == nullptr) *error = "clCreateBuffer failed: " + cl_error_name(err);
  return m;
}

cl_int OpenClBackend::enqueue(cl_kernel kernel, const char* name, size_t gx, size_t gy) {
  return enqueue_local(kernel, name, gx, gy, LocalSize{});
}

cl_int OpenClBackend::enqueue_local(cl_kernel kernel, const char* name, size_t gx, size_t gy, LocalSize local) {
  // OpenCL 1.2 needs the global size a multiple of the local one: rounded up (kernels bound-check).
  const size_t global[2] = {local.x > 0 ? (gx + local.x - 1) / local.x * local.x : gx,
                            local.y > 0 ? (gy + local.y - 1) / local.y * local.y : gy};
  const size_t local_size[2] = {local.x, local.y};
  cl_event event = nullptr;
  const cl_int err = api().EnqueueNDRangeKernel(queue_, kernel, 2, nullptr, global, local.x > 0 ? local_size : nullptr,
                                                0, nullptr, profiling_ && name != nullptr ? &event : nullptr);
  if (event != nullptr) pending_events_.emplace_back(name, event);
  if (pending_events_.size() >= 4096) collect_events();  // bounded: a long profiled run
  return err;
}

LocalSize OpenClBackend::tuned_local(cl_kernel kernel, const std::string& key, size_t gx, size_t gy) {
  LocalSize best;
  if (options_.tune == TuneLevel::kNone) return best;
  const Api& a = api();
  size_t limit = 0;
  if (a.GetKernelWorkGroupInfo(kernel, device_, CL_KERNEL_WORK_GROUP_SIZE, sizeof(limit), &limit, nullptr) !=
          CL_SUCCESS ||
      limit == 0)
    limit = 1;
  // A cached shape over this kernel's limit (a file edited by hand, a driver update) is tuned again.
  if (tuning_.lookup(key, &best) && best.x * best.y <= limit) return best;
  best = LocalSize{};
  const auto start = std::chrono::steady_clock::now();
  double best_seconds = -1.0;
  for (const LocalSize candidate : local_size_candidates(options_.tune, limit)) {
    double fastest = -1.0;
    for (int run = 0; run < 3; ++run) {  // the fastest of 3: the first may include the driver's setup
      const auto t0 = std::chrono::steady_clock::now();
      if (enqueue_local(kernel, nullptr, gx, gy, candidate) != CL_SUCCESS) break;  // e.g. CL_INVALID_WORK_GROUP_SIZE
      a.Finish(queue_);
      const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (fastest < 0 || dt < fastest) fastest = dt;
    }
    if (fastest >= 0 && (best_seconds < 0 || fastest < best_seconds)) {
      best_seconds = fastest;
      best = candidate;
    }
  }
  tune_ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  tuning_.store(key, best);
  return best;
}

void OpenClBackend::set_profiling(bool enabled) {
  const Api& a = api();
  if (enabled && !profiling_) {
    cl_int err = CL_SUCCESS;
    cl_command_queue q = a.CreateCommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE, &err);
    if (q == nullptr) return;  // the driver refuses profiling: times stay empty
    a.Finish(queue_);
    a.ReleaseCommandQueue(queue_);
    queue_ = q;
  }
  collect_events();
  if (enabled) kernel_times_.clear();
  profiling_ = enabled;
}

void OpenClBackend::collect_events() {
  if (pending_events_.empty()) return;
  const Api& a = api();
  a.Finish(queue_);
  for (const auto& [name, event] : pending_events_) {
    cl_ulong start = 0, end = 0;
    if (a.GetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr) == CL_SUCCESS &&
        a.GetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr) == CL_SUCCESS) {
      KernelTime* row = nullptr;
      for (KernelTime& k : kernel_times_)
        if (k.name == name) row = &k;
      if (row == nullptr) {
        kernel_times_.push_back(KernelTime{name, 0, 0.0});
        row = &kernel_times_.back();
      }
      row->calls += 1;
      row->seconds += end > start ? static_cast<double>(end - start) * 1e-9 : 0.0;
    }
    a.ReleaseEvent(event);
  }
  pending_events_.clear();
}

std::string OpenClBackend::profile_report() {
  collect_events();
  std::vector<KernelTime> rows = kernel_times_;
  std::sort(rows.begin(), rows.end(), [](const KernelTime& x, const KernelTime& y) { return x.seconds > y.seconds; });
  char line[256];
  std::snprintf(line, sizeof(line), "program\t%s\t%.3f\ntune\t%s\t%.3f\n", program_origin_, program_ms_,
                tune_level_name(options_.tune), tune_ms_);
  std::string out = line;
  for (const KernelTime& k : rows) {
    std::snprintf(line, sizeof(line), "kernel\t%s\t%lld\t%.9f\n", k.name.c_str(), static_cast<long long>(k.calls),
                  k.seconds);
    out += line;
  }
  return out;
}

}  // namespace lite
