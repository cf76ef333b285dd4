#include "opencl/opencl_ops.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lite_kernels/resize.h"
#include "opencl/opencl_backend.h"
#include "ops/op_helpers.h"
#include "ops/slice_view.h"
#include "ops/window_geometry.h"

namespace lite {

using namespace cl;  // NOLINT: the OpenCL API reads best with its own names
using lite_fb::OpCode;

namespace {

struct ClInt2 {
  int32_t v[2];
};
struct ClInt4 {
  int32_t v[4];
};
struct ClInt8 {
  int32_t v[8];
};

constexpr int kMaxImageArgs = 6;

// One op's state: its kernel object (arguments that do not change between invokes set at
// prepare), weight buffers, constant inputs as images, and which argument gets which tensor.
struct ClOpState {
  const Api* api = nullptr;
  OpenClBackend* backend = nullptr;
  cl_kernel kernel = nullptr;
  const char* kernel_name = "";  // a string literal: labels the kernel's profile
  cl_mem buffers[4] = {nullptr, nullptr, nullptr, nullptr};
  cl_mem constants[kMaxImageArgs] = {};
  // Argument index of input i's image (-1: none or set at prepare), and of the output image.
  int input_arg[kMaxImageArgs] = {-1, -1, -1, -1, -1, -1};
  int output_arg = -1;
  size_t global[2] = {1, 1};
  // Local size: chosen at the first eval (arguments bound), from the tuning cache or by timing.
  bool tuned = false;
  LocalSize local;
  std::string tune_key;  // kernel name and the op's tensor shapes
};

void free_state(void* p) {
  ClOpState* s = static_cast<ClOpState*>(p);
  if (s == nullptr) return;
  if (s->kernel != nullptr) s->api->ReleaseKernel(s->kernel);
  for (cl_mem m : s->buffers)
    if (m != nullptr) s->api->ReleaseMemObject(m);
  for (cl_mem m : s->constants)
    if (m != nullptr) s->api->ReleaseMemObject(m);
  delete s;
}

OpenClBackend* backend_of(const OpContext* ctx) { return static_cast<OpenClBackend*>(ctx->backend); }

ClInt4 int4_of(const ImageShape& s) { return ClInt4{{s.n, s.h, s.w, s.c}}; }
ImageShape image_of(const OpContext* ctx, const TensorRef* t) {
  ImageShape s;
  backend_of(ctx)->image_shape(t->shape, &s);
  return s;
}

// Builds the state with kernel `name`; null after reporting the failure into ctx.
ClOpState* new_state(OpContext* ctx, const char* name) {
  OpenClBackend* b = backend_of(ctx);
  std::string error;
  cl_kernel k = b->create_kernel(name, &error);
  if (k == nullptr) {
    fail(ctx, Status::kInternal, "OpenCL: %s", error.c_str());
    return nullptr;
  }
  ClOpState* s = new ClOpState();
  s->api = &b->api();
  s->backend = b;
  s->kernel = k;
  s->kernel_name = name;
  s->tune_key = name;
  for (int i = 0; i < ctx->num_inputs; ++i) {
    const TensorRef* t = ctx->input(i);
    s->tune_key += i == 0 ? "/" : ",";
    for (int d = 0; t != nullptr && d < t->shape.rank; ++d) s->tune_key += (d ? "x" : "") + std::to_string(t->shape.dims[d]);
  }
  ctx->state = s;
  const ImageShape out = image_of(ctx, ctx->output(0));
  s->global[0] = out.width();
  s->global[1] = out.height();
  return s;
}

template <typename T>
bool set_arg(OpContext* ctx, ClOpState* s, int index, const T& value) {
  const cl_int err = s->api->SetKernelArg(s->kernel, static_cast<cl_uint>(index), sizeof(T), &value);
  if (err == CL_SUCCESS) return true;
  fail(ctx, Status::kInternal, "OpenCL: clSetKernelArg %d failed: %s", index, cl_error_name(err).c_str());
  return false;
}

// Input i at argument `arg`: a constant becomes an image now, an activation is bound at eval.
bool bind_input(OpContext* ctx, ClOpState* s, int i, int arg) {
  const TensorRef* t = ctx->input(i);
  if (!t->value_known) {
    s->input_arg[i] = arg;
    return true;
  }
  std::string error;
  s->constants[i] = s->backend->create_constant_image(*t, &error);
  if (s->constants[i] == nullptr) {
    fail(ctx, Status::kInternal, "OpenCL: input %d: %s", i, error.c_str());
    return false;
  }
  return set_arg(ctx, s, arg, s->constants[i]);
}

Status eval(OpContext* ctx) {
  ClOpState* s = static_cast<ClOpState*>(ctx->state);
  for (int i = 0; i < kMaxImageArgs && i < ctx->num_inputs; ++i) {
    if (s->input_arg[i] < 0) continue;
    cl_mem m = static_cast<cl_mem>(ctx->input(i)->data);
    if (!set_arg(ctx, s, s->input_arg[i], m)) return Status::kInternal;
  }
  cl_mem out = static_cast<cl_mem>(ctx->output(0)->data);
  if (!set_arg(ctx, s, s->output_arg, out)) return Status::kInternal;
  if (!s->tuned) {
    s->local = s->backend->tuned_local(s->kernel, s->tune_key, s->global[0], s->global[1]);
    s->tuned = true;
  }
  const cl_int err = s->backend->enqueue_local(s->kernel, s->kernel_name, s->global[0], s->global[1], s->local);
  if (err != CL_SUCCESS)
    return fail(ctx, Status::kInternal, "OpenCL: clEnqueueNDRangeKernel failed: %s", cl_error_name(err).c_str());
  return Status::kOk;
}

// Fused activations the kernels implement (ActivationKind NONE .. SILU; PRELU needs its slopes).
bool activation_ok(const lite_fb::Activation* a) {
  return a == nullptr || static_cast<int>(a->kind()) <= static_cast<int>(lite_fb::ActivationKind::SILU);
}
void activation_args(const lite_fb::Activation* a, int* kind, float* alpha, float* beta) {
  *kind = a != nullptr ? static_cast<int>(a->kind()) : 0;
  *alpha = a != nullptr ? a->alpha() : 0.0f;
  *beta = a != nullptr ? a->beta() : 0.0f;
}
bool set_activation_args(OpContext* ctx, ClOpState* s, int first, const lite_fb::Activation* a) {
  int kind;
  float alpha, beta;
  activation_args(a, &kind, &alpha, &beta);
  return set_arg(ctx, s, first, kind) && set_arg(ctx, s, first + 1, alpha) && set_arg(ctx, s, first + 2, beta);
}

template <typename T>
bool make_buffer(OpContext* ctx, ClOpState* s, int slot, const std::vector<T>& data) {
  std::string error;
  s->buffers[slot] = s->backend->create_buffer(data.data(), data.size() * sizeof(T), &error);
  if (s->buffers[slot] == nullptr) {
    fail(ctx, Status::kOutOfMemory, "OpenCL: %s", error.c_str());
    return false;
  }
  return true;
}

// ---- CONV_2D and FULLY_CONNECTED ----------------------------------------------------------------

struct ConvGeometry {
  ImageShape in, out;
  int kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1, pad_top = 0, pad_left = 0, group = 1;
  const lite_fb::Activation* activation = nullptr;
};

// Dense weights [C_out][kh][kw][C_in] -> [ocb][kh][kw][ic4*4] float4 over 4 output channels.
std::vector<float> pack_dense_weights(const float* w, int oc, int kh, int kw, int ic) {
  const int oc4 = (oc + 3) / 4, ic4 = (ic + 3) / 4;
  std::vector<float> packed(static_cast<size_t>(oc4) * kh * kw * ic4 * 16, 0.0f);
  for (int o = 0; o < oc; ++o)
    for (int y = 0; y < kh; ++y)
      for (int x = 0; x < kw; ++x)
        for (int i = 0; i < ic; ++i) {
          const size_t dst = ((((static_cast<size_t>(o / 4) * kh + y) * kw + x) * ic4 * 4 + i) * 4) + o % 4;
          packed[dst] = w[((static_cast<size_t>(o) * kh + y) * kw + x) * ic + i];
        }
  return packed;
}

std::vector<float> padded_bias(const TensorRef* bias, int oc) {
  std::vector<float> b(static_cast<size_t>((oc + 3) / 4) * 4, 0.0f);
  if (bias != nullptr) std::memcpy(b.data(), bias->data, static_cast<size_t>(oc) * sizeof(float));
  return b;
}

Status conv_prepare_with(OpContext* ctx, const ConvGeometry& g) {
  const TensorRef* weight = ctx->input(1);
  const TensorRef* bias = ctx->num_inputs > 2 ? ctx->input(2) : nullptr;
  const int oc = g.out.c, ic = g.in.c;
  const bool depthwise = g.group > 1 && g.group == ic && g.group == oc;
  const char* name = g.group == 1 ? "conv2d" : depthwise ? "conv2d_depthwise" : "conv2d_grouped";
  ClOpState* s = new_state(ctx, name);
  if (s == nullptr) return Status::kInternal;
  const float* w = static_cast<const float*>(weight->data);
  std::vector<float> packed;
  if (g.group == 1) {
    packed = pack_dense_weights(w, oc, g.kh, g.kw, ic);
  } else if (depthwise) {
    packed.assign(static_cast<size_t>((oc + 3) / 4) * g.kh * g.kw * 4, 0.0f);
    for (int o = 0; o < oc; ++o)
      for (int t = 0; t < g.kh * g.kw; ++t) packed[(static_cast<size_t>(o / 4) * g.kh * g.kw + t) * 4 + o % 4] = w[o * g.kh * g.kw + t];
  } else {
    packed.assign(w, w + weight->shape.num_elements());
  }
  if (!make_buffer(ctx, s, 0, packed) || !make_buffer(ctx, s, 1, padded_bias(bias, oc))) return Status::kInternal;
  int arg = 0;
  s->input_arg[0] = arg++;
  bool ok = set_arg(ctx, s, arg++, s->buffers[0]) && set_arg(ctx, s, arg++, s->buffers[1]);
  s->output_arg = arg++;
  ok = ok && set_arg(ctx, s, arg++, int4_of(g.in)) && set_arg(ctx, s, arg++, int4_of(g.out)) &&
       set_arg(ctx, s, arg++, ClInt4{{g.kh, g.kw, g.sh, g.sw}}) &&
       set_arg(ctx, s, arg++, ClInt4{{g.pad_top, g.pad_left, g.dh, g.dw}});
  if (ok && g.group > 1 && !depthwise) ok = set_arg(ctx, s, arg++, g.group);
  ok = ok && set_activation_args(ctx, s, arg, g.activation);
  return ok ? Status::kOk : Status::kInternal;
}

Status conv2d_prepare(OpContext* ctx) {
  const ConvWindowAttrs a = read_conv_window_attrs(ctx->op->options_as_Conv2DOptions());
  const TensorRef* x = ctx->input(0);
  const TensorRef* w = ctx->input(1);
  ConvGeometry g;
  g.in = image_of(ctx, x);
  g.out = image_of(ctx, ctx->output(0));
  g.kh = static_cast<int>(w->shape.dims[1]);
  g.kw = static_cast<int>(w->shape.dims[2]);
  WindowAxis ah, aw;
  if (!sliding_window_axis(a.padding, false, g.in.h, g.kh, a.stride_h, a.dilation_h, a.pad_top, a.pad_bottom, &ah) ||
      !sliding_window_axis(a.padding, false, g.in.w, g.kw, a.stride_w, a.dilation_w, a.pad_left, a.pad_right, &aw))
    return Status::kUnsupported;
  g.sh = static_cast<int>(a.stride_h);
  g.sw = static_cast<int>(a.stride_w);
  g.dh = static_cast<int>(a.dilation_h);
  g.dw = static_cast<int>(a.dilation_w);
  g.pad_top = static_cast<int>(ah.pad_begin);
  g.pad_left = static_cast<int>(aw.pad_begin);
  g.group = static_cast<int>(a.group);
  g.activation = a.activation;
  return conv_prepare_with(ctx, g);
}

Status fully_connected_prepare(OpContext* ctx) {
  const ImageShape in = image_of(ctx, ctx->input(0)), out = image_of(ctx, ctx->output(0));
  const lite_fb::FullyConnectedOptions* o = ctx->op->options_as_FullyConnectedOptions();
  ClOpState* s = new_state(ctx, "fully_connected");
  if (s == nullptr) return Status::kInternal;
  const TensorRef* bias = ctx->num_inputs > 2 ? ctx->input(2) : nullptr;
  const float* w = static_cast<const float*>(ctx->input(1)->data);
  if (!make_buffer(ctx, s, 0, pack_dense_weights(w, out.c, 1, 1, in.c)) ||
      !make_buffer(ctx, s, 1, padded_bias(bias, out.c)))
    return Status::kInternal;
  const int positions = out.n * out.h * out.w;
  s->global[0] = static_cast<size_t>((out.c + 3) / 4);
  s->global[1] = static_cast<size_t>(positions);
  s->input_arg[0] = 0;
  s->output_arg = 3;
  const bool ok = set_arg(ctx, s, 1, s->buffers[0]) && set_arg(ctx, s, 2, s->buffers[1]) &&
                  set_arg(ctx, s, 4, int4_of(in)) && set_arg(ctx, s, 5, int4_of(out)) && set_arg(ctx, s, 6, positions) &&
                  set_activation_args(ctx, s, 7, o != nullptr ? o->activation() : nullptr);
  return ok ? Status::kOk : Status::kInternal;
}

// CONV_TRANSPOSE_2D, group 1: weight [C_in][kh][kw][C_out] repacked as conv2d's.
Status conv_transpose_prepare(OpContext* ctx) {
  const lite_fb::ConvTranspose2DOptions* o = ctx->op->options_as_ConvTranspose2DOptions();
  const ConvWindowAttrs a = read_conv_window_attrs(o);
  const TensorRef* w = ctx->input(1);
  const TensorRef* bias = ctx->num_inputs > 2 ? ctx->input(2) : nullptr;
  const ImageShape in = image_of(ctx, ctx->input(0)), out = image_of(ctx, ctx->output(0));
  const int ic = static_cast<int>(w->shape.dims[0]), kh = static_cast<int>(w->shape.dims[1]);
  const int kw = static_cast<int>(w->shape.dims[2]), oc = static_cast<int>(w->shape.dims[3]);
  WindowAxis ah, aw;
  if (!transposed_window_axis(a.padding, in.h, kh, a.stride_h, a.dilation_h, a.pad_top, a.pad_bottom,
                              o != nullptr ? o->output_padding_h() : 0, &ah) ||
      !transposed_window_axis(a.padding, in.w, kw, a.stride_w, a.dilation_w, a.pad_left, a.pad_right,
                              o != nullptr ? o->output_padding_w() : 0, &aw))
    return Status::kUnsupported;
  ClOpState* s = new_state(ctx, "conv2d_transpose");
  if (s == nullptr) return Status::kInternal;
  const float* src = static_cast<const float*>(w->data);
  std::vector<float> oc_major(static_cast<size_t>(w->shape.num_elements()));
  for (int i = 0; i < ic; ++i)
    for (int t = 0; t < kh * kw; ++t)
      for (int c = 0; c < oc; ++c)
        oc_major[(static_cast<size_t>(c) * kh * kw + t) * ic + i] = src[(static_cast<size_t>(i) * kh * kw + t) * oc + c];
  if (!make_buffer(ctx, s, 0, pack_dense_weights(oc_major.data(), oc, kh, kw, ic)) ||
      !make_buffer(ctx, s, 1, padded_bias(bias, oc)))
    return Status::kInternal;
  s->input_arg[0] = 0;
  s->output_arg = 3;
  const bool ok = set_arg(ctx, s, 1, s->buffers[0]) && set_arg(ctx, s, 2, s->buffers[1]) &&
                  set_arg(ctx, s, 4, int4_of(in)) && set_arg(ctx, s, 5, int4_of(out)) &&
                  set_arg(ctx, s, 6, ClInt4{{kh, kw, static_cast<int>(a.stride_h), static_cast<int>(a.stride_w)}}) &&
                  set_arg(ctx, s, 7,
                          ClInt4{{static_cast<int>(ah.pad_begin), static_cast<int>(aw.pad_begin),
                                  static_cast<int>(a.dilation_h), static_cast<int>(a.dilation_w)}}) &&
                  set_activation_args(ctx, s, 8, a.activation);
  return ok ? Status::kOk : Status::kInternal;
}

// RESIZE taps along one axis: source pair and the weight of the second. Nearest asks the CPU
// kernel itself (an index image through lite_resize_nearest_nhwc_ref), so both backends pick the
// same pixel whatever the rounding rule; linear clamps the source coordinate as the CPU kernel does.
void resize_taps(const lite_resize_params& p, bool rows, std::vector<ClInt2>* taps, std::vector<float>* weights) {
  const size_t in_len = rows ? p.in_h : p.in_w, out_len = rows ? p.out_h : p.out_w;
  const double scale = rows ? p.scale_h : p.scale_w;
  taps->resize(out_len);
  weights->assign(out_len, 0.0f);
  if (p.mode == LITE_RESIZE_NEAREST) {
    lite_resize_params axis = p;
    axis.batch = axis.channels = 1;
    axis.in_h = rows ? in_len : 1;
    axis.out_h = rows ? out_len : 1;
    axis.in_w = rows ? 1 : in_len;
    axis.out_w = rows ? 1 : out_len;
    (rows ? axis.scale_w : axis.scale_h) = 1.0;
    std::vector<int32_t> index(in_len), picked(out_len);
    for (size_t i = 0; i < in_len; ++i) index[i] = static_cast<int32_t>(i);
    lite_resize_nearest_nhwc_ref(&axis, sizeof(int32_t), index.data(), picked.data());
    for (size_t i = 0; i < out_len; ++i) (*taps)[i] = ClInt2{{picked[i], picked[i]}};
    return;
  }
  for (size_t i = 0; i < out_len; ++i) {
    double x = lite_resize_source_coordinate(p.coordinate_mode, i, scale, in_len, out_len);
    if (!(x >= 0.0)) x = 0.0;
    if (x > static_cast<double>(in_len - 1)) x = static_cast<double>(in_len - 1);
    const int32_t i0 = static_cast<int32_t>(x);
    (*taps)[i] = ClInt2{{i0, static_cast<size_t>(i0) + 1 < in_len ? i0 + 1 : i0}};
    (*weights)[i] = static_cast<float>(x - static_cast<double>(i0));
  }
}

Status resize_prepare(OpContext* ctx) {
  const lite_fb::ResizeOptions* o = ctx->op->options_as_ResizeOptions();
  const ImageShape in = image_of(ctx, ctx->input(0)), out = image_of(ctx, ctx->output(0));
  lite_resize_params p{};
  p.batch = static_cast<size_t>(in.n);
  p.channels = static_cast<size_t>(in.c);
  p.in_h = static_cast<size_t>(in.h);
  p.in_w = static_cast<size_t>(in.w);
  p.out_h = static_cast<size_t>(out.h);
  p.out_w = static_cast<size_t>(out.w);
  p.mode = o != nullptr ? static_cast<int>(o->mode()) : LITE_RESIZE_NEAREST;
  p.coordinate_mode = o != nullptr ? static_cast<int>(o->coordinate_mode()) : LITE_RESIZE_HALF_PIXEL;
  p.nearest_mode = o != nullptr ? static_cast<int>(o->nearest_mode()) : LITE_RESIZE_ROUND_PREFER_FLOOR;
  // The scales of the coordinate transform: given ones, else out / in (as the CPU op).
  const TensorRef* scales = ctx->num_inputs > 1 ? ctx->input(1) : nullptr;
  if (scales != nullptr && scales->shape.num_elements() == 2) {
    p.scale_h = static_cast<const float*>(scales->data)[0];
    p.scale_w = static_cast<const float*>(scales->data)[1];
  } else {
    p.scale_h = static_cast<double>(out.h) / in.h;
    p.scale_w = static_cast<double>(out.w) / in.w;
  }
  std::vector<ClInt2> row_taps, col_taps;
  std::vector<float> row_weights, col_weights;
  resize_taps(p, true, &row_taps, &row_weights);
  resize_taps(p, false, &col_taps, &col_weights);
  ClOpState* s = new_state(ctx, "resize");
  if (s == nullptr) return Status::kInternal;
  if (!make_buffer(ctx, s, 0, row_taps) || !make_buffer(ctx, s, 1, row_weights) ||
      !make_buffer(ctx, s, 2, col_taps) || !make_buffer(ctx, s, 3, col_weights))
    return Status::kInternal;
  s->input_arg[0] = 0;
  s->output_arg = 1;
  bool ok = set_arg(ctx, s, 2, int4_of(in)) && set_arg(ctx, s, 3, int4_of(out));
  for (int i = 0; i < 4; ++i) ok = ok && set_arg(ctx, s, 4 + i, s->buffers[i]);
  return ok ? Status::kOk : Status::kInternal;
}

const OpKernel kConvKernel = {conv2d_prepare, eval, free_state};
const OpKernel kConvTransposeKernel = {conv_transpose_prepare, eval, free_state};
const OpKernel kResizeKernel = {resize_prepare, eval, free_state};
const OpKernel kFullyConnectedKernel = {fully_connected_prepare, eval, free_state};

// ---- elementwise ------------------------------------------------------------------------------

int binary_code(OpCode op) {
  switch (op) {
    case OpCode::ADD: return 0;
    case OpCode::SUB: return 1;
    case OpCode::MUL: return 2;
    case OpCode::DIV: return 3;
    case OpCode::MAXIMUM: return 4;
    case OpCode::MINIMUM: return 5;
    default: return -1;
  }
}

Status binary_prepare(OpContext* ctx) {
  ClOpState* s = new_state(ctx, "binary");
  if (s == nullptr) return Status::kInternal;
  const lite_fb::BinaryOptions* o = ctx->op->options_as_BinaryOptions();
  s->output_arg = 2;
  const bool ok = bind_input(ctx, s, 0, 0) && bind_input(ctx, s, 1, 1) &&
                  set_arg(ctx, s, 3, int4_of(image_of(ctx, ctx->input(0)))) &&
                  set_arg(ctx, s, 4, int4_of(image_of(ctx, ctx->input(1)))) &&
                  set_arg(ctx, s, 5, int4_of(image_of(ctx, ctx->output(0)))) &&
                  set_arg(ctx, s, 6, binary_code(ctx->op->opcode())) &&
                  set_activation_args(ctx, s, 7, o != nullptr ? o->activation() : nullptr);
  return ok ? Status::kOk : Status::kInternal;
}

// The unary ops that are activations: their ActivationKind and parameters.
bool unary_activation(const lite_fb::Operator* op, int* kind, float* alpha, float* beta) {
  const lite_fb::UnaryOptions* o = op->options_as_UnaryOptions();
  *alpha = o != nullptr ? o->alpha() : 0.0f;
  *beta = o != nullptr ? o->beta() : 0.0f;
  using K = lite_fb::ActivationKind;
  K k;
  switch (op->opcode()) {
    case OpCode::RELU: k = K::RELU; break;
    case OpCode::RELU6:
      k = K::CLIP;
      *alpha = 0.0f;
      *beta = 6.0f;
      break;
    case OpCode::CLIP: k = K::CLIP; break;
    case OpCode::SIGMOID: k = K::SIGMOID; break;
    case OpCode::TANH: k = K::TANH; break;
    case OpCode::HARD_SIGMOID: k = K::HARD_SIGMOID; break;
    case OpCode::HARD_SWISH: k = K::HARD_SWISH; break;
    case OpCode::LEAKY_RELU: k = K::LEAKY_RELU; break;
    case OpCode::SILU: k = K::SILU; break;
    default: return false;
  }
  *kind = static_cast<int>(k);
  return true;
}

Status activation_prepare(OpContext* ctx) {
  ClOpState* s = new_state(ctx, "activation");
  if (s == nullptr) return Status::kInternal;
  int kind;
  float alpha, beta;
  unary_activation(ctx->op, &kind, &alpha, &beta);
  s->input_arg[0] = 0;
  s->output_arg = 1;
  const bool ok = set_arg(ctx, s, 2, int4_of(image_of(ctx, ctx->output(0)))) && set_arg(ctx, s, 3, kind) &&
                  set_arg(ctx, s, 4, alpha) && set_arg(ctx, s, 5, beta);
  return ok ? Status::kOk : Status::kInternal;
}

const OpKernel kBinaryKernel = {binary_prepare, eval, free_state};
const OpKernel kActivationKernel = {activation_prepare, eval, free_state};

// ---- pooling, softmax -------------------------------------------------------------------------

Status pool2d_prepare(OpContext* ctx) {
  const lite_fb::Pool2DOptions* o = ctx->op->options_as_Pool2DOptions();
  if (o == nullptr) return Status::kUnsupported;
  const ImageShape in = image_of(ctx, ctx->input(0)), out = image_of(ctx, ctx->output(0));
  WindowAxis ah, aw;
  if (!sliding_window_axis(o->padding(), o->ceil_mode(), in.h, o->kernel_h(), o->stride_h(), o->dilation_h(),
                           o->pad_top(), o->pad_bottom(), &ah) ||
      !sliding_window_axis(o->padding(), o->ceil_mode(), in.w, o->kernel_w(), o->stride_w(), o->dilation_w(),
                           o->pad_left(), o->pad_right(), &aw))
    return Status::kUnsupported;
  ClOpState* s = new_state(ctx, "pool2d");
  if (s == nullptr) return Status::kInternal;
  s->input_arg[0] = 0;
  s->output_arg = 1;
  const int pt = static_cast<int>(ah.pad_begin), pl = static_cast<int>(aw.pad_begin);
  const int32_t padded_end[2] = {in.h + static_cast<int>(ah.pad_end), in.w + static_cast<int>(aw.pad_end)};
  const bool ok = set_arg(ctx, s, 2, int4_of(in)) && set_arg(ctx, s, 3, int4_of(out)) &&
                  set_arg(ctx, s, 4, ClInt4{{o->kernel_h(), o->kernel_w(), o->stride_h(), o->stride_w()}}) &&
                  set_arg(ctx, s, 5, ClInt4{{pt, pl, o->dilation_h(), o->dilation_w()}}) &&
                  set_arg(ctx, s, 6, padded_end) &&
                  set_arg(ctx, s, 7, ctx->op->opcode() == OpCode::MAX_POOL_2D ? 1 : 0) &&
                  set_arg(ctx, s, 8, o->count_include_pad() ? 1 : 0) &&
                  set_activation_args(ctx, s, 9, o->activation());
  return ok ? Status::kOk : Status::kInternal;
}

Status global_pool_prepare(OpContext* ctx) {
  ClOpState* s = new_state(ctx, "global_pool");
  if (s == nullptr) return Status::kInternal;
  const ImageShape in = image_of(ctx, ctx->input(0));
  // A work group per channel block (the kernel's reduction tree): L items, the largest power of two
  // <= 64 (its local array), the kernel's work-group limit and the positions to reduce. Fixed here,
  // not tuned, so the summation order never changes.
  size_t limit = 0;
  if (s->api->GetKernelWorkGroupInfo(s->kernel, s->backend->device(), CL_KERNEL_WORK_GROUP_SIZE, sizeof(limit), &limit,
                                     nullptr) != CL_SUCCESS)
    limit = 1;
  const size_t positions = static_cast<size_t>(in.h) * static_cast<size_t>(in.w);
  size_t items = 1;
  while (items * 2 <= 64 && items * 2 <= limit && items * 2 <= positions) items *= 2;
  s->local = LocalSize{items, 1};
  s->tuned = true;
  s->global[0] = items * static_cast<size_t>((in.c + 3) / 4);
  s->global[1] = static_cast<size_t>(in.n);
  s->input_arg[0] = 0;
  s->output_arg = 1;
  const bool ok = set_arg(ctx, s, 2, int4_of(in)) &&
                  set_arg(ctx, s, 3, ctx->op->opcode() == OpCode::GLOBAL_MAX_POOL ? 1 : 0);
  return ok ? Status::kOk : Status::kInternal;
}

// The softmax axis, normalized (the last axis when the options say none).
int softmax_axis_of(const OpContext& ctx) {
  const lite_fb::SoftmaxOptions* o = ctx.op->options_as_SoftmaxOptions();
  const int rank = ctx.input(0)->shape.rank;
  int axis = rank - 1;
  if (o != nullptr && !normalize_axis(o->axis(), rank, &axis)) return -1;
  return axis;
}

Status softmax_prepare(OpContext* ctx) {
  const Shape& x = ctx->input(0)->shape;
  const int axis = softmax_axis_of(*ctx);
  const ImageShape shape = image_of(ctx, ctx->input(0));
  const bool last = axis == x.rank - 1;
  ClOpState* s = new_state(ctx, last ? "softmax_channels" : "softmax_axis");
  if (s == nullptr) return Status::kInternal;
  s->input_arg[0] = 0;
  s->output_arg = 1;
  if (last) {
    s->global[0] = static_cast<size_t>(shape.w);
    s->global[1] = shape.height();
    return set_arg(ctx, s, 2, int4_of(shape)) ? Status::kOk : Status::kInternal;
  }
  // Positions (all dims but the last) along the axis lie `stride` apart.
  int64_t stride = 1;
  for (int d = axis + 1; d < x.rank - 1; ++d) stride *= x.dims[d];
  const int64_t lines = x.num_elements() / x.dims[x.rank - 1] / x.dims[axis];
  s->global[0] = static_cast<size_t>((shape.c + 3) / 4);
  s->global[1] = static_cast<size_t>(lines);
  const bool ok = set_arg(ctx, s, 2, int4_of(shape)) && set_arg(ctx, s, 3, static_cast<int32_t>(x.dims[axis])) &&
                  set_arg(ctx, s, 4, static_cast<int32_t>(stride)) && set_arg(ctx, s, 5, static_cast<int32_t>(lines));
  return ok ? Status::kOk : Status::kInternal;
}

// LAYER_NORM over dims [axis, rank): rows of whole positions (the last axis is always inside).
// scale and bias are expanded to the normalized dims here (numpy broadcasting).
std::vector<float> expanded_param(const TensorRef* param, const Shape& normalized, float absent) {
  const int64_t inner = normalized.num_elements();
  std::vector<float> out(static_cast<size_t>(inner), absent);
  if (param == nullptr) return out;
  const float* v = static_cast<const float*>(param->data);
  for (int64_t i = 0; i < inner; ++i) {
    int64_t rest = i, at = 0, param_stride = 1;
    for (int d = normalized.rank - 1, pd = param->shape.rank - 1; d >= 0; --d, --pd) {
      const int64_t coord = rest % normalized.dims[d];
      rest /= normalized.dims[d];
      if (pd < 0) continue;
      if (param->shape.dims[pd] != 1) at += coord * param_stride;
      param_stride *= param->shape.dims[pd];
    }
    out[static_cast<size_t>(i)] = v[at];
  }
  return out;
}

Status layer_norm_prepare(OpContext* ctx) {
  const lite_fb::LayerNormOptions* o = ctx->op->options_as_LayerNormOptions();
  const Shape& x = ctx->input(0)->shape;
  int axis = x.rank - 1;
  if (o != nullptr && !normalize_axis(o->axis(), x.rank, &axis)) return Status::kUnsupported;
  Shape normalized;
  normalized.rank = x.rank - axis;
  for (int d = axis; d < x.rank; ++d) normalized.dims[d - axis] = x.dims[d];
  const int64_t inner = normalized.num_elements();
  ClOpState* s = new_state(ctx, "layer_norm");
  if (s == nullptr) return Status::kInternal;
  const TensorRef* scale = ctx->num_inputs > 1 ? ctx->input(1) : nullptr;
  const TensorRef* bias = ctx->num_inputs > 2 ? ctx->input(2) : nullptr;
  if (!make_buffer(ctx, s, 0, expanded_param(scale, normalized, 1.0f)) ||
      !make_buffer(ctx, s, 1, expanded_param(bias, normalized, 0.0f)))
    return Status::kInternal;
  const int64_t rows = x.num_elements() / inner;
  s->global[0] = static_cast<size_t>(rows);
  s->global[1] = 1;
  s->input_arg[0] = 0;
  s->output_arg = 1;
  const bool ok = set_arg(ctx, s, 2, int4_of(image_of(ctx, ctx->input(0)))) &&
                  set_arg(ctx, s, 3, static_cast<int32_t>(inner / x.dims[x.rank - 1])) &&
                  set_arg(ctx, s, 4, static_cast<int32_t>(rows)) && set_arg(ctx, s, 5, s->buffers[0]) &&
                  set_arg(ctx, s, 6, s->buffers[1]) && set_arg(ctx, s, 7, o != nullptr ? o->epsilon() : 1e-5f);
  return ok ? Status::kOk : Status::kInternal;
}

const OpKernel kLayerNormKernel = {layer_norm_prepare, eval, free_state};

// MATMUL: a (.., M, K) x b (.., K, N), either may be a constant (then an image made here).
Status matmul_prepare(OpContext* ctx) {
  ClOpState* s = new_state(ctx, "matmul");
  if (s == nullptr) return Status::kInternal;
  const lite_fb::MatMulOptions* o = ctx->op->options_as_MatMulOptions();
  s->output_arg = 2;
  const bool ok = bind_input(ctx, s, 0, 0) && bind_input(ctx, s, 1, 1) &&
                  set_arg(ctx, s, 3, int4_of(image_of(ctx, ctx->input(0)))) &&
                  set_arg(ctx, s, 4, int4_of(image_of(ctx, ctx->input(1)))) &&
                  set_arg(ctx, s, 5, int4_of(image_of(ctx, ctx->output(0)))) &&
                  set_activation_args(ctx, s, 6, o != nullptr ? o->activation() : nullptr);
  return ok ? Status::kOk : Status::kInternal;
}

const OpKernel kMatMulKernel = {matmul_prepare, eval, free_state};

const OpKernel kPool2dKernel = {pool2d_prepare, eval, free_state};
const OpKernel kGlobalPoolKernel = {global_pool_prepare, eval, free_state};
const OpKernel kSoftmaxKernel = {softmax_prepare, eval, free_state};

// ---- data movement ----------------------------------------------------------------------------

int folded_axis(int axis, int rank) { return (axis < 0 ? axis + rank : axis) + (4 - rank); }

Status concat_prepare(OpContext* ctx) {
  const lite_fb::ConcatOptions* o = ctx->op->options_as_ConcatOptions();
  const TensorRef* out = ctx->output(0);
  const int axis = folded_axis(o != nullptr ? o->axis() : 0, out->shape.rank);
  ClOpState* s = new_state(ctx, "concat");
  if (s == nullptr) return Status::kInternal;
  ClInt8 ends{{0, 0, 0, 0, 0, 0, 0, 0}};
  int end = 0;
  bool ok = true;
  for (int i = 0; i < ctx->num_inputs; ++i) {
    const ImageShape in = image_of(ctx, ctx->input(i));
    end += axis == 0 ? in.n : axis == 1 ? in.h : axis == 2 ? in.w : in.c;
    ends.v[i] = end;
    ok = ok && bind_input(ctx, s, i, i);
  }
  for (int i = ctx->num_inputs; i < 8; ++i) ends.v[i] = 0x7fffffff;
  s->output_arg = kMaxImageArgs;
  ok = ok && set_arg(ctx, s, 7, int4_of(image_of(ctx, out))) && set_arg(ctx, s, 8, axis) && set_arg(ctx, s, 9, ends);
  return ok ? Status::kOk : Status::kInternal;
}

Status concat_eval(OpContext* ctx) {
  // The unused image arguments get input 0's image (never read).
  ClOpState* s = static_cast<ClOpState*>(ctx->state);
  for (int i = ctx->num_inputs; i < kMaxImageArgs; ++i) {
    cl_mem m = s->constants[0] != nullptr ? s->constants[0] : static_cast<cl_mem>(ctx->input(0)->data);
    if (!set_arg(ctx, s, i, m)) return Status::kInternal;
  }
  return eval(ctx);
}

// RESHAPE and its kin (dense order kept), TRANSPOSE and SLICE as one strided gather: output dims
// (up to 8, leading 1s) and for each the step in the input's dense order, plus a start offset.
Status relayout_prepare(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  const TensorRef* y = ctx->output(0);
  ClInt8 dims{{1, 1, 1, 1, 1, 1, 1, 1}}, steps{{0, 0, 0, 0, 0, 0, 0, 0}};
  int64_t offset = 0;
  int64_t in_strides[kMaxRank];
  contiguous_strides(x->shape, in_strides);
  const int r = y->shape.rank;
  if (ctx->op->opcode() == OpCode::TRANSPOSE) {
    const lite_fb::TransposeOptions* o = ctx->op->options_as_TransposeOptions();
    for (int d = 0; d < r; ++d) {
      const int p = o != nullptr && o->perm() != nullptr && o->perm()->size() == static_cast<unsigned>(r)
                        ? o->perm()->Get(static_cast<flatbuffers::uoffset_t>(d))
                        : r - 1 - d;
      dims.v[8 - r + d] = static_cast<int32_t>(y->shape.dims[d]);
      steps.v[8 - r + d] = static_cast<int32_t>(in_strides[p]);
    }
  } else if (ctx->op->opcode() == OpCode::SLICE) {
    SliceView view;
    if (slice_view(ctx, &view) != Status::kOk) return Status::kInvalidModel;
    for (int d = 0; d < r; ++d) {
      dims.v[8 - r + d] = static_cast<int32_t>(view.out.dims[d]);
      steps.v[8 - r + d] = static_cast<int32_t>(view.strides[d]);
    }
    offset = view.offset;
  } else {
    dims.v[7] = static_cast<int32_t>(y->shape.num_elements());
    steps.v[7] = 1;
  }
  ClOpState* s = new_state(ctx, "relayout");
  if (s == nullptr) return Status::kInternal;
  s->input_arg[0] = 0;
  s->output_arg = 1;
  const bool ok = set_arg(ctx, s, 2, int4_of(image_of(ctx, x))) && set_arg(ctx, s, 3, int4_of(image_of(ctx, y))) &&
                  set_arg(ctx, s, 4, dims) && set_arg(ctx, s, 5, steps) &&
                  set_arg(ctx, s, 6, static_cast<int32_t>(offset));
  return ok ? Status::kOk : Status::kInternal;
}

const OpKernel kConcatKernel = {concat_prepare, concat_eval, free_state};
const OpKernel kRelayoutKernel = {relayout_prepare, eval, free_state};

// ---- the capability query ---------------------------------------------------------------------

bool is_f32(const TensorRef* t) { return t != nullptr && t->dtype == lite_fb::DType::FLOAT32; }

// Every activation (not a value known at prepare) float32 and within the device's image limits.
bool tensors_fit(OpenClBackend* b, const OpContext& ctx, int num_data_inputs) {
  for (int i = 0; i < num_data_inputs; ++i) {
    const TensorRef* t = ctx.input(i);
    if (!is_f32(t) || !b->fits_image(t->shape) || t->shape.num_elements() == 0) return false;
  }
  for (int o = 0; o < ctx.num_outputs; ++o) {
    const TensorRef* t = ctx.output(o);
    if (!is_f32(t) || !b->fits_image(t->shape) || t->shape.num_elements() == 0) return false;
  }
  return true;
}

bool known_f32(const TensorRef* t) { return is_f32(t) && t->value_known; }

// Whether broadcasting `in` to `out` survives folding the dims before the last three into N: those
// dims of `in` (right-aligned) all equal `out`'s, or all are 1.
bool broadcast_folds(const Shape& in, const Shape& out) {
  bool all_equal = true, all_one = true;
  for (int d = 0; d < out.rank - 3; ++d) {
    const int id = d - (out.rank - in.rank);
    const int64_t v = id >= 0 ? in.dims[id] : 1;
    all_equal = all_equal && v == out.dims[d];
    all_one = all_one && v == 1;
  }
  return all_equal || all_one;
}

// Whether any float tensor of the op would be laid out "tall" (ImageShape) on this device.
bool any_tall(OpenClBackend* b, const OpContext& ctx) {
  ImageShape s;
  for (int i = 0; i < ctx.num_inputs; ++i)
    if (is_f32(ctx.input(i)) && b->image_shape(ctx.input(i)->shape, &s) && s.tall) return true;
  return is_f32(ctx.output(0)) && b->image_shape(ctx.output(0)->shape, &s) && s.tall;
}

// The ops whose kernels address positions only, so they run on tall images too.
bool takes_tall(const OpContext& ctx) {
  switch (ctx.op->opcode()) {
    case OpCode::FULLY_CONNECTED:
    case OpCode::SOFTMAX:
    case OpCode::LAYER_NORM:
    case OpCode::RESHAPE:
    case OpCode::FLATTEN:
    case OpCode::SQUEEZE:
    case OpCode::UNSQUEEZE:
    case OpCode::TRANSPOSE:
    case OpCode::SLICE:
      return true;
    default:
      break;
  }
  if (binary_code(ctx.op->opcode()) >= 0)  // without broadcasting only
    return ctx.num_inputs == 2 && ctx.input(1) != nullptr &&
           ctx.input(0)->shape.num_elements() == ctx.output(0)->shape.num_elements() &&
           ctx.input(1)->shape.num_elements() == ctx.output(0)->shape.num_elements();
  int kind;
  float alpha, beta;
  return unary_activation(ctx.op, &kind, &alpha, &beta);
}

}  // namespace

const OpKernel* opencl_kernel_for(OpenClBackend* b, const OpContext& ctx) {
  if (ctx.num_outputs != 1 || ctx.num_inputs < 1 || ctx.input(0) == nullptr) return nullptr;
  const TensorRef* x = ctx.input(0);
  if (any_tall(b, ctx) && !takes_tall(ctx)) return nullptr;
  switch (ctx.op->opcode()) {
    case OpCode::CONV_2D: {
      const lite_fb::Conv2DOptions* o = ctx.op->options_as_Conv2DOptions();
      if (x->value_known || !known_f32(ctx.input(1)) || ctx.input(1)->shape.rank != 4) return nullptr;
      if (ctx.num_inputs > 2 && ctx.input(2) != nullptr && !known_f32(ctx.input(2))) return nullptr;
      if (ctx.num_inputs > 3 && ctx.input(3) != nullptr) return nullptr;  // PRELU slopes
      if (x->shape.rank != 4 || (o != nullptr && !activation_ok(o->activation()))) return nullptr;
      return tensors_fit(b, ctx, 1) ? &kConvKernel : nullptr;
    }
    case OpCode::FULLY_CONNECTED: {
      const lite_fb::FullyConnectedOptions* o = ctx.op->options_as_FullyConnectedOptions();
      if (x->value_known || !known_f32(ctx.input(1)) || ctx.input(1)->shape.rank != 2) return nullptr;
      if (ctx.num_inputs > 2 && ctx.input(2) != nullptr && !known_f32(ctx.input(2))) return nullptr;
      if (o != nullptr && !activation_ok(o->activation())) return nullptr;
      return tensors_fit(b, ctx, 1) ? &kFullyConnectedKernel : nullptr;
    }
    case OpCode::ADD:
    case OpCode::SUB:
    case OpCode::MUL:
    case OpCode::DIV:
    case OpCode::MAXIMUM:
    case OpCode::MINIMUM: {
      const lite_fb::BinaryOptions* o = ctx.op->options_as_BinaryOptions();
      if (ctx.num_inputs != 2 || ctx.input(1) == nullptr) return nullptr;
      if (o != nullptr && !activation_ok(o->activation())) return nullptr;
      for (int i = 0; i < 2; ++i) {
        const TensorRef* t = ctx.input(i);
        if (!is_f32(t) || !b->fits_image(t->shape) || !broadcast_folds(t->shape, ctx.output(0)->shape)) return nullptr;
      }
      return tensors_fit(b, ctx, 0) ? &kBinaryKernel : nullptr;
    }
    case OpCode::MAX_POOL_2D:
    case OpCode::AVERAGE_POOL_2D:
    case OpCode::GLOBAL_AVERAGE_POOL:
    case OpCode::GLOBAL_MAX_POOL: {
      if (x->value_known || x->shape.rank != 4 || ctx.num_inputs != 1) return nullptr;
      if (!tensors_fit(b, ctx, 1)) return nullptr;
      const bool global = ctx.op->opcode() == OpCode::GLOBAL_AVERAGE_POOL || ctx.op->opcode() == OpCode::GLOBAL_MAX_POOL;
      if (global) return &kGlobalPoolKernel;
      const lite_fb::Pool2DOptions* o = ctx.op->options_as_Pool2DOptions();
      return o != nullptr && activation_ok(o->activation()) ? &kPool2dKernel : nullptr;
    }
    case OpCode::SOFTMAX: {
      if (x->value_known || ctx.num_inputs != 1 || x->shape.rank < 1 || softmax_axis_of(ctx) < 0) return nullptr;
      return tensors_fit(b, ctx, 1) ? &kSoftmaxKernel : nullptr;
    }
    case OpCode::LAYER_NORM: {
      if (x->value_known || ctx.num_outputs != 1 || x->shape.rank < 1) return nullptr;
      for (int i = 1; i < ctx.num_inputs && i < 3; ++i)
        if (ctx.input(i) != nullptr && (!known_f32(ctx.input(i)) || ctx.input(i)->shape.rank > x->shape.rank))
          return nullptr;
      return ctx.num_inputs <= 3 && tensors_fit(b, ctx, 1) ? &kLayerNormKernel : nullptr;
    }
    case OpCode::MATMUL: {
      const lite_fb::MatMulOptions* o = ctx.op->options_as_MatMulOptions();
      if (ctx.num_inputs != 2 || ctx.input(1) == nullptr || (o != nullptr && !activation_ok(o->activation())))
        return nullptr;
      const TensorRef* y = ctx.input(1);
      const TensorRef* out = ctx.output(0);
      if (x->shape.rank < 2 || y->shape.rank < 2 || out->shape.rank > 4 || (x->value_known && y->value_known))
        return nullptr;
      for (int i = 0; i < 2; ++i)
        if (!is_f32(ctx.input(i)) || !b->fits_image(ctx.input(i)->shape)) return nullptr;
      ImageShape a, bs, os;
      b->image_shape(x->shape, &a);
      b->image_shape(y->shape, &bs);
      b->image_shape(out->shape, &os);
      const bool batch_ok = (a.n == 1 || a.n == os.n) && (a.h == 1 || a.h == os.h) && (bs.n == 1 || bs.n == os.n) &&
                            (bs.h == 1 || bs.h == os.h);
      return batch_ok && bs.w == a.c && tensors_fit(b, ctx, 0) ? &kMatMulKernel : nullptr;
    }
    case OpCode::CONV_TRANSPOSE_2D: {
      const lite_fb::ConvTranspose2DOptions* o = ctx.op->options_as_ConvTranspose2DOptions();
      if (o == nullptr || o->group() != 1 || !activation_ok(o->activation())) return nullptr;
      if (x->value_known || x->shape.rank != 4 || !known_f32(ctx.input(1)) || ctx.input(1)->shape.rank != 4)
        return nullptr;
      if (ctx.num_inputs > 2 && ctx.input(2) != nullptr && !known_f32(ctx.input(2))) return nullptr;
      return ctx.num_inputs <= 3 && tensors_fit(b, ctx, 1) ? &kConvTransposeKernel : nullptr;
    }
    case OpCode::RESIZE: {
      const lite_fb::ResizeOptions* o = ctx.op->options_as_ResizeOptions();
      const int mode = o != nullptr ? static_cast<int>(o->mode()) : LITE_RESIZE_NEAREST;
      if (x->value_known || x->shape.rank != 4 || mode == LITE_RESIZE_CUBIC) return nullptr;
      const TensorRef* scales = ctx.num_inputs > 1 ? ctx.input(1) : nullptr;
      if (scales != nullptr && scales->shape.num_elements() > 0 &&
          (!known_f32(scales) || scales->shape.num_elements() != 2))
        return nullptr;
      return tensors_fit(b, ctx, 1) ? &kResizeKernel : nullptr;
    }
    case OpCode::CONCAT: {
      if (ctx.num_inputs > kMaxImageArgs || ctx.output(0)->shape.rank > 4) return nullptr;
      bool any_activation = false;
      for (int i = 0; i < ctx.num_inputs; ++i) {
        const TensorRef* t = ctx.input(i);
        if (!is_f32(t) || !b->fits_image(t->shape) || t->shape.rank != ctx.output(0)->shape.rank) return nullptr;
        any_activation = any_activation || !t->value_known;
      }
      return any_activation && tensors_fit(b, ctx, 0) ? &kConcatKernel : nullptr;
    }
    case OpCode::RESHAPE:
    case OpCode::FLATTEN:
    case OpCode::SQUEEZE:
    case OpCode::UNSQUEEZE:
    case OpCode::TRANSPOSE:
    case OpCode::SLICE:
      // int32 element indices in the kernel; SLICE's starts / ends / axes / steps known at prepare.
      if (x->value_known || x->shape.num_elements() > INT32_MAX) return nullptr;
      for (int i = 1; i < ctx.num_inputs; ++i)
        if (ctx.op->opcode() == OpCode::SLICE && ctx.input(i) != nullptr && !ctx.input(i)->value_known) return nullptr;
      return tensors_fit(b, ctx, 1) ? &kRelayoutKernel : nullptr;
    default: {
      int kind;
      float alpha, beta;
      if (!unary_activation(ctx.op, &kind, &alpha, &beta) || x->value_known || ctx.num_inputs != 1) return nullptr;
      return tensors_fit(b, ctx, 1) ? &kActivationKernel : nullptr;
    }
  }
}

}  // namespace lite
