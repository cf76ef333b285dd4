/* Reductions over any set of axes (ONNX ReduceSum, ReduceMean, ... semantics), fp32, int32, int64.
 *
 * A lite_reduce_plan describes the input once: adjacent axes that are both reduced or both kept are
 * merged, size-1 axes dropped, and the input is walked as `rows` contiguous rows of `inner_len`
 * values; each row either collapses into one output value (inner_reduced) or adds element-wise
 * onto `inner_len` consecutive outputs. The output is the kept axes in order (keepdims only
 * changes its shape, not its data). */
#ifndef LITE_KERNELS_REDUCE_H
#define LITE_KERNELS_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Same order as the REDUCE_* op codes of the .lite schema. */
typedef enum {
  LITE_REDUCE_SUM = 0,
  LITE_REDUCE_MEAN = 1,
  LITE_REDUCE_MAX = 2,
  LITE_REDUCE_MIN = 3,
  LITE_REDUCE_PROD = 4,
  LITE_REDUCE_L1 = 5,
  LITE_REDUCE_L2 = 6,
  LITE_REDUCE_SUM_SQUARE = 7,
  LITE_REDUCE_LOG_SUM = 8,
  LITE_REDUCE_LOG_SUM_EXP = 9
} lite_reduce_kind;

#define LITE_REDUCE_MAX_RANK 8

typedef struct {
  size_t outer_rank;                            /* merged axes before the innermost one */
  size_t outer_size[LITE_REDUCE_MAX_RANK];      /* their sizes */
  size_t outer_out_stride[LITE_REDUCE_MAX_RANK]; /* output stride of each (0 when reduced) */
  size_t inner_len;                             /* length of a contiguous input row */
  int inner_reduced;
  size_t rows;         /* input elements / inner_len (0 when the input is empty) */
  size_t out_count;    /* output elements */
  size_t reduce_count; /* input elements per output element (may be 0: empty reduction) */
} lite_reduce_plan;

/* rank <= LITE_REDUCE_MAX_RANK; reduced[i] != 0 marks axis i as reduced. */
void lite_reduce_make_plan(size_t rank, const size_t* dims, const unsigned char* reduced, lite_reduce_plan* plan);

/* Offset in the output of the first value that input row `row` contributes to. */
size_t lite_reduce_row_output_offset(const lite_reduce_plan* plan, size_t row);

/* Any kind. scratch: 2 * plan->out_count doubles (accumulators). An empty reduction yields the
 * identity: 0 for sums, 1 for PROD, -inf / +inf for MAX / MIN, -inf for the logarithms, NaN for MEAN. */
void lite_f32_reduce_ref(int kind, const lite_reduce_plan* plan, const float* input, float* output, double* scratch);

/* SUM, MEAN (truncating division), MAX, MIN, PROD, L1, SUM_SQUARE; two's-complement wraparound.
 * scratch: plan->out_count int64 accumulators. Returns 0 for a kind that has no integer form. */
int lite_s32_reduce_ref(int kind, const lite_reduce_plan* plan, const int32_t* input, int32_t* output,
                        int64_t* scratch);
int lite_s64_reduce_ref(int kind, const lite_reduce_plan* plan, const int64_t* input, int64_t* output,
                        int64_t* scratch);

#ifdef __cplusplus
}
#endif

#endif
