/* Builds the row walk of a reduction: merge runs of axes with the same reduced flag, so typical
 * reductions (last axis, spatial axes of NHWC, everything) become one or two long loops. */
#include "lite_kernels/reduce.h"

void lite_reduce_make_plan(size_t rank, const size_t* dims, const unsigned char* reduced, lite_reduce_plan* plan) {
  size_t size[LITE_REDUCE_MAX_RANK];
  int flag[LITE_REDUCE_MAX_RANK];
  size_t merged = 0, total = 1, kept = 1;
  for (size_t i = 0; i < rank; ++i) {
    total *= dims[i];
    if (!reduced[i]) kept *= dims[i];
    if (dims[i] == 1) continue; /* contributes nothing to the walk */
    const int r = reduced[i] != 0;
    if (merged > 0 && flag[merged - 1] == r) {
      size[merged - 1] *= dims[i];
    } else {
      size[merged] = dims[i];
      flag[merged] = r;
      ++merged;
    }
  }
  if (merged == 0) { /* a scalar or all ones */
    size[0] = 1;
    flag[0] = 0;
    merged = 1;
  }
  plan->outer_rank = merged - 1;
  plan->inner_len = size[merged - 1];
  plan->inner_reduced = flag[merged - 1];
  size_t stride = plan->inner_reduced ? 1 : plan->inner_len;
  for (size_t i = merged - 1; i-- > 0;) {
    plan->outer_size[i] = size[i];
    plan->outer_out_stride[i] = flag[i] ? 0 : stride;
    if (!flag[i]) stride *= size[i];
  }
  plan->rows = plan->inner_len == 0 ? 0 : total / plan->inner_len;
  plan->out_count = kept;
  plan->reduce_count = kept == 0 ? 0 : total / kept;
}

size_t lite_reduce_row_output_offset(const lite_reduce_plan* plan, size_t row) {
  size_t offset = 0;
  for (size_t i = plan->outer_rank; i-- > 0;) {
    offset += (row % plan->outer_size[i]) * plan->outer_out_stride[i];
    row /= plan->outer_size[i];
  }
  return offset;
}
