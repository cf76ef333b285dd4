// LSTM, GRU, RNN (ONNX semantics, kernels_neon/include/lite_kernels/f32_recurrent.h).
// With constant weights and biases the op packs, per direction, Wᵀ (with the biases that do not
// depend on the reset gate) and Rᵀ at prepare; eval then computes x · Wᵀ for the whole sequence as
// one threaded GEMM, and per step h · Rᵀ as one small GEMM over the batch followed by the fused
// cell update. Computed weights run the reference kernel (the oracle). Either way the result does
// not depend on the thread count (the GEMM's tile split never changes a sum).
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_recurrent.h"
#include "op_helpers.h"
#include "packed_gemm.h"

namespace lite {
namespace {

enum Input { kX = 0, kW, kR, kB, kSeqLens, kInitialH, kInitialC, kPeep };

int cell_of(lite_fb::OpCode opcode) {
  return opcode == lite_fb::OpCode::LSTM ? LITE_RNN_LSTM : (opcode == lite_fb::OpCode::GRU ? LITE_RNN_GRU : LITE_RNN_SIMPLE);
}

// Packed weights of one direction: x-projection (n = G*hidden) and recurrence. GRU without
// linear_before_reset packs the recurrence in two parts (gates z, r; then h, applied to r ⊙ h).
struct DirectionGemms {
  PackedGemm* w = nullptr;
  PackedGemm* r = nullptr;
  PackedGemm* r_h = nullptr;
};

struct State {
  DirectionGemms dirs[2];  // forward, then reverse (bidirectional)
  lite_f32_vactivation_fn vsigmoid = nullptr;
};

void free_state(void* p) {
  State* s = static_cast<State*>(p);
  if (s == nullptr) return;
  for (DirectionGemms& d : s->dirs) {
    packed_gemm_free(d.w);
    packed_gemm_free(d.r);
    packed_gemm_free(d.r_h);
  }
  delete s;
}

struct Config {
  lite_rnn_params params{};
  std::vector<lite_rnn_activation> activations;
};

const char* kInputNames[] = {"x", "w", "r", "b", "sequence_lens", "initial_h", "initial_c", "p"};

Status check_float(OpContext* ctx, int index, const Shape& want) {
  const TensorRef* t = ctx->input(index);
  if (t == nullptr) return Status::kOk;
  bool same = t->shape.rank == want.rank;
  for (int i = 0; same && i < want.rank; ++i) same = t->shape.dims[i] == want.dims[i];
  if (t->dtype != lite_fb::DType::FLOAT32 || !same)
    return fail(ctx, Status::kShapeError, "%s must be FLOAT32 %s, not %s %s", kInputNames[index],
                ShapeText(want).c_str(), dtype_name(t->dtype), ShapeText(t->shape).c_str());
  return Status::kOk;
}

// A shape of rank 2, 3 or 4 (a plain argument list: armv7 GCC notes an ABI change for initializer_list).
Shape shape_of(int64_t d0, int64_t d1, int64_t d2 = -1, int64_t d3 = -1) {
  Shape s;
  const int64_t dims[] = {d0, d1, d2, d3};
  for (int64_t d : dims)
    if (d >= 0) s.dims[s.rank++] = d;
  return s;
}

// Reads and checks the options and input shapes into `c`.
Status configure(OpContext* ctx, Config* c) {
  const int cell = cell_of(ctx->op->opcode());
  const int max_inputs = cell == LITE_RNN_LSTM ? 8 : 6;
  Status s = check_arity(ctx, 3, 1);
  if (s != Status::kOk) return s;
  if (ctx->num_inputs > max_inputs)
    return fail(ctx, Status::kInvalidModel, "takes at most %d inputs, has %d", max_inputs, ctx->num_inputs);
  if (ctx->num_outputs > (cell == LITE_RNN_LSTM ? 3 : 2))
    return fail(ctx, Status::kInvalidModel, "has %d outputs", ctx->num_outputs);
  const lite_fb::RecurrentOptions* o = ctx->op->options_as_RecurrentOptions();
  if (o == nullptr) return fail(ctx, Status::kInvalidModel, "needs RecurrentOptions (hidden_size)");
  lite_rnn_params& p = c->params;
  p.cell = cell;
  p.direction = o->direction();
  p.layout = o->batch_major() ? 1 : 0;
  p.clip = o->clip();
  p.input_forget = o->input_forget() ? 1 : 0;
  p.linear_before_reset = o->linear_before_reset() ? 1 : 0;
  if (p.direction < 0 || p.direction > 2) return fail(ctx, Status::kInvalidModel, "direction %d is not 0, 1 or 2", p.direction);
  if (!(p.clip >= 0.0f)) return fail(ctx, Status::kInvalidModel, "clip %g must be >= 0", static_cast<double>(p.clip));
  const int64_t hidden = o->hidden_size();
  if (hidden <= 0 || hidden > (int64_t{1} << 24)) return fail(ctx, Status::kInvalidModel, "hidden_size %lld", static_cast<long long>(hidden));
  const size_t dirs = p.direction == 2 ? 2 : 1, functions = lite_rnn_functions(cell), gates = lite_rnn_gates(cell);
  // Gate functions: dirs * functions entries, each with an alpha and beta.
  const auto* kinds = o->activations();
  const auto* alphas = o->activation_alpha();
  const auto* betas = o->activation_beta();
  const size_t want = dirs * functions;
  if (kinds == nullptr || kinds->size() != want || (alphas != nullptr && alphas->size() != want) ||
      (betas != nullptr && betas->size() != want))
    return fail(ctx, Status::kInvalidModel, "activations (and their alpha / beta) must have %zu entries", want);
  c->activations.resize(want);
  for (size_t i = 0; i < want; ++i) {
    const int kind = kinds->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (kind >= LITE_RNN_ACT_COUNT) return fail(ctx, Status::kInvalidModel, "activation code %d is unknown", kind);
    c->activations[i] = {kind, alphas ? alphas->Get(static_cast<flatbuffers::uoffset_t>(i)) : 0.0f,
                         betas ? betas->Get(static_cast<flatbuffers::uoffset_t>(i)) : 0.0f};
  }
  p.activations = c->activations.data();
  const TensorRef* x = ctx->input(kX);
  if (x->dtype != lite_fb::DType::FLOAT32 || x->shape.rank != 3)
    return fail(ctx, Status::kShapeError, "x must be FLOAT32 of rank 3, not %s %s", dtype_name(x->dtype),
                ShapeText(x->shape).c_str());
  p.seq = static_cast<size_t>(x->shape.dims[p.layout == 0 ? 0 : 1]);
  p.batch = static_cast<size_t>(x->shape.dims[p.layout == 0 ? 1 : 0]);
  p.input = static_cast<size_t>(x->shape.dims[2]);
  p.hidden = static_cast<size_t>(hidden);
  const int64_t d = static_cast<int64_t>(dirs), g = static_cast<int64_t>(gates), b = static_cast<int64_t>(p.batch);
  if ((s = check_float(ctx, kW, shape_of(d, g * hidden, static_cast<int64_t>(p.input)))) != Status::kOk) return s;
  if ((s = check_float(ctx, kR, shape_of(d, g * hidden, hidden))) != Status::kOk) return s;
  if ((s = check_float(ctx, kB, shape_of(d, 2 * g * hidden))) != Status::kOk) return s;
  const Shape state = p.layout == 0 ? shape_of(d, b, hidden) : shape_of(b, d, hidden);
  if ((s = check_float(ctx, kInitialH, state)) != Status::kOk) return s;
  if (cell == LITE_RNN_LSTM) {
    if ((s = check_float(ctx, kInitialC, state)) != Status::kOk) return s;
    if ((s = check_float(ctx, kPeep, shape_of(d, 3 * hidden))) != Status::kOk) return s;
  }
  const TensorRef* lens = ctx->input(kSeqLens);
  if (lens != nullptr && (lens->dtype != lite_fb::DType::INT32 || lens->shape.rank != 1 || lens->shape.dims[0] != b))
    return fail(ctx, Status::kShapeError, "sequence_lens must be INT32 [%lld], not %s %s", static_cast<long long>(b),
                dtype_name(lens->dtype), ShapeText(lens->shape).c_str());
  return Status::kOk;
}

bool constant(const TensorRef* t) { return t == nullptr || (t->value_known && t->data != nullptr); }

// Per direction: Wᵀ with the biases that do not wait for the reset gate, and Rᵀ (with GRU's Rbh when
// linear_before_reset: it is multiplied by r). Null, with the message in ctx's error sink, when the
// memory bound refuses it (every buffer sized from the model goes through op_allocate).
State* pack(OpContext* ctx, const lite_rnn_params& p, const float* w, const float* r, const float* bias) {
  const size_t hs = p.hidden, gates = lite_rnn_gates(p.cell), gs = gates * hs, dirs = lite_rnn_directions(&p);
  float* biases = static_cast<float*>(op_allocate(ctx, 2 * gs * sizeof(float), "the recurrent biases"));
  if (biases == nullptr) return nullptr;
  State* st = new (std::nothrow) State();
  if (st == nullptr) {
    std::free(biases);
    fail(ctx, Status::kOutOfMemory, "cannot allocate the recurrent state");
    return nullptr;
  }
  float* x_bias = biases;
  float* r_bias = biases + gs;
  bool ok = true;
  for (size_t d = 0; d < dirs && ok; ++d) {
    const float* wd = w + d * gs * p.input;
    const float* rd = r + d * gs * hs;
    const float* bd = bias ? bias + d * 2 * gs : nullptr;
    for (size_t i = 0; i < gs; ++i) {
      const bool h_gate_of_lbr_gru = p.cell == LITE_RNN_GRU && p.linear_before_reset && i >= 2 * hs;
      x_bias[i] = bd ? bd[i] + (h_gate_of_lbr_gru ? 0.0f : bd[gs + i]) : 0.0f;
      r_bias[i] = bd && h_gate_of_lbr_gru ? bd[gs + i] : 0.0f;
    }
    DirectionGemms g;
    g.w = packed_gemm_create(ctx, gs, p.input, wd, 1, p.input, x_bias);
    if (p.cell == LITE_RNN_GRU && !p.linear_before_reset) {
      g.r = g.w ? packed_gemm_create(ctx, 2 * hs, hs, rd, 1, hs, nullptr) : nullptr;
      g.r_h = g.r ? packed_gemm_create(ctx, hs, hs, rd + 2 * hs * hs, 1, hs, nullptr) : nullptr;
      ok = g.r_h != nullptr;
    } else {
      g.r = g.w ? packed_gemm_create(ctx, gs, hs, rd, 1, hs, r_bias) : nullptr;
    }
    ok = ok && g.w != nullptr && g.r != nullptr;
    st->dirs[d] = g;
  }
  std::free(biases);
  if (!ok) {
    free_state(st);
    return nullptr;
  }
  st->vsigmoid = lite_f32_vactivation_select(lite_cpu_features());
  return st;
}

// Scratch floats of the fast path: x · Wᵀ of one direction, h · Rᵀ, and the h, c, r ⊙ h states.
size_t fast_scratch_floats(const lite_rnn_params& p) {
  const size_t gs = lite_rnn_gates(p.cell) * p.hidden;
  return p.seq * p.batch * gs + p.batch * gs + 3 * p.batch * p.hidden;
}

Status prepare(OpContext* ctx) {
  Config c;
  Status s = configure(ctx, &c);
  if (s != Status::kOk) return s;
  const lite_rnn_params& p = c.params;
  const int64_t dirs = static_cast<int64_t>(lite_rnn_directions(&p)), seq = static_cast<int64_t>(p.seq),
                batch = static_cast<int64_t>(p.batch), hidden = static_cast<int64_t>(p.hidden);
  const Shape y = p.layout == 0 ? shape_of(seq, dirs, batch, hidden) : shape_of(batch, seq, dirs, hidden);
  const Shape state = p.layout == 0 ? shape_of(dirs, batch, hidden) : shape_of(batch, dirs, hidden);
  for (int i = 0; i < ctx->num_outputs; ++i) {
    TensorRef* out = ctx->output(i);
    if (out == nullptr) continue;
    out->dtype = lite_fb::DType::FLOAT32;
    out->shape = i == 0 ? y : state;
  }
  if (constant(ctx->input(kW)) && constant(ctx->input(kR)) && constant(ctx->input(kB))) {
    const TensorRef* b = ctx->input(kB);
    State* st = pack(ctx, p, static_cast<const float*>(ctx->input(kW)->data), static_cast<const float*>(ctx->input(kR)->data),
                     b ? static_cast<const float*>(b->data) : nullptr);
    if (st == nullptr) return Status::kOutOfMemory;  // op_allocate wrote the message
    ctx->state = st;
    ctx->scratch_bytes_requested = fast_scratch_floats(p) * sizeof(float);
  } else {
    ctx->scratch_bytes_requested = lite_f32_rnn_ref_scratch_floats(&p) * sizeof(float);
  }
  return Status::kOk;
}

// One direction of the fast path.
void run_direction(OpContext* ctx, const lite_rnn_params& p, const State& st, size_t d, const float* x,
                   const int32_t* lens, const float* initial_h, const float* initial_c, const float* peep, float* y,
                   float* y_h, float* y_c) {
  const size_t hs = p.hidden, gs = lite_rnn_gates(p.cell) * hs, batch = p.batch;
  const bool reverse = p.direction == 1 || d == 1;
  const lite_rnn_activation* fn = p.activations + d * lite_rnn_functions(p.cell);
  const DirectionGemms& g = st.dirs[d];
  float* xw = static_cast<float*>(ctx->scratch);  // [rows of x in storage order, gs]
  float* hr = xw + p.seq * batch * gs;             // [batch, gs]
  float* h = hr + batch * gs;                      // [batch, hs]
  float* c = h + batch * hs;
  float* rh = c + batch * hs;
  packed_gemm_run(*g.w, ctx->pool, p.seq * batch, x, p.input, nullptr, xw, gs);
  for (size_t b = 0; b < batch; ++b) {
    const size_t row = lite_rnn_state_row(&p, d, b);
    for (size_t j = 0; j < hs; ++j) {
      h[b * hs + j] = initial_h ? initial_h[row + j] : 0.0f;
      c[b * hs + j] = initial_c ? initial_c[row + j] : 0.0f;
    }
  }
  std::memset(rh, 0, batch * hs * sizeof(float));
  size_t longest = 0;
  for (size_t b = 0; b < batch; ++b) {
    const size_t len = lite_rnn_length(&p, lens, b);
    if (len > longest) longest = len;
  }
  const size_t hr_stride = g.r->n;
  for (size_t s = 0; s < longest; ++s) {
    packed_gemm_run(*g.r, ctx->pool, batch, h, hs, nullptr, hr, hr_stride);
    for (size_t b = 0; b < batch; ++b) {
      const size_t len = lite_rnn_length(&p, lens, b);
      if (s >= len) continue;
      const size_t t = reverse ? len - 1 - s : s;
      const float* xt = xw + lite_rnn_x_index(&p, t, b) * gs;
      float* gb = hr + b * hr_stride;
      float* hb = h + b * hs;
      if (p.cell == LITE_RNN_GRU) {
        for (size_t j = 0; j < 2 * hs; ++j) gb[j] += xt[j];
        lite_f32_rnn_activate_n(st.vsigmoid, &fn[0], p.clip, gb, 2 * hs);
        if (p.linear_before_reset) {
          for (size_t j = 0; j < hs; ++j) gb[2 * hs + j] = xt[2 * hs + j] + gb[hs + j] * gb[2 * hs + j];
          lite_f32_gru_update(st.vsigmoid, &p, &fn[1], gb, gb + 2 * hs, hb);
        } else {
          for (size_t j = 0; j < hs; ++j) rh[b * hs + j] = gb[hs + j] * hb[j];
        }
        continue;
      }
      for (size_t j = 0; j < gs; ++j) gb[j] += xt[j];
      if (p.cell == LITE_RNN_LSTM) {
        lite_f32_lstm_cell(st.vsigmoid, &p, fn, peep ? peep + d * 3 * hs : nullptr, gb, c + b * hs, hb);
      } else {
        lite_f32_rnn_activate_n(st.vsigmoid, &fn[0], p.clip, gb, hs);
        std::memcpy(hb, gb, hs * sizeof(float));
      }
    }
    if (p.cell == LITE_RNN_GRU && !p.linear_before_reset) {
      // The candidate's recurrence reads r ⊙ h of every batch entry: a second GEMM into the space
      // behind the [batch, 2 * hidden] sums (rows of finished entries are computed and not used).
      float* cand = hr + batch * 2 * hs;
      packed_gemm_run(*g.r_h, ctx->pool, batch, rh, hs, nullptr, cand, hs);
      for (size_t b = 0; b < batch; ++b) {
        const size_t len = lite_rnn_length(&p, lens, b);
        if (s >= len) continue;
        const size_t t = reverse ? len - 1 - s : s;
        const float* xt = xw + lite_rnn_x_index(&p, t, b) * gs;
        float* cb = cand + b * hs;
        for (size_t j = 0; j < hs; ++j) cb[j] += xt[2 * hs + j];
        lite_f32_gru_update(st.vsigmoid, &p, &fn[1], hr + b * hr_stride, cb, h + b * hs);
      }
    }
    for (size_t b = 0; b < batch; ++b) {
      const size_t len = lite_rnn_length(&p, lens, b);
      if (s >= len || y == nullptr) continue;
      const size_t t = reverse ? len - 1 - s : s;
      std::memcpy(y + lite_rnn_y_row(&p, t, d, b), h + b * hs, hs * sizeof(float));
    }
  }
  for (size_t b = 0; b < batch; ++b) {
    const size_t row = lite_rnn_state_row(&p, d, b);
    if (lite_rnn_length(&p, lens, b) == 0)  // zero final states for an empty sequence, as the reference
      for (size_t j = 0; j < hs; ++j) h[b * hs + j] = c[b * hs + j] = 0.0f;
    if (y_h) std::memcpy(y_h + row, h + b * hs, hs * sizeof(float));
    if (y_c) std::memcpy(y_c + row, c + b * hs, hs * sizeof(float));
  }
}

float* output_data(OpContext* ctx, int i) {
  TensorRef* t = ctx->output(i);
  return t != nullptr ? static_cast<float*>(t->data) : nullptr;
}

Status eval(OpContext* ctx) {
  Config c;
  Status s = configure(ctx, &c);
  if (s != Status::kOk) return s;
  const lite_rnn_params& p = c.params;
  const TensorRef* lens_t = ctx->input(kSeqLens);
  const int32_t* lens = lens_t ? static_cast<const int32_t*>(lens_t->data) : nullptr;
  for (size_t b = 0; lens != nullptr && b < p.batch; ++b)
    if (lens[b] < 0 || static_cast<size_t>(lens[b]) > p.seq)
      return fail(ctx, Status::kInvalidArgument, "sequence_lens[%zu] = %d is outside [0, %zu]", b, lens[b], p.seq);
  auto in = [ctx](int i) {
    const TensorRef* t = ctx->input(i);
    return t != nullptr ? static_cast<const float*>(t->data) : nullptr;
  };
  const int cell = p.cell;
  float* y = output_data(ctx, 0);
  float* y_h = output_data(ctx, 1);
  float* y_c = cell == LITE_RNN_LSTM ? output_data(ctx, 2) : nullptr;
  const float* initial_c = cell == LITE_RNN_LSTM ? in(kInitialC) : nullptr;
  const float* peep = cell == LITE_RNN_LSTM ? in(kPeep) : nullptr;
  const State* st = static_cast<const State*>(ctx->state);
  if (st == nullptr) {
    lite_f32_rnn_ref(&p, in(kX), in(kW), in(kR), in(kB), lens, in(kInitialH), initial_c, peep, y, y_h, y_c,
                     static_cast<float*>(ctx->scratch));
    return Status::kOk;
  }
  if (y != nullptr && ctx->output(0)->bytes() > 0) std::memset(y, 0, ctx->output(0)->bytes());
  for (size_t d = 0; d < lite_rnn_directions(&p); ++d)
    run_direction(ctx, p, *st, d, in(kX), lens, in(kInitialH), initial_c, peep, y, y_h, y_c);
  return Status::kOk;
}

}  // namespace

OpKernel recurrent_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  k.free_state = free_state;
  return k;
}

}  // namespace lite
