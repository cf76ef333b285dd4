/* int8 fully-connected layer: the oracle of optimized int8 GEMMs. */
#include "lite_kernels/qs8_conv2d_fully_connected.h"
#include "lite_kernels/requantize.h"

void lite_qs8_fully_connected_ref(size_t rows, size_t depth, size_t out_features, const lite_qs8_requant_params* rq,
                                  const int8_t* input, const int8_t* weight, const int32_t* bias, int8_t* output) {
  for (size_t r = 0; r < rows; ++r)
    for (size_t o = 0; o < out_features; ++o) {
      int64_t acc = bias != NULL ? bias[o] : 0;
      const int8_t* x = input + r * depth;
      const int8_t* w = weight + o * depth;
      for (size_t k = 0; k < depth; ++k) acc += (int64_t)((int32_t)x[k] - rq->input_zero_point) * w[k];
      output[r * out_features + o] =
          lite_requantize_to_int8(acc, rq->multiplier[o], rq->shift[o], rq->output_zero_point, rq->act_min, rq->act_max);
    }
}
