// TRANSPOSE: output dim k is input dim perm[k] (empty perm reverses); a strided copy of the input.
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/interleave3.h"
#include "lite_kernels/strided_copy.h"
#include "op_helpers.h"
#include "tensor_ops.h"
#include "thread_pool.h"

namespace lite {
namespace {

// perm from the options (reversed dims when absent or empty); false when it is not a permutation.
bool read_perm(const OpContext* ctx, int rank, int* perm) {
  const lite_fb::TransposeOptions* options = ctx->op->options_as_TransposeOptions();
  const auto* p = options != nullptr ? options->perm() : nullptr;
  if (p == nullptr || p->size() == 0) {
    for (int k = 0; k < rank; ++k) perm[k] = rank - 1 - k;
    return true;
  }
  if (static_cast<int>(p->size()) != rank) return false;
  bool used[kMaxRank] = {};
  for (int k = 0; k < rank; ++k) {
    int axis;
    if (!normalize_axis(p->Get(static_cast<flatbuffers::uoffset_t>(k)), rank, &axis) || used[axis]) return false;
    used[axis] = true;
    perm[k] = axis;
  }
  return true;
}

[[gnu::cold]] Status transpose_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 1, 1);
  if (s != Status::kOk) return s;
  const TensorRef* x = ctx->input(0);
  int perm[kMaxRank];
  if (!read_perm(ctx, x->shape.rank, perm))
    return fail(ctx, Status::kInvalidModel, "perm is not a permutation of %d axes", x->shape.rank);
  TensorRef* y = ctx->output(0);
  y->dtype = x->dtype;
  y->shape.rank = x->shape.rank;
  for (int k = 0; k < x->shape.rank; ++k) y->shape.dims[k] = x->shape.dims[perm[k]];
  return Status::kOk;
}

// NCHW -> NHWC of a 3-channel image of 4- or 1-byte values (an RGB input, fp32 or quantized): image
// rows in blocks of ~16K values on the pool, each block's planes interleaved by the vector kernel.
template <typename T, typename Interleave>
void interleave_rgb_rows(ThreadPool* pool, const TensorRef& x, void* out, Interleave interleave) {
  const size_t height = static_cast<size_t>(x.shape.dims[2]), width = static_cast<size_t>(x.shape.dims[3]);
  const size_t plane = height * width, rows = static_cast<size_t>(x.shape.dims[0]) * height;
  size_t per_task = 16384 / (3 * width > 0 ? 3 * width : 1);
  if (per_task < 1) per_task = 1;
  const T* in = static_cast<const T*>(x.data);
  T* y = static_cast<T*>(out);
  parallel_for(pool, (rows + per_task - 1) / per_task, [&](size_t t, int) {
    const size_t end = (t + 1) * per_task < rows ? (t + 1) * per_task : rows;
    for (size_t r = t * per_task; r < end;) {  // runs of rows within one image
      const size_t n = r / height, h = r % height;
      const size_t count = end - r < height - h ? end - r : height - h;
      const T* p0 = in + n * 3 * plane + h * width;
      interleave(count * width, p0, p0 + plane, p0 + 2 * plane, y + (n * plane + h * width) * 3);
      r += count;
    }
  });
}

Status transpose_eval(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (y->shape.num_elements() == 0) return Status::kOk;
  int perm[kMaxRank];
  read_perm(ctx, x->shape.rank, perm);
  int64_t in_strides[kMaxRank], strides[kMaxRank];
  contiguous_strides(x->shape, in_strides);
  for (int k = 0; k < x->shape.rank; ++k) strides[k] = in_strides[perm[k]];
  const size_t elem = dtype_size(x->dtype);
  if (y->shape.rank == 0) {
    lite_strided_copy_ref(elem, 0, y->shape.dims, x->data, strides, y->data);
    return Status::kOk;
  }
  if ((elem == 4 || elem == 1) && x->shape.rank == 4 && perm[0] == 0 && perm[1] == 2 && perm[2] == 3 &&
      perm[3] == 1 && x->shape.dims[1] == 3) {
    if (elem == 4)
      interleave_rgb_rows<uint32_t>(ctx->pool, *x, y->data, lite_interleave3_u32_select(lite_cpu_features()));
    else
      interleave_rgb_rows<uint8_t>(ctx->pool, *x, y->data, lite_interleave3_u8_select(lite_cpu_features()));
    return Status::kOk;
  }
  // Split the outermost output dim longer than 1 into row blocks of at least ~16K values: the
  // input transpose NCHW -> NHWC then runs on every thread, and each writes the image rows that
  // the stem convolution's tasks on the same thread read next.
  int axis = 0;
  while (axis + 1 < y->shape.rank && y->shape.dims[axis] == 1) ++axis;
  const size_t rows = static_cast<size_t>(y->shape.dims[axis]);
  const size_t row_values = static_cast<size_t>(y->shape.num_elements()) / rows;
  size_t per_task = 16384 / (row_values > 0 ? row_values : 1);
  if (per_task < 1) per_task = 1;
  const size_t tasks = (rows + per_task - 1) / per_task;
  parallel_for(ctx->pool, tasks, [&](size_t t, int) {
    const size_t begin = t * per_task, end = begin + per_task < rows ? begin + per_task : rows;
    int64_t dims[kMaxRank];
    for (int k = 0; k < y->shape.rank; ++k) dims[k] = y->shape.dims[k];
    dims[axis] = static_cast<int64_t>(end - begin);
    const char* in = static_cast<const char*>(x->data) + static_cast<int64_t>(begin) * strides[axis] *
                                                           static_cast<int64_t>(elem);
    char* out = static_cast<char*>(y->data) + begin * row_values * elem;
    lite_strided_copy_ref(elem, y->shape.rank, dims, in, strides, out);
  });
  return Status::kOk;
}

}  // namespace

OpKernel transpose_kernel() {
  OpKernel k;
  k.prepare = transpose_prepare;
  k.eval = transpose_eval;
  return k;
}

}  // namespace lite
