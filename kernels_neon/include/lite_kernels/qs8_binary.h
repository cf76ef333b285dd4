/* int8 ADD and MUL reference kernels (docs/INT8_OPS.md): ADD through flat index maps, and ADD / MUL
 * with a periodic second operand b: b repeats with period `b_period` along the flat output (b index =
 * i % b_period): a same-shape b has period `count`, a scalar 1, and a per-channel b ([1, 1, 1, C]
 * against [1, H, W, C]) C; the runtime calls once per leading block for the other shapes it accepts. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Elementwise int8 ADD of two same-shaped tensors: out = zp_out + round(((a - zp_a) * ma + (b - zp_b) * mb)
 * * 2^-shift), clamped to [act_min, act_max]; ma, mb share `shift` (lite_quantize_multiplier_pair). */
typedef struct {
  int32_t a_zero_point, b_zero_point, output_zero_point;
  int32_t a_multiplier, b_multiplier;
  int shift;
  int32_t act_min, act_max;
} lite_qs8_add_params;

/* Broadcasting through strides: a_stride / b_stride per element index are given by the caller as
 * flat index maps; NULL means "same index as the output". */
void lite_qs8_add_ref(size_t count, const lite_qs8_add_params* p, const int8_t* a, const int64_t* a_index,
                      const int8_t* b, const int64_t* b_index, int8_t* output);

typedef struct {
  int32_t a_zero_point, b_zero_point, output_zero_point;
  int32_t multiplier; /* s_a * s_b / s_out = multiplier * 2^-shift */
  int shift;
  int32_t act_min, act_max;
} lite_qs8_mul_params;

/* out = clamp(floor(((a - za) * (b - zb) * multiplier + 2^(shift-1)) / 2^shift) + z_out, act) */
void lite_qs8_mul_ref(size_t count, const lite_qs8_mul_params* p, const int8_t* a, const int8_t* b,
                      size_t b_period, int8_t* output);

/* lite_qs8_add_ref's arithmetic with b read at i % b_period. */
void lite_qs8_add_periodic_ref(size_t count, const lite_qs8_add_params* p, const int8_t* a, const int8_t* b,
                               size_t b_period, int8_t* output);

#ifdef __cplusplus
}
#endif
