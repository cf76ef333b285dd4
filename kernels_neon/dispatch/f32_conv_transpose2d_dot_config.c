/* Applicability, weight packing and variant choice of the dot-product CONV_TRANSPOSE_2D kernels
 * (f32_conv_transpose2d_dot.h). Only an AVX-512 variant exists: elsewhere the GEMM path serves these
 * shapes (on NEON a 4- or 8-wide tile wastes far less than a 32-wide one). */
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_conv_transpose2d_dot.h"

enum { BLOCK = LITE_CONV_TRANSPOSE2D_DOT_CHANNEL_BLOCK, MAX_OUTPUTS = 4 };

static size_t padded_channels(const lite_conv_transpose2d_params* p) { return (p->in_c + BLOCK - 1) / BLOCK * BLOCK; }

static int dot_applies(const lite_conv_transpose2d_params* p) {
  const size_t outputs = p->kernel_h * p->kernel_w * p->out_c;
  return p->groups == 1 && p->in_c > 0 && outputs > 0 && outputs <= MAX_OUTPUTS && p->kernel_h == p->stride_h &&
         p->kernel_w == p->stride_w && p->dilation_h == 1 && p->dilation_w == 1 && p->pad_top == 0 &&
         p->pad_left == 0 && p->out_h == p->in_h * p->kernel_h && p->out_w == p->in_w * p->kernel_w;
}

lite_f32_conv_transpose2d_dot_fn lite_f32_conv_transpose2d_dot_select(const lite_conv_transpose2d_params* params,
                                                                       uint32_t features) {
  if (!dot_applies(params)) return NULL;
#if defined(__x86_64__)
  if (features & LITE_CPU_X86_AVX512) return lite_f32_conv_transpose2d_dot_avx512;
#endif
  (void)features;
  return NULL;
}

size_t lite_f32_conv_transpose2d_dot_packed_size(const lite_conv_transpose2d_params* params) {
  const size_t outputs = params->kernel_h * params->kernel_w * params->out_c;
  return outputs * padded_channels(params) + outputs;
}

void lite_f32_conv_transpose2d_dot_pack(const lite_conv_transpose2d_params* params, const float* weight,
                                        const float* bias, float* packed) {
  const size_t co = params->out_c, outputs = params->kernel_h * params->kernel_w * co;
  const size_t pc = padded_channels(params);
  for (size_t t = 0; t < outputs; ++t) {
    for (size_t ci = 0; ci < params->in_c; ++ci) packed[t * pc + ci] = weight[ci * outputs + t];
    for (size_t ci = params->in_c; ci < pc; ++ci) packed[t * pc + ci] = 0.0f;
    packed[outputs * pc + t] = bias != NULL ? bias[t % co] : 0.0f;
  }
}
