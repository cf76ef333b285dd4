/* Numpy-style broadcast iteration shared by elementwise kernels (binary ops, WHERE, PRELU).
 * A plan collapses the output shape into as few dims as possible and records, per input, the
 * element stride of every dim (0 where the input is broadcast). Running it calls a row function
 * once per innermost row, whose input steps are 0 (broadcast) or 1 (contiguous). */
#ifndef LITE_KERNELS_BROADCAST_H
#define LITE_KERNELS_BROADCAST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LITE_BCAST_MAX_RANK 8
#define LITE_BCAST_MAX_INPUTS 3

typedef struct {
  int rank; /* collapsed rank, >= 1 */
  int num_inputs;
  int64_t dims[LITE_BCAST_MAX_RANK];
  int64_t strides[LITE_BCAST_MAX_INPUTS][LITE_BCAST_MAX_RANK]; /* in elements; 0 = broadcast */
} lite_bcast;

/* Plans the iteration over `out_dims`; input i has in_ranks[i] dims in_dims[i] aligned to the right.
 * Returns 0, or -1 when an input does not broadcast to the output or a rank is too large. */
int lite_bcast_init(lite_bcast* plan, int out_rank, const int64_t* out_dims, int num_inputs,
                    const int* in_ranks, const int64_t* const* in_dims);

/* Called once per innermost row of n outputs; in[i] points at input i's first element of the row
 * and step[i] (0 or 1) is its element step along the row. */
typedef void (*lite_bcast_row_fn)(void* ctx, const void* const* in, const int* step, void* out, int64_t n);

/* Walks every row of the plan. in_elem_size[i] / out_elem_size are bytes per element. */
void lite_bcast_run(const lite_bcast* plan, const void* const* in, const size_t* in_elem_size, void* out,
                    size_t out_elem_size, lite_bcast_row_fn row, void* ctx);

#ifdef __cplusplus
}
#endif

#endif
