#include "opencl/opencl_ops.h"

#include <cstring>
#include <string>
#include <vector>

#include "opencl/opencl_backend.h"
#include "ops/window_geometry.h"

namespace lite {

using namespace cl;  // NOLINT: the OpenCL API reads best with its own names
using lite_fb::OpCode;

namespace {

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
  cl_mem buffers[2] = {nullptr, nullptr};
  cl_mem constants[kMaxImageArgs] = {};
  // Argument index of input i's image (-1: none or set at prepare), and of the output image.
  int input_arg[kMaxImageArgs] = {-1, -1, -1, -1, -1, -1};
  int output_arg = -1;
  size_t global[2] = {1, 1};
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
ImageShape image_of(const TensorRef* t) {
  ImageShape s;
  image_shape_of(t->shape, &s);
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
  ctx->state = s;
  const ImageShape out = image_of(ctx->output(0));
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
  const cl_int err = s->backend->enqueue(s->kernel, s->global[0], s->global[1]);
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

bool make_buffer(OpContext* ctx, ClOpState* s, int slot, const std::vector<float>& data) {
  std::string error;
  s->buffers[slot] = s->backend->create_buffer(data.data(), data.size() * sizeof(float), &error);
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
  g.in = image_of(x);
  g.out = image_of(ctx->output(0));
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
  ConvGeometry g;
  g.in = image_of(ctx->input(0));
  g.out = image_of(ctx->output(0));
  const lite_fb::FullyConnectedOptions* o = ctx->op->options_as_FullyConnectedOptions();
  g.activation = o != nullptr ? o->activation() : nullptr;
  return conv_prepare_with(ctx, g);
}

const OpKernel kConvKernel = {conv2d_prepare, eval, free_state};
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
                  set_arg(ctx, s, 3, int4_of(image_of(ctx->input(0)))) &&
                  set_arg(ctx, s, 4, int4_of(image_of(ctx->input(1)))) &&
                  set_arg(ctx, s, 5, int4_of(image_of(ctx->output(0)))) &&
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
  const bool ok = set_arg(ctx, s, 2, int4_of(image_of(ctx->output(0)))) && set_arg(ctx, s, 3, kind) &&
                  set_arg(ctx, s, 4, alpha) && set_arg(ctx, s, 5, beta);
  return ok ? Status::kOk : Status::kInternal;
}

const OpKernel kBinaryKernel = {binary_prepare, eval, free_state};
const OpKernel kActivationKernel = {activation_prepare, eval, free_state};

// ---- pooling, softmax -------------------------------------------------------------------------

Status pool2d_prepare(OpContext* ctx) {
  const lite_fb::Pool2DOptions* o = ctx->op->options_as_Pool2DOptions();
  if (o == nullptr) return Status::kUnsupported;
  const ImageShape in = image_of(ctx->input(0)), out = image_of(ctx->output(0));
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
  const ImageShape in = image_of(ctx->input(0));
  s->global[0] = static_cast<size_t>((in.c + 3) / 4);
  s->global[1] = static_cast<size_t>(in.n);
  s->input_arg[0] = 0;
  s->output_arg = 1;
  const bool ok = set_arg(ctx, s, 2, int4_of(in)) &&
                  set_arg(ctx, s, 3, ctx->op->opcode() == OpCode::GLOBAL_MAX_POOL ? 1 : 0);
  return ok ? Status::kOk : Status::kInternal;
}

Status softmax_prepare(OpContext* ctx) {
  ClOpState* s = new_state(ctx, "softmax_channels");
  if (s == nullptr) return Status::kInternal;
  const ImageShape shape = image_of(ctx->input(0));
  s->global[0] = static_cast<size_t>(shape.w);
  s->global[1] = shape.height();
  s->input_arg[0] = 0;
  s->output_arg = 1;
  return set_arg(ctx, s, 2, int4_of(shape)) ? Status::kOk : Status::kInternal;
}

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
    const ImageShape in = image_of(ctx->input(i));
    end += axis == 0 ? in.n : axis == 1 ? in.h : axis == 2 ? in.w : in.c;
    ends.v[i] = end;
    ok = ok && bind_input(ctx, s, i, i);
  }
  for (int i = ctx->num_inputs; i < 8; ++i) ends.v[i] = 0x7fffffff;
  s->output_arg = kMaxImageArgs;
  ok = ok && set_arg(ctx, s, 7, int4_of(image_of(out))) && set_arg(ctx, s, 8, axis) && set_arg(ctx, s, 9, ends);
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

// RESHAPE and its kin (dense order kept) and TRANSPOSE: strides giving each output coordinate's
// position in the input's dense order.
Status relayout_prepare(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  const TensorRef* y = ctx->output(0);
  ClInt4 st{{0, 0, 0, 0}};
  if (ctx->op->opcode() == OpCode::TRANSPOSE) {
    const lite_fb::TransposeOptions* o = ctx->op->options_as_TransposeOptions();
    const int r = x->shape.rank;
    int64_t in_strides[kMaxRank];
    int64_t acc = 1;
    for (int d = r - 1; d >= 0; --d) {
      in_strides[d] = acc;
      acc *= x->shape.dims[d];
    }
    for (int d = 0; d < r; ++d) {
      const int p = o != nullptr && o->perm() != nullptr && o->perm()->size() == static_cast<unsigned>(r)
                        ? o->perm()->Get(static_cast<flatbuffers::uoffset_t>(d))
                        : r - 1 - d;
      st.v[d + 4 - r] = static_cast<int32_t>(in_strides[p]);
    }
  } else {
    const ImageShape o = image_of(y);
    st = ClInt4{{o.h * o.w * o.c, o.w * o.c, o.c, 1}};
  }
  ClOpState* s = new_state(ctx, "relayout");
  if (s == nullptr) return Status::kInternal;
  s->output_arg = 1;
  const bool ok = bind_input(ctx, s, 0, 0) && set_arg(ctx, s, 2, int4_of(image_of(x))) &&
                  set_arg(ctx, s, 3, int4_of(image_of(y))) && set_arg(ctx, s, 4, st);
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

}  // namespace

const OpKernel* opencl_kernel_for(OpenClBackend* b, const OpContext& ctx) {
  if (ctx.num_outputs != 1 || ctx.num_inputs < 1 || ctx.input(0) == nullptr) return nullptr;
  const TensorRef* x = ctx.input(0);
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
        if (!is_f32(t) || !b->fits_image(t->shape)) return nullptr;
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
      const lite_fb::SoftmaxOptions* o = ctx.op->options_as_SoftmaxOptions();
      const int axis = o != nullptr ? o->axis() : -1;
      if (x->value_known || ctx.num_inputs != 1 || (axis != -1 && axis != x->shape.rank - 1)) return nullptr;
      return tensors_fit(b, ctx, 1) ? &kSoftmaxKernel : nullptr;
    }
    case OpCode::CONCAT: {
      if (ctx.num_inputs > kMaxImageArgs) return nullptr;
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
      if (x->value_known || ctx.output(0)->shape.rank > 4) return nullptr;
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
