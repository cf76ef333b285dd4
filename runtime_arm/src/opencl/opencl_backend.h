// The OpenCL backend (issue 16): runs the ops it takes on an OpenCL device, activations in image2d
// RGBA (channels in blocks of 4, the layout Paddle Lite and MNN use on Mali and Adreno: the texture
// path caches 2D neighbourhoods and an image read returns 4 channels at once), weights in float4
// buffers packed per kernel. The kernels are OpenCL C source (opencl_kernel_source.cc) built into
// one program at the first op it takes. docs/OPENCL.md has the whole picture.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend.h"
#include "opencl/cl_library.h"
#include "opencl/opencl_tuning.h"

namespace lite {

enum class ClPrecision : int {
  kFp32 = 0,  // fp32 images and math
  kFp16 = 1,  // fp16 images (storage), fp32 math: works on every device with half images
  // fp16 images and half math in the activation, pooling and resize kernels (none reads a constant)
  // (program built with -DLITE_HALF_MATH); reductions over many terms accumulate in float. Needs
  // cl_khr_fp16: refused with a reason on a device without it.
  kFp16Compute = 2,
};

struct OpenClOptions {
  ClPrecision precision = ClPrecision::kFp32;
  // Op codes (by name, comma-separated) the backend refuses, so they run on the CPU: tests of the
  // per-op fallback and a workaround for a kernel a driver miscompiles. $LITE_OPENCL_REFUSE_OPS
  // is added to it.
  std::string refuse_ops;
  // Where the compiled program and the tuning choices are kept between runs
  // (opencl_program_cache.h, opencl_tuning.h); "" for none.
  std::string cache_dir;
  TuneLevel tune = TuneLevel::kNone;
};

// A tensor's place in an image: (N, H, W, C), ranks below 4 padded with leading 1s, dims before the
// last three of a higher rank folded into N (dense order is kept), the image W*ceil(C/4) wide and
// N*H high.
//
// A tensor whose image would be wider than the device allows (a classifier's 6625 classes over a
// text line's 40 steps: 66,280 pixels) is laid out "tall" instead: its positions (n, h, w) become
// rows, (N*H*W, 1, 1, C), ceil(C/4) wide. Kernels that address positions only (elementwise,
// FULLY_CONNECTED, softmax, layer norm, the strided gather) take it; the capability query keeps
// the spatial ones (convolution, pooling, resize, matmul, concat, broadcasting) off such tensors.
struct ImageShape {
  int n = 1, h = 1, w = 1, c = 1;
  bool tall = false;
  size_t width() const { return static_cast<size_t>(w) * static_cast<size_t>((c + 3) / 4); }
  size_t height() const { return static_cast<size_t>(n) * static_cast<size_t>(h); }
};
// False for an empty dim or a (folded) dim past int range.
bool image_shape_of(const Shape& shape, size_t max_width, ImageShape* out);

class OpenClBackend final : public Backend {
 public:
  // Loads libOpenCL, picks a device (the first GPU, else the first device of any type) and makes a
  // context and queue. Null with `reason` when any step fails (no library, no device, no images).
  static std::unique_ptr<OpenClBackend> create(const OpenClOptions& options, std::string* reason);
  ~OpenClBackend() override;

  const char* name() const override { return "opencl"; }
  const OpKernel* kernel_for(const OpContext& ctx) override;
  Status allocate(TensorRef* tensor) override;
  void release(TensorRef* tensor) override;
  Status copy_from_host(const void* host, TensorRef* tensor) override;
  Status copy_to_host(const TensorRef& tensor, void* host) override;

  // For the op kernels (opencl_ops.cc).
  const cl::Api& api() const { return library_.api(); }
  cl::cl_context context() const { return context_; }
  cl::cl_device_id device() const { return device_; }
  const std::string& device_name() const { return device_name_; }
  // One line for tools: device, where the program came from and how long it took, cache notes.
  std::string describe() const;
  // True when a float32 tensor of this shape fits in an image on this device.
  bool fits_image(const Shape& shape) const;
  // The image layout of a tensor of this shape on this device (see ImageShape); false when none.
  bool image_shape(const Shape& shape, ImageShape* out) const { return image_shape_of(shape, max_image_width_, out); }
  // A kernel of the program (built on first use); null with a message in `error` on failure.
  cl::cl_kernel create_kernel(const char* kernel_name, std::string* error);
  // A read-only image holding a host float32 tensor (a constant input), or null.
  cl::cl_mem create_constant_image(const TensorRef& tensor, std::string* error);
  // A read-only buffer initialised from host memory, or null.
  cl::cl_mem create_buffer(const void* data, size_t bytes, std::string* error);
  // Enqueues a 2D range over (gx, gy); the driver picks the local size. `name` labels the
  // kernel's time while profiling.
  cl::cl_int enqueue(cl::cl_kernel kernel, const char* name, size_t gx, size_t gy);

  // The local size for a launch of `kernel` over (gx, gy) identified by `key` (kernel name and
  // shapes): from the tuning cache, else timed now over the level's candidates (kernel arguments
  // must be set), else the driver's choice.
  LocalSize tuned_local(cl::cl_kernel kernel, const std::string& key, size_t gx, size_t gy);
  cl::cl_int enqueue_local(cl::cl_kernel kernel, const char* name, size_t gx, size_t gy, LocalSize local);

  // Per-kernel device times from OpenCL events (the queue is recreated with profiling on when
  // enabled; counters reset). Disabled costs nothing per enqueue.
  void set_profiling(bool enabled);
  // Tab-separated lines: "program\t<compiled|loaded|none>\t<ms>", "tune\tnone\t0", then one
  // "kernel\t<name>\t<calls>\t<seconds>" per kernel run since profiling was enabled, slowest first.
  std::string profile_report();

 private:
  OpenClBackend() = default;
  cl::cl_mem create_image(const ImageShape& s, cl::cl_mem_flags flags, const void* host, bool half, cl::cl_int* err);
  // Host float32 dense (N, H, W, C) <-> the image's pixel rows in its channel type.
  void pack(const float* dense, const ImageShape& s, bool half, void* pixels) const;
  void unpack(const void* pixels, const ImageShape& s, bool half, float* dense) const;
  static size_t pixel_bytes(bool half) { return half ? 8 : 16; }
  bool half_storage() const { return options_.precision != ClPrecision::kFp32; }

  ClLibrary library_;
  OpenClOptions options_;
  cl::cl_device_id device_ = nullptr;
  cl::cl_context context_ = nullptr;
  cl::cl_command_queue queue_ = nullptr;
  cl::cl_program program_ = nullptr;
  std::string program_error_;  // the build log of a failed build (not retried)
  std::string program_key_;    // device, driver, platform, library version: the cache key's first half
  std::string program_note_;   // where the program came from, its build time, cache notes
  std::string device_name_;
  std::string platform_name_;
  std::string refuse_ops_;  // ",CONV_2D,ADD," (commas around each name)
  size_t max_image_width_ = 0, max_image_height_ = 0;
  // Event profiling: events not yet read, and the totals per kernel name.
  void collect_events();
  struct KernelTime {
    std::string name;
    int64_t calls = 0;
    double seconds = 0.0;
  };
  bool profiling_ = false;
  std::vector<std::pair<const char*, cl::cl_event>> pending_events_;
  std::vector<KernelTime> kernel_times_;
  double program_ms_ = 0.0;
  TuningCache tuning_;
  double tune_ms_ = 0.0;
  const char* program_origin_ = "none";
};

}  // namespace lite
