// Depthwise CONV_2D glue: weight packing at prepare, row tasks at eval (see conv2d_depthwise.h).
#include "conv2d_depthwise.h"

#include <cstdlib>
#include <new>

#include "thread_pool.h"

namespace lite {

bool depthwise_conv_applies(const lite_conv2d_params& p) { return lite_f32_dwconv_applies(&p) != 0; }

DepthwiseConv* depthwise_conv_create(OpContext* ctx, const lite_conv2d_params& p, const float* weight) {
  DepthwiseConv* dw = new (std::nothrow) DepthwiseConv();
  if (dw == nullptr) {
    fail(ctx, Status::kOutOfMemory, "cannot allocate the op state");
    return nullptr;
  }
  const size_t n = lite_f32_dwconv_packed_weight_size(&p);
  dw->packed = static_cast<float*>(op_allocate(ctx, n * sizeof(float), "the packed weight"));
  if (dw->packed == nullptr) {
    delete dw;
    return nullptr;
  }
  lite_f32_dwconv_pack_weight(&p, weight, dw->packed);
  dw->fn = lite_f32_dwconv_select_for(p.in_c);
  return dw;
}

void depthwise_conv_free(DepthwiseConv* dw) {
  if (dw == nullptr) return;
  std::free(dw->packed);
  delete dw;
}

void depthwise_conv_run(const DepthwiseConv& dw, const lite_conv2d_params& p, ThreadPool* pool, const float* x,
                        const float* bias, const lite_activation* act, float* y) {
  const size_t rows = p.batch * p.out_h;
  // About 16K output values per task (enough work to amortize a task), but at least 16 tasks where
  // there are rows for them: MobileNetV2's 7x7 and 14x14 layers as 6 + 1 or 6 + 6 + 2 rows left one
  // of 2 threads idle (2 threads ran them slower than 1). Whole passes of the aarch64 3x3 kernel
  // (3 rows at stride 1, 2 at stride 2). Any split gives the same values.
#if defined(__aarch64__)
  const size_t pass = p.stride_h == 1 ? 3 : 2;
#else
  const size_t pass = 1;
#endif
  const size_t row_values = p.out_w * p.out_c > 0 ? p.out_w * p.out_c : 1;
  size_t per_task = 16384 / row_values;
  const size_t for_16_tasks = (rows + 15) / 16;
  if (per_task > for_16_tasks) per_task = for_16_tasks;
  per_task = (per_task + pass - 1) / pass * pass;
  if (per_task < pass) per_task = pass;
  const size_t tasks = (rows + per_task - 1) / per_task;
  parallel_for(pool, tasks, [&](size_t t, int) {
    const size_t begin = t * per_task, end = begin + per_task < rows ? begin + per_task : rows;
    dw.fn(&p, x, dw.packed, bias, act, y, begin, end);
  });
}

}  // namespace lite
