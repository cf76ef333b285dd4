/* Broadcast planning and row iteration (see lite_kernels/broadcast.h). */
#include "lite_kernels/broadcast.h"

int lite_bcast_init(lite_bcast* plan, int out_rank, const int64_t* out_dims, int num_inputs,
                    const int* in_ranks, const int64_t* const* in_dims) {
  if (out_rank > LITE_BCAST_MAX_RANK || num_inputs > LITE_BCAST_MAX_INPUTS || num_inputs < 1) return -1;
  int64_t full[LITE_BCAST_MAX_INPUTS][LITE_BCAST_MAX_RANK];
  for (int k = 0; k < num_inputs; ++k) {
    if (in_ranks[k] > out_rank) return -1;
    int64_t stride = 1;
    for (int d = out_rank - 1; d >= 0; --d) {
      int id = d - (out_rank - in_ranks[k]);
      int64_t dim = id >= 0 ? in_dims[k][id] : 1;
      if (dim != out_dims[d] && dim != 1) return -1;
      full[k][d] = dim == 1 ? 0 : stride;
      stride *= dim;
    }
  }
  /* Drop size-1 output dims, then merge a dim into the previous one when every input is
   * contiguous (or broadcast) across the pair. */
  plan->num_inputs = num_inputs;
  int r = 0;
  for (int d = 0; d < out_rank; ++d) {
    if (out_dims[d] == 1) continue;
    if (r > 0) {
      int merge = 1;
      for (int k = 0; k < num_inputs; ++k)
        if (plan->strides[k][r - 1] != full[k][d] * out_dims[d]) merge = 0;
      if (merge) {
        plan->dims[r - 1] *= out_dims[d];
        for (int k = 0; k < num_inputs; ++k) plan->strides[k][r - 1] = full[k][d];
        continue;
      }
    }
    plan->dims[r] = out_dims[d];
    for (int k = 0; k < num_inputs; ++k) plan->strides[k][r] = full[k][d];
    ++r;
  }
  if (r == 0) {
    plan->dims[0] = 1;
    for (int k = 0; k < num_inputs; ++k) plan->strides[k][0] = 0;
    r = 1;
  }
  plan->rank = r;
  return 0;
}

void lite_bcast_run(const lite_bcast* plan, const void* const* in, const size_t* in_elem_size, void* out,
                    size_t out_elem_size, lite_bcast_row_fn row, void* ctx) {
  const int rank = plan->rank, nin = plan->num_inputs;
  for (int d = 0; d < rank; ++d)
    if (plan->dims[d] == 0) return;
  const int64_t n = plan->dims[rank - 1];
  int step[LITE_BCAST_MAX_INPUTS];
  for (int k = 0; k < nin; ++k) step[k] = plan->strides[k][rank - 1] != 0;
  int64_t idx[LITE_BCAST_MAX_RANK] = {0};
  const char* ptr[LITE_BCAST_MAX_INPUTS];
  for (int k = 0; k < nin; ++k) ptr[k] = (const char*)in[k];
  char* o = (char*)out;
  const size_t out_row = (size_t)n * out_elem_size;
  for (;;) {
    row(ctx, (const void* const*)ptr, step, o, n);
    o += out_row;
    int d = rank - 2;
    for (; d >= 0; --d) {
      for (int k = 0; k < nin; ++k) ptr[k] += plan->strides[k][d] * (int64_t)in_elem_size[k];
      if (++idx[d] < plan->dims[d]) break;
      for (int k = 0; k < nin; ++k) ptr[k] -= plan->strides[k][d] * plan->dims[d] * (int64_t)in_elem_size[k];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}
