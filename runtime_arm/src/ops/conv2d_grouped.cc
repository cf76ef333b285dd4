#include "conv2d_grouped.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "conv_gemm_int8.h"
#include "lite_kernels/f32_gemm_packed.h"
#include "packed_gemm.h"

namespace lite {

struct GroupedConv {
  lite_conv2d_params full{};   // the grouped convolution
  lite_conv2d_params group{};  // one group of it as a groups == 1 convolution
  size_t k = 0;                // a group's im2col depth: kernel_h * kernel_w * in_c / groups
  size_t rows = 0;             // output pixels per task
  size_t regrouped_bytes = 0, thread_bytes = 0;
  bool pointwise = false;  // 1x1, stride 1, unpadded: the regrouped input is the GEMM's A
  int8_t pad = 0;          // int8: the input zero point (the padding taps)
  PackedGemm** f32 = nullptr;
  PackedGemmInt8** int8 = nullptr;
};

namespace {

// Allocates the state with its per-group pointer array and sizes the tasks; null when refused.
GroupedConv* grouped_conv_new(OpContext* ctx, const lite_conv2d_params& p, size_t element_bytes) {
  GroupedConv* c = new (std::nothrow) GroupedConv();
  if (c == nullptr) {
    fail(ctx, Status::kOutOfMemory, "cannot allocate the op state");
    return nullptr;
  }
  // one pointer per group, counted against the memory bound (a hostile model's group count is bounded
  // only by its weight)
  size_t bytes = 0;
  if (__builtin_mul_overflow(p.groups, sizeof(void*), &bytes)) {
    delete c;
    fail(ctx, Status::kShapeError, "%zu groups are too many", p.groups);
    return nullptr;
  }
  void* gemms = op_allocate(ctx, bytes, "the per-group weights");
  if (gemms == nullptr) {
    delete c;
    return nullptr;
  }
  std::memset(gemms, 0, bytes);
  if (element_bytes == sizeof(float))
    c->f32 = static_cast<PackedGemm**>(gemms);
  else
    c->int8 = static_cast<PackedGemmInt8**>(gemms);
  c->full = p;
  c->group = p;
  c->group.in_c = p.in_c / p.groups;
  c->group.out_c = p.out_c / p.groups;
  c->group.groups = 1;
  const lite_conv2d_params& g = c->group;
  c->k = g.kernel_h * g.kernel_w * g.in_c;
  c->pointwise = g.kernel_h == 1 && g.kernel_w == 1 && g.stride_h == 1 && g.stride_w == 1 && g.pad_top == 0 &&
                 g.pad_left == 0 && g.out_h == g.in_h && g.out_w == g.in_w;
  c->regrouped_bytes = (p.batch * p.in_h * p.in_w * p.in_c * element_bytes + 63) / 64 * 64;
  return c;
}

// Output pixels per task: the int8 im2col's tile rule (whole microkernel heights of about 32 KiB of
// im2col rows, at most about 64 pixels) over the rows' bytes; and the per-thread im2col scratch they take.
void size_tasks(GroupedConv* c, size_t mr, size_t element_bytes) {
  const size_t row_bytes = c->k * element_bytes;
  c->rows = im2col_int8_tile_rows(row_bytes, mr);
  c->thread_bytes = c->pointwise ? 0 : (c->rows * row_bytes + 63) / 64 * 64;
}

// out[g][pixel] = x[pixel]'s bytes [g * group_bytes, (g + 1) * group_bytes), for `pixels` pixels of
// groups * group_bytes bytes.
void regroup_channels(ThreadPool* pool, const uint8_t* x, size_t pixels, size_t groups, size_t group_bytes,
                      uint8_t* out) {
  constexpr size_t kPixelsPerTask = 256;
  const size_t pixel_bytes = groups * group_bytes;
  parallel_for(pool, (pixels + kPixelsPerTask - 1) / kPixelsPerTask, [&](size_t t, int) {
    const size_t begin = t * kPixelsPerTask, end = pixels - begin < kPixelsPerTask ? pixels : begin + kPixelsPerTask;
    for (size_t g = 0; g < groups; ++g) {
      const uint8_t* src = x + begin * pixel_bytes + g * group_bytes;
      uint8_t* dst = out + (g * pixels + begin) * group_bytes;
      for (size_t i = begin; i < end; ++i, src += pixel_bytes, dst += group_bytes) std::memcpy(dst, src, group_bytes);
    }
  });
}

// One task of grouped_conv_run_*: output pixels [first, first + count) of group `group`, whose
// regrouped input starts at xg; cols is the worker's im2col scratch.
struct GroupTask {
  size_t group, first, count;
  const uint8_t* xg;
  uint8_t* cols;
};

// Regroups x into the scratch, then runs `task` for every (pixel tile, group) on the pool (one function
// for fp32 and int8: the ARM library's size budget).
using GroupTaskFn = void (*)(const GroupedConv& c, const GroupTask& t, const void* context);
void run_groups(const GroupedConv& c, ThreadPool* pool, const void* x, size_t element_bytes, void* scratch,
                GroupTaskFn task, const void* context) {
  const lite_conv2d_params& p = c.full;
  const size_t in_pixels = p.batch * p.in_h * p.in_w, pixels = p.batch * p.out_h * p.out_w;
  const size_t group_bytes = c.group.in_c * element_bytes, groups = p.groups;
  uint8_t* regrouped = static_cast<uint8_t*>(scratch);
  regroup_channels(pool, static_cast<const uint8_t*>(x), in_pixels, groups, group_bytes, regrouped);
  const size_t tiles = (pixels + c.rows - 1) / c.rows;
  parallel_for(pool, tiles * groups, [&](size_t t, int worker) {
    GroupTask g;
    g.group = t % groups;
    g.first = t / groups * c.rows;
    g.count = pixels - g.first < c.rows ? pixels - g.first : c.rows;
    g.xg = regrouped + g.group * in_pixels * group_bytes;
    g.cols = regrouped + c.regrouped_bytes + static_cast<size_t>(worker) * c.thread_bytes;
    task(c, g, context);
  });
}

}  // namespace

GroupedConv* grouped_conv_create_f32(OpContext* ctx, const lite_conv2d_params& p, const float* weight,
                                     const float* bias) {
  GroupedConv* c = grouped_conv_new(ctx, p, sizeof(float));
  if (c == nullptr) return nullptr;
  const size_t n = c->group.out_c;
  for (size_t i = 0; i < p.groups; ++i) {
    c->f32[i] = packed_gemm_create(ctx, n, c->k, weight + i * n * c->k, 1, c->k, bias != nullptr ? bias + i * n : nullptr);
    if (c->f32[i] == nullptr) {
      grouped_conv_free(c);
      return nullptr;
    }
  }
  size_tasks(c, c->f32[0]->config->mr, sizeof(float));
  return c;
}

bool grouped_conv_int8_exact(const lite_conv2d_params& p, const int32_t* bias) {
  const size_t n = p.out_c / p.groups, k = p.kernel_h * p.kernel_w * (p.in_c / p.groups);
  if (n == 0 || k == 0) return false;
  for (size_t i = 0; i < p.groups; ++i)
    if (!lite_qs8_gemm_is_exact(n, k, bias != nullptr ? bias + i * n : nullptr)) return false;
  return true;
}

GroupedConv* grouped_conv_create_int8(OpContext* ctx, const lite_conv2d_params& p, const int8_t* weight,
                                      const int32_t* bias, int32_t input_zero_point, const int32_t* multiplier,
                                      const int32_t* shift, const lite_qs8_gemm_params& params) {
  GroupedConv* c = grouped_conv_new(ctx, p, 1);
  if (c == nullptr) return nullptr;
  c->pad = static_cast<int8_t>(input_zero_point);
  const size_t n = c->group.out_c;
  for (size_t i = 0; i < p.groups; ++i) {
    const size_t c0 = i * n;
    c->int8[i] = packed_gemm_int8_create(ctx, n, c->k, weight + c0 * c->k, 1, c->k, bias != nullptr ? bias + c0 : nullptr,
                                         input_zero_point, multiplier + c0, shift + c0, params);
    if (c->int8[i] == nullptr) {
      grouped_conv_free(c);
      return nullptr;
    }
  }
  size_tasks(c, c->int8[0]->config->mr, 1);
  return c;
}

void grouped_conv_free(GroupedConv* conv) {
  if (conv == nullptr) return;
  for (size_t i = 0; i < conv->full.groups; ++i) {
    if (conv->f32 != nullptr) packed_gemm_free(conv->f32[i]);
    if (conv->int8 != nullptr) packed_gemm_int8_free(conv->int8[i]);
  }
  std::free(conv->f32);
  std::free(conv->int8);
  delete conv;
}

size_t grouped_conv_scratch_bytes(const GroupedConv& conv, int threads) {
  return conv.regrouped_bytes + static_cast<size_t>(threads > 0 ? threads : 1) * conv.thread_bytes;
}

namespace {

struct F32Run {
  Im2colF32Fn im2col;
  const lite_activation* act;
  float* y;
};

void f32_task(const GroupedConv& conv, const GroupTask& t, const void* context) {
  const F32Run& run = *static_cast<const F32Run*>(context);
  const lite_conv2d_params& g = conv.group;
  const float* a = reinterpret_cast<const float*>(t.xg) + t.first * g.in_c;
  size_t lda = g.in_c;
  if (!conv.pointwise) {
    float* cols = reinterpret_cast<float*>(t.cols);
    run.im2col(g, reinterpret_cast<const float*>(t.xg), t.first, t.count, cols);
    a = cols;
    lda = conv.k;
  }
  lite_activation group_act = *run.act;  // PRELU: this group's slopes
  if (group_act.prelu_slope != nullptr) group_act.prelu_slope += t.group * g.out_c;
  const PackedGemm& gemm = *conv.f32[t.group];
  lite_f32_gemm_packed_compute(gemm.config, t.count, 0, g.out_c, conv.k, a, lda, gemm.packed, &group_act,
                               run.y + t.first * conv.full.out_c + t.group * g.out_c, conv.full.out_c);
}

void int8_task(const GroupedConv& conv, const GroupTask& t, const void* context) {
  int8_t* y = static_cast<int8_t*>(const_cast<void*>(context));
  const lite_conv2d_params& g = conv.group;
  const int8_t* a = reinterpret_cast<const int8_t*>(t.xg) + t.first * g.in_c;
  size_t lda = g.in_c;
  if (!conv.pointwise) {
    int8_t* cols = reinterpret_cast<int8_t*>(t.cols);
    im2col_int8_rows(g, reinterpret_cast<const int8_t*>(t.xg), conv.pad, t.first, t.count, cols);
    a = cols;
    lda = conv.k;
  }
  const PackedGemmInt8& gemm = *conv.int8[t.group];
  lite_qs8_gemm_packed_compute(gemm.config, t.count, 0, g.out_c, conv.k, a, lda, gemm.packed, &gemm.params,
                               y + t.first * conv.full.out_c + t.group * g.out_c, conv.full.out_c);
}

}  // namespace

void grouped_conv_run_f32(const GroupedConv& conv, ThreadPool* pool, Im2colF32Fn im2col, const float* x,
                          const lite_activation* act, float* y, void* scratch) {
  const F32Run run{im2col, act, y};
  run_groups(conv, pool, x, sizeof(float), scratch, f32_task, &run);
}

void grouped_conv_run_int8(const GroupedConv& conv, ThreadPool* pool, const int8_t* x, int8_t* y, void* scratch) {
  run_groups(conv, pool, x, 1, scratch, int8_task, y);
}

}  // namespace lite
