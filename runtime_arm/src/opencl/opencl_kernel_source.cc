// Activations live in image2d RGBA: tensor (N, H, W, C) is an image W*ceil(C/4) wide and N*H high,
// pixel (cb*W + w, n*H + h) holding channels 4cb..4cb+3. Lanes past C are always 0: every kernel
// writes them as 0 (zero_pad) and the host copies write them as 0, so readers may sum whole pixels.
// Images are read with read_imagef whatever their channel type, so one source serves fp32 and fp16
// storage (CL_FLOAT / CL_HALF_FLOAT images; math in float). Reads never leave the tensor's region:
// coordinates are checked, not clamped, because a neighbouring channel block lies beside the edge.
// Weights are float4 buffers (4 output channels per element), packed at prepare per kernel.
#include "opencl/opencl_kernel_source.h"

#include <cstddef>

namespace lite {
namespace {

// As written (comments, aligned macro continuations): read by the compiler only; the library
// carries kMinified below.
constexpr char kReadableSource[] = R"CLC(
__constant sampler_t kSampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;

// The helpers are written once for a vector type T4 of scalar T and made twice: for float4 (every
// kernel's float path) and as *_r for real4, the type of the kernels that do half math under
// precision fp16_compute (-DLITE_HALF_MATH: activations, pooling, resize: the kernels that read no
// constant, which half math would round to half); without it real4 is float4 and both sets are the same code.
//
// max_nan / min_nan: fmax / fmin return the other operand when one is NaN; these keep the NaN, as
// the CPU kernels and onnxruntime do (x + y is NaN when either is).
// activate: ActivationKind of the schema: NONE, RELU, CLIP, SIGMOID, TANH, HARD_SIGMOID,
// HARD_SWISH, LEAKY_RELU, SILU.
// zero_pad: lanes past C set to 0.
#define LITE_DEFINE_HELPERS(T4, T, S)                                                          \
  T4 max_nan##S(T4 x, T4 y) { return select(fmax(x, y), x + y, isnan(x) | isnan(y)); }         \
  T4 min_nan##S(T4 x, T4 y) { return select(fmin(x, y), x + y, isnan(x) | isnan(y)); }         \
  T4 activate##S(T4 v, int kind, float fa, float fb) {                                         \
    const T a = (T)fa, b = (T)fb, zero = (T)0.0f, one = (T)1.0f;                               \
    switch (kind) {                                                                            \
      case 1: return max_nan##S(v, (T4)(zero));                                                \
      case 2: return min_nan##S(max_nan##S(v, (T4)(a)), (T4)(b));                              \
      case 3: return (T4)(one) / ((T4)(one) + exp(-v));                                        \
      case 4: return tanh(v);                                                                  \
      case 5: return max_nan##S((T4)(zero), min_nan##S((T4)(one), a * v + b));                 \
      case 6: return v * fmax((T4)(zero), fmin((T4)(one), v / (T)6.0f + (T)0.5f));             \
      case 7: return select(a * v, v, isgreaterequal(v, (T4)(zero)));                          \
      case 8: return v / ((T4)(one) + exp(-v));                                                \
      default: return v;                                                                       \
    }                                                                                          \
  }                                                                                            \
  T4 zero_pad##S(T4 v, int cb, int c) {                                                        \
    const int rest = c - cb * 4;                                                               \
    if (rest < 4) v.w = (T)0.0f;                                                               \
    if (rest < 3) v.z = (T)0.0f;                                                               \
    if (rest < 2) v.y = (T)0.0f;                                                               \
    return v;                                                                                  \
  }

LITE_DEFINE_HELPERS(float4, float, )

// write_imagef converts to the image's channel type, and for half the rounding is the
// implementation's: rusticl rounds toward zero, a bias of half an ulp that adds up layer after layer
// (its fp16 PP-OCR outputs were 5x further off than PoCL's, which rounds to nearest). Rounding to
// nearest even here makes the value exact in half, so every implementation stores the same half.
// Normal halves: 13 mantissa bits dropped with ties to even; below 2^-14 (half subnormals) the
// quantum is 2^-24, which adding and removing 0.5 rounds to; past 65504 the value is infinite.
float4 round_to_half(float4 v) {
  const uint4 u = as_uint4(v);
  float4 r = as_float4((u + (uint4)(0xFFFu) + ((u >> 13) & (uint4)(1u))) & (uint4)(~0x1FFFu));
  const float4 a = fabs(v);
  r = select(r, copysign((a + 0.5f) - 0.5f, v), a < (float4)(0x1p-14f));
  r = select(r, copysign((float4)(INFINITY), v), fabs(r) > (float4)(65504.0f));
  return select(r, v, isnan(v));
}

// Every kernel stores through this. Activations are all half under -DLITE_HALF_STORAGE (precision
// fp16 and fp16_compute; constants, never written, stay float). A build option rather than
// get_image_channel_data_type: rusticl answers that query with another image argument's type.
void store(__write_only image2d_t img, int2 at, float4 v) {
#ifdef LITE_HALF_STORAGE
  v = round_to_half(v);
#endif
  write_imagef(img, at, v);
}
#ifdef LITE_HALF_MATH
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half4 real4;
typedef half real;
#define read_real(img, at) read_imageh(img, kSampler, at)
#define write_real(img, at, v) write_imageh(img, at, v)
#define as_real4(v) convert_half4(v)
#else
typedef float4 real4;
typedef float real;
#define read_real(img, at) read_imagef(img, kSampler, at)
#define write_real(img, at, v) store(img, at, v)
#define as_real4(v) (v)
#endif
LITE_DEFINE_HELPERS(real4, real, _r)

float lane(float4 v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }

// shape: (N, H, W, C) of the tensor; pixel of (n, h, w, channel block cb).
float4 load(__read_only image2d_t img, int4 shape, int n, int h, int w, int cb) {
  return read_imagef(img, kSampler, (int2)(cb * shape.z + w, n * shape.y + h));
}

// acc + the product of input channel block v with its 4 packed weight rows (4 output channels each).
float4 mad_block(float4 v, __global const float4* w, float4 acc) {
  acc = mad((float4)(v.x), w[0], acc);
  acc = mad((float4)(v.y), w[1], acc);
  acc = mad((float4)(v.z), w[2], acc);
  return mad((float4)(v.w), w[3], acc);
}

real4 load_r(__read_only image2d_t img, int4 shape, int n, int h, int w, int cb) {
  return read_real(img, (int2)(cb * shape.z + w, n * shape.y + h));
}

// Work item (x, y) = (cb*W + w, n*H + h) of an output of shape s; false when outside.
bool output_pixel(int4 s, int* n, int* h, int* w, int* cb) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= s.z * ((s.w + 3) / 4) || y >= s.x * s.y) return false;
  *cb = x / s.z;
  *w = x - *cb * s.z;
  *n = y / s.y;
  *h = y - *n * s.y;
  return true;
}

// Dense convolution (group 1). weights: [ocb][kh][kw][ic4*4]
// float4 over the block's 4 output channels. window: (kh, kw, stride_h, stride_w);
// pad_dilation: (pad_top, pad_left, dilation_h, dilation_w).
__kernel void conv2d(__read_only image2d_t in, __global const float4* weights, __global const float4* bias,
                     __write_only image2d_t out, int4 in_shape, int4 out_shape, int4 window, int4 pad_dilation,
                     int act, float alpha, float beta) {
  int n, oh, ow, ocb;
  if (!output_pixel(out_shape, &n, &oh, &ow, &ocb)) return;
  const int ic4 = (in_shape.w + 3) / 4;
  float4 acc = bias[ocb];
  const int ih0 = oh * window.z - pad_dilation.x, iw0 = ow * window.w - pad_dilation.y;
  __global const float4* wp = weights + (size_t)ocb * window.x * window.y * ic4 * 4;
  for (int ky = 0; ky < window.x; ++ky) {
    const int ih = ih0 + ky * pad_dilation.z;
    if (ih < 0 || ih >= in_shape.y) {
      wp += window.y * ic4 * 4;
      continue;
    }
    for (int kx = 0; kx < window.y; ++kx) {
      const int iw = iw0 + kx * pad_dilation.w;
      if (iw < 0 || iw >= in_shape.z) {
        wp += ic4 * 4;
        continue;
      }
      for (int icb = 0; icb < ic4; ++icb) {
        const float4 v = load(in, in_shape, n, ih, iw, icb);
        acc = mad_block(v, wp, acc);
        wp += 4;
      }
    }
  }
  store(out, (int2)(get_global_id(0), get_global_id(1)),
        zero_pad(activate(acc, act, alpha, beta), ocb, out_shape.w));
}

// Depthwise convolution (group == C_in == C_out). weights: [cb][kh][kw] float4. Float math under
// fp16_compute too: weights rounded to half are a per-channel bias (PP-OCRv4 det: 0.28 off, not 0.03).
__kernel void conv2d_depthwise(__read_only image2d_t in, __global const float4* weights, __global const float4* bias,
                               __write_only image2d_t out, int4 in_shape, int4 out_shape, int4 window,
                               int4 pad_dilation, int act, float alpha, float beta) {
  int n, oh, ow, cb;
  if (!output_pixel(out_shape, &n, &oh, &ow, &cb)) return;
  float4 acc = bias[cb];
  const int ih0 = oh * window.z - pad_dilation.x, iw0 = ow * window.w - pad_dilation.y;
  __global const float4* wp = weights + (size_t)cb * window.x * window.y;
  for (int ky = 0; ky < window.x; ++ky) {
    const int ih = ih0 + ky * pad_dilation.z;
    if (ih < 0 || ih >= in_shape.y) continue;
    for (int kx = 0; kx < window.y; ++kx) {
      const int iw = iw0 + kx * pad_dilation.w;
      if (iw < 0 || iw >= in_shape.z) continue;
      acc = mad(load(in, in_shape, n, ih, iw, cb), wp[ky * window.y + kx], acc);
    }
  }
  store(out, (int2)(get_global_id(0), get_global_id(1)),
             zero_pad(activate(acc, act, alpha, beta), cb, out_shape.w));
}

// Any other grouped convolution, one output channel per lane. weights: the model's
// [C_out][kh][kw][C_in / group] floats; bias: C_out floats (padded to whole blocks).
__kernel void conv2d_grouped(__read_only image2d_t in, __global const float* weights, __global const float* bias,
                             __write_only image2d_t out, int4 in_shape, int4 out_shape, int4 window,
                             int4 pad_dilation, int group, int act, float alpha, float beta) {
  int n, oh, ow, ocb;
  if (!output_pixel(out_shape, &n, &oh, &ow, &ocb)) return;
  const int icg = in_shape.w / group, ocg = out_shape.w / group;
  const int ih0 = oh * window.z - pad_dilation.x, iw0 = ow * window.w - pad_dilation.y;
  float r[4];
  for (int l = 0; l < 4; ++l) {
    const int oc = ocb * 4 + l;
    r[l] = 0.0f;
    if (oc >= out_shape.w) continue;
    const int ic0 = (oc / ocg) * icg;
    float acc = bias[oc];
    for (int ky = 0; ky < window.x; ++ky) {
      const int ih = ih0 + ky * pad_dilation.z;
      if (ih < 0 || ih >= in_shape.y) continue;
      for (int kx = 0; kx < window.y; ++kx) {
        const int iw = iw0 + kx * pad_dilation.w;
        if (iw < 0 || iw >= in_shape.z) continue;
        __global const float* wp = weights + (((size_t)oc * window.x + ky) * window.y + kx) * icg;
        for (int i = 0; i < icg; ++i) {
          const int ic = ic0 + i;
          acc = mad(lane(load(in, in_shape, n, ih, iw, ic / 4), ic % 4), wp[i], acc);
        }
      }
    }
    r[l] = acc;
  }
  store(out, (int2)(get_global_id(0), get_global_id(1)),
        zero_pad(activate((float4)(r[0], r[1], r[2], r[3]), act, alpha, beta), ocb, out_shape.w));
}

// Broadcast read: dims of size 1 repeat; a single channel repeats across the block.
float4 load_broadcast(__read_only image2d_t img, int4 s, int n, int h, int w, int cb) {
  n = s.x == 1 ? 0 : n;
  h = s.y == 1 ? 0 : h;
  w = s.z == 1 ? 0 : w;
  if (s.w == 1) return (float4)(load(img, s, n, h, w, 0).x);
  return load(img, s, n, h, w, cb);
}

// op: 0 ADD, 1 SUB, 2 MUL, 3 DIV, 4 MAXIMUM, 5 MINIMUM. Float math under every precision: an
// operand is often a constant (a per-channel scale or bias, kept float), which half math would
// round to half again, a bias that adds up through the layers (docs/OPENCL.md, Precision); and an
// elementwise op is bound by memory, not arithmetic.
__kernel void binary(__read_only image2d_t a, __read_only image2d_t b, __write_only image2d_t out, int4 a_shape,
                     int4 b_shape, int4 out_shape, int op, int act, float alpha, float beta) {
  int n, h, w, cb;
  if (!output_pixel(out_shape, &n, &h, &w, &cb)) return;
  const float4 x = load_broadcast(a, a_shape, n, h, w, cb);
  const float4 y = load_broadcast(b, b_shape, n, h, w, cb);
  float4 r;
  switch (op) {
    case 0: r = x + y; break;
    case 1: r = x - y; break;
    case 2: r = x * y; break;
    case 3: r = x / y; break;
    case 4: r = max_nan(x, y); break;
    default: r = min_nan(x, y); break;
  }
  store(out, (int2)(get_global_id(0), get_global_id(1)), zero_pad(activate(r, act, alpha, beta), cb, out_shape.w));
}

__kernel void activation(__read_only image2d_t in, __write_only image2d_t out, int4 shape, int act, float alpha,
                         float beta) {
  int n, h, w, cb;
  if (!output_pixel(shape, &n, &h, &w, &cb)) return;
  write_real(out, (int2)(get_global_id(0), get_global_id(1)),
             zero_pad_r(activate_r(load_r(in, shape, n, h, w, cb), act, alpha, beta), cb, shape.w));
}

// Windowed pooling. window: (kh, kw, stride_h, stride_w); pad_dilation: (pad_top, pad_left,
// dilation_h, dilation_w); padded_end: (in_h + pad_bottom, in_w + pad_right) for count_include_pad.
__kernel void pool2d(__read_only image2d_t in, __write_only image2d_t out, int4 in_shape, int4 out_shape,
                     int4 window, int4 pad_dilation, int2 padded_end, int is_max, int count_include_pad, int act,
                     float alpha, float beta) {
  int n, oh, ow, cb;
  if (!output_pixel(out_shape, &n, &oh, &ow, &cb)) return;
  const int ih0 = oh * window.z - pad_dilation.x, iw0 = ow * window.w - pad_dilation.y;
  real4 acc = is_max ? (real4)(-INFINITY) : (real4)(0.0f);
  int count = 0;
  for (int ky = 0; ky < window.x; ++ky) {
    const int ih = ih0 + ky * pad_dilation.z;
    const bool row_in_pad = ih >= -pad_dilation.x && ih < padded_end.x;
    for (int kx = 0; kx < window.y; ++kx) {
      const int iw = iw0 + kx * pad_dilation.w;
      if (ih < 0 || ih >= in_shape.y || iw < 0 || iw >= in_shape.z) {
        if (count_include_pad && row_in_pad && iw >= -pad_dilation.y && iw < padded_end.y) ++count;
        continue;
      }
      const real4 v = load_r(in, in_shape, n, ih, iw, cb);
      acc = is_max ? max_nan_r(acc, v) : acc + v;
      ++count;
    }
  }
  if (!is_max && count > 0) acc = acc / (real)count;
  write_real(out, (int2)(get_global_id(0), get_global_id(1)),
             zero_pad_r(activate_r(acc, act, alpha, beta), cb, out_shape.w));
}

// GLOBAL_AVERAGE_POOL / GLOBAL_MAX_POOL: one work group of L items (a power of two <= 64) per
// (channel block, n): global (L * blocks, N), local (L, 1); output (N, 1, 1, C). Item i reduces
// positions i, i + L, i + 2L, ... in that order, then the group halves its partial results pairwise
// in a fixed tree: the same order at every run, so results are deterministic (for a given L).
__kernel void global_pool(__read_only image2d_t in, __write_only image2d_t out, int4 in_shape, int is_max) {
  __local float4 partial[64];
  const int item = get_local_id(0), size = get_local_size(0), cb = get_group_id(0), n = get_global_id(1);
  const int positions = in_shape.y * in_shape.z;
  float4 acc = is_max ? (float4)(-INFINITY) : (float4)(0.0f);
  for (int p = item; p < positions && n < in_shape.x; p += size) {
    const int h = p / in_shape.z;
    const float4 v = load(in, in_shape, n, h, p - h * in_shape.z, cb);
    acc = is_max ? max_nan(acc, v) : acc + v;
  }
  partial[item] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int half_size = size / 2; half_size > 0; half_size /= 2) {
    if (item < half_size) {
      const float4 other = partial[item + half_size];
      partial[item] = is_max ? max_nan(partial[item], other) : partial[item] + other;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (item != 0 || n >= in_shape.x) return;
  acc = partial[0];
  if (!is_max) acc = acc / (float)positions;
  store(out, (int2)(cb, n), zero_pad(acc, cb, in_shape.w));
}

// SOFTMAX over channels (the last axis): one work item per (w, n*H + h).
__kernel void softmax_channels(__read_only image2d_t in, __write_only image2d_t out, int4 shape) {
  const int w = get_global_id(0), y = get_global_id(1);
  if (w >= shape.z || y >= shape.x * shape.y) return;
  const int c4 = (shape.w + 3) / 4;
  float m = -INFINITY;
  for (int cb = 0; cb < c4; ++cb) {
    const float4 v = read_imagef(in, kSampler, (int2)(cb * shape.z + w, y));
    for (int l = 0; l < 4 && cb * 4 + l < shape.w; ++l) m = fmax(m, lane(v, l));
  }
  float sum = 0.0f;
  for (int cb = 0; cb < c4; ++cb) {
    const float4 e = zero_pad(exp(read_imagef(in, kSampler, (int2)(cb * shape.z + w, y)) - m), cb, shape.w);
    sum += e.x + e.y + e.z + e.w;
  }
  for (int cb = 0; cb < c4; ++cb) {
    const float4 e = exp(read_imagef(in, kSampler, (int2)(cb * shape.z + w, y)) - m) / sum;
    store(out, (int2)(cb * shape.z + w, y), zero_pad(e, cb, shape.w));
  }
}

float4 read_input(int j, __read_only image2d_t i0, __read_only image2d_t i1, __read_only image2d_t i2,
                  __read_only image2d_t i3, __read_only image2d_t i4, __read_only image2d_t i5, int2 at) {
  switch (j) {
    case 0: return read_imagef(i0, kSampler, at);
    case 1: return read_imagef(i1, kSampler, at);
    case 2: return read_imagef(i2, kSampler, at);
    case 3: return read_imagef(i3, kSampler, at);
    case 4: return read_imagef(i4, kSampler, at);
    default: return read_imagef(i5, kSampler, at);
  }
}

int dim_of(int4 s, int d) { return d == 0 ? s.x : d == 1 ? s.y : d == 2 ? s.z : s.w; }

// CONCATENATION of up to 6 inputs along folded axis `axis` (0 N, 1 H, 2 W, 3 C); `ends`: the
// running end of each input along the axis (unused entries: past the output).
__kernel void concat(__read_only image2d_t i0, __read_only image2d_t i1, __read_only image2d_t i2,
                     __read_only image2d_t i3, __read_only image2d_t i4, __read_only image2d_t i5,
                     __write_only image2d_t out, int4 out_shape, int axis, int8 ends) {
  int n, h, w, cb;
  if (!output_pixel(out_shape, &n, &h, &w, &cb)) return;
  const int e[6] = {ends.s0, ends.s1, ends.s2, ends.s3, ends.s4, ends.s5};
  float4 r = (float4)(0.0f);
  if (axis == 3) {
    float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int l = 0; l < 4; ++l) {
      const int c = cb * 4 + l;
      if (c >= out_shape.w) break;
      int j = 0;
      while (c >= e[j]) ++j;
      const int start = j == 0 ? 0 : e[j - 1], cc = c - start;
      const int4 s = (int4)(out_shape.x, out_shape.y, out_shape.z, e[j] - start);
      v[l] = lane(read_input(j, i0, i1, i2, i3, i4, i5, (int2)((cc / 4) * s.z + w, n * s.y + h)), cc % 4);
    }
    r = (float4)(v[0], v[1], v[2], v[3]);
  } else {
    int coord[3] = {n, h, w};
    int j = 0;
    while (coord[axis] >= e[j]) ++j;
    const int start = j == 0 ? 0 : e[j - 1];
    coord[axis] -= start;
    int4 s = out_shape;
    if (axis == 0) s.x = e[j] - start;
    if (axis == 1) s.y = e[j] - start;
    if (axis == 2) s.z = e[j] - start;
    r = read_input(j, i0, i1, i2, i3, i4, i5, (int2)(cb * s.z + coord[2], coord[0] * s.y + coord[1]));
  }
  store(out, (int2)(get_global_id(0), get_global_id(1)), r);
}

// Pixel of element `index` of a tensor of folded shape s in dense row-major order, and its lane.
int2 pixel_of(int4 s, long index, int* lane_index) {
  *lane_index = (int)(index % s.w) % 4;
  const int c = (int)(index % s.w);
  index /= s.w;
  const int w = (int)(index % s.z);
  const long row = index / s.z;  // n * H + h
  return (int2)((c / 4) * s.z + w, (int)row);
}

// A strided gather (RESHAPE and its kin, TRANSPOSE, SLICE of any rank up to 8): output element
// with coordinates (i0..i7) over `dims` (leading 1s) is input element offset + sum(ik * strides[k])
// of the input in dense row-major order.
__kernel void relayout(__read_only image2d_t in, __write_only image2d_t out, int4 in_shape, int4 out_shape,
                       int8 dims, int8 strides, int offset) {
  int n, h, w, cb;
  if (!output_pixel(out_shape, &n, &h, &w, &cb)) return;
  const int d[8] = {dims.s0, dims.s1, dims.s2, dims.s3, dims.s4, dims.s5, dims.s6, dims.s7};
  const int st[8] = {strides.s0, strides.s1, strides.s2, strides.s3, strides.s4, strides.s5, strides.s6, strides.s7};
  float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int l = 0; l < 4; ++l) {
    const int c = cb * 4 + l;
    if (c >= out_shape.w) break;
    long o = (((long)n * out_shape.y + h) * out_shape.z + w) * out_shape.w + c;
    long i = offset;
    for (int k = 7; k >= 0; --k) {
      i += (o % d[k]) * st[k];
      o /= d[k];
    }
    int li;
    const int2 at = pixel_of(in_shape, i, &li);
    v[l] = lane(read_imagef(in, kSampler, at), li);
  }
  store(out, (int2)(get_global_id(0), get_global_id(1)), (float4)(v[0], v[1], v[2], v[3]));
}

// Pixel position p = (n*H + h)*W + w of a folded shape s, channel block cb.
int2 position_pixel(int4 s, long p, int cb) { return (int2)(cb * s.z + (int)(p % s.z), (int)(p / s.z)); }

// LAYER_NORM over the last `inner` elements (whole positions: the last axis is always normalized);
// one work item per outer row. scale / bias: `inner` floats each (expanded at prepare).
__kernel void layer_norm(__read_only image2d_t in, __write_only image2d_t out, int4 shape, int positions,
                         int rows, __global const float* scale, __global const float* bias, float epsilon) {
  const int row = get_global_id(0);
  if (row >= rows) return;
  const int c4 = (shape.w + 3) / 4;
  const long first = (long)row * positions;
  float sum = 0.0f;
  for (int p = 0; p < positions; ++p)
    for (int cb = 0; cb < c4; ++cb) {
      const float4 v = read_imagef(in, kSampler, position_pixel(shape, first + p, cb));
      sum += v.x + v.y + v.z + v.w;  // lanes past C are 0
    }
  const float count = (float)positions * shape.w;
  const float mean = sum / count;
  float var = 0.0f;
  for (int p = 0; p < positions; ++p)
    for (int cb = 0; cb < c4; ++cb) {
      const float4 d = zero_pad(read_imagef(in, kSampler, position_pixel(shape, first + p, cb)) - mean, cb, shape.w);
      var += dot(d, d);
    }
  const float inv = rsqrt(var / count + epsilon);
  for (int p = 0; p < positions; ++p)
    for (int cb = 0; cb < c4; ++cb) {
      const int2 at = position_pixel(shape, first + p, cb);
      const float4 v = read_imagef(in, kSampler, at);
      float r[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      for (int l = 0; l < 4 && cb * 4 + l < shape.w; ++l) {
        const int i = p * shape.w + cb * 4 + l;
        r[l] = (lane(v, l) - mean) * inv * scale[i] + bias[i];
      }
      store(out, at, (float4)(r[0], r[1], r[2], r[3]));
    }
}

// SOFTMAX over an axis other than the last: the axis has `len` values `stride` positions apart;
// one work item per (channel block, outer * stride + s), all 4 lanes at once.
__kernel void softmax_axis(__read_only image2d_t in, __write_only image2d_t out, int4 shape, int len, int stride,
                           int lines) {
  const int cb = get_global_id(0), line = get_global_id(1);
  if (cb >= (shape.w + 3) / 4 || line >= lines) return;
  const long first = (long)(line / stride) * len * stride + line % stride;
  float4 m = (float4)(-INFINITY);
  for (int k = 0; k < len; ++k) m = max_nan(m, read_imagef(in, kSampler, position_pixel(shape, first + (long)k * stride, cb)));
  float4 sum = (float4)(0.0f);
  for (int k = 0; k < len; ++k) sum += exp(read_imagef(in, kSampler, position_pixel(shape, first + (long)k * stride, cb)) - m);
  for (int k = 0; k < len; ++k) {
    const int2 at = position_pixel(shape, first + (long)k * stride, cb);
    store(out, at, zero_pad(exp(read_imagef(in, kSampler, at) - m) / sum, cb, shape.w));
  }
}

// MATMUL of two activations (numpy matmul, ranks 2..4, batch dims broadcast): a (.., M, K),
// b (.., K, N) -> out (.., M, N). One work item per output pixel: row i, 4 columns.
__kernel void matmul(__read_only image2d_t a, __read_only image2d_t b, __write_only image2d_t out, int4 a_shape,
                     int4 b_shape, int4 out_shape, int act, float alpha, float beta) {
  int n, h, i, jb;
  if (!output_pixel(out_shape, &n, &h, &i, &jb)) return;
  const int an = a_shape.x == 1 ? 0 : n, ah = a_shape.y == 1 ? 0 : h;
  const int bn = b_shape.x == 1 ? 0 : n, bh = b_shape.y == 1 ? 0 : h;
  const int k_total = a_shape.w;
  float4 acc = (float4)(0.0f);
  for (int kb = 0; kb * 4 < k_total; ++kb) {
    const float4 x = load(a, a_shape, an, ah, i, kb);
    const int k0 = kb * 4;
    acc = mad((float4)(x.x), load(b, b_shape, bn, bh, k0, jb), acc);
    if (k0 + 1 < k_total) acc = mad((float4)(x.y), load(b, b_shape, bn, bh, k0 + 1, jb), acc);
    if (k0 + 2 < k_total) acc = mad((float4)(x.z), load(b, b_shape, bn, bh, k0 + 2, jb), acc);
    if (k0 + 3 < k_total) acc = mad((float4)(x.w), load(b, b_shape, bn, bh, k0 + 3, jb), acc);
  }
  store(out, (int2)(get_global_id(0), get_global_id(1)), zero_pad(activate(acc, act, alpha, beta), jb, out_shape.w));
}

// CONV_TRANSPOSE_2D (group 1) as a gather: output (oh, ow) takes input (ih, iw) through tap (ky, kx)
// when oh + pad_top - ky*dilation_h = ih*stride_h (and likewise for w). weights as conv2d's:
// [ocb][kh][kw][ic4*4] float4.
__kernel void conv2d_transpose(__read_only image2d_t in, __global const float4* weights, __global const float4* bias,
                               __write_only image2d_t out, int4 in_shape, int4 out_shape, int4 window,
                               int4 pad_dilation, int act, float alpha, float beta) {
  int n, oh, ow, ocb;
  if (!output_pixel(out_shape, &n, &oh, &ow, &ocb)) return;
  const int ic4 = (in_shape.w + 3) / 4;
  float4 acc = bias[ocb];
  for (int ky = 0; ky < window.x; ++ky) {
    const int ty = oh + pad_dilation.x - ky * pad_dilation.z;
    if (ty < 0 || ty % window.z != 0 || ty / window.z >= in_shape.y) continue;
    for (int kx = 0; kx < window.y; ++kx) {
      const int tx = ow + pad_dilation.y - kx * pad_dilation.w;
      if (tx < 0 || tx % window.w != 0 || tx / window.w >= in_shape.z) continue;
      __global const float4* wp = weights + (((size_t)ocb * window.x + ky) * window.y + kx) * ic4 * 4;
      for (int icb = 0; icb < ic4; ++icb) {
        const float4 v = load(in, in_shape, n, ty / window.z, tx / window.w, icb);
        acc = mad_block(v, wp, acc);
        wp += 4;
      }
    }
  }
  store(out, (int2)(get_global_id(0), get_global_id(1)),
        zero_pad(activate(acc, act, alpha, beta), ocb, out_shape.w));
}

// RESIZE on H and W. rows / cols: per output row and column, the source index pair (i0, i1) and
// the weight of i1 (nearest: i0 == i1, weight 0), computed at prepare with the CPU kernels'
// coordinate rules so both backends pick the same pixels.
__kernel void resize(__read_only image2d_t in, __write_only image2d_t out, int4 in_shape, int4 out_shape,
                     __global const int2* row_taps, __global const float* row_weights,
                     __global const int2* col_taps, __global const float* col_weights) {
  int n, oh, ow, cb;
  if (!output_pixel(out_shape, &n, &oh, &ow, &cb)) return;
  const int2 ty = row_taps[oh], tx = col_taps[ow];
  const real wy = (real)row_weights[oh], wx = (real)col_weights[ow];
  const real4 a = load_r(in, in_shape, n, ty.x, tx.x, cb);
  real4 r = a;
  if (wy != (real)0.0f || wx != (real)0.0f) {
    const real4 b = load_r(in, in_shape, n, ty.x, tx.y, cb);
    const real4 c = load_r(in, in_shape, n, ty.y, tx.x, cb);
    const real4 d = load_r(in, in_shape, n, ty.y, tx.y, cb);
    const real one = (real)1.0f;
    r = (one - wy) * ((one - wx) * a + wx * b) + wy * ((one - wx) * c + wx * d);
  }
  write_real(out, (int2)(get_global_id(0), get_global_id(1)), r);
}

// FULLY_CONNECTED over positions (any layout of input and output, "tall" ones included): one work
// item per (output channel block, position). weights: conv2d's with a 1x1 window.
__kernel void fully_connected(__read_only image2d_t in, __global const float4* weights, __global const float4* bias,
                              __write_only image2d_t out, int4 in_shape, int4 out_shape, int positions, int act,
                              float alpha, float beta) {
  const int ocb = get_global_id(0), p = get_global_id(1);
  if (ocb >= (out_shape.w + 3) / 4 || p >= positions) return;
  const int ic4 = (in_shape.w + 3) / 4;
  __global const float4* wp = weights + (size_t)ocb * ic4 * 4;
  float4 acc = bias[ocb];
  for (int icb = 0; icb < ic4; ++icb) {
    const float4 v = read_imagef(in, kSampler, position_pixel(in_shape, p, icb));
    acc = mad_block(v, wp, acc);
    wp += 4;
  }
  store(out, position_pixel(out_shape, p, ocb), zero_pad(activate(acc, act, alpha, beta), ocb, out_shape.w));
}
)CLC";

// The source as the device compiler needs it, made at compile time: `//` comments and indentation
// dropped, runs of blanks made one, empty lines removed; newlines stay (preprocessor lines and
// continuations). Tokens never merge: a blank between two is kept as one space. About half the
// bytes, which the stripped ARM library's 600 KB budget needs. Writes only when `out` is given.
constexpr std::size_t minify(const char* source, std::size_t size, char* out) {
  std::size_t length = 0;
  bool line_start = true, blank = false;
  for (std::size_t i = 0; i < size; ++i) {
    const char c = source[i];
    if (c == '/' && i + 1 < size && source[i + 1] == '/') {
      while (i + 1 < size && source[i + 1] != '\n') ++i;
    } else if (c == ' ' || c == '\t') {
      blank = !line_start;
    } else if (c == '\n') {
      if (!line_start && out) out[length] = '\n';
      length += line_start ? 0 : 1;
      line_start = true, blank = false;
    } else {
      if (blank && out) out[length] = ' ';
      length += blank ? 1 : 0;
      if (out) out[length] = c;
      ++length;
      line_start = false, blank = false;
    }
  }
  return length;
}

constexpr std::size_t kMinifiedSize = minify(kReadableSource, sizeof(kReadableSource) - 1, nullptr);

struct MinifiedSource {
  char text[kMinifiedSize + 1];
};

constexpr MinifiedSource make_minified() {
  MinifiedSource minified{};
  minify(kReadableSource, sizeof(kReadableSource) - 1, minified.text);
  return minified;
}

constexpr MinifiedSource kMinified = make_minified();
static_assert(kMinified.text[kMinifiedSize] == '\0');

}  // namespace

const char* const kOpenClKernelSource = kMinified.text;

}  // namespace lite
