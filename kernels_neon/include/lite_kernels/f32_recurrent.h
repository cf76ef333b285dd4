/* fp32 recurrent layers with ONNX's semantics: LSTM (gates i, o, f, c), GRU (gates z, r, h) and the
 * simple RNN, forward / reverse / bidirectional, per-batch sequence lengths, initial states, LSTM
 * peepholes and coupled input-forget gate, GRU linear_before_reset, gate-input clipping, and the
 * gate functions ONNX lists (with their alpha / beta).
 *
 * Layout 0: x [seq, batch, input], y [seq, dirs, batch, hidden], states [dirs, batch, hidden];
 * layout 1: x [batch, seq, input], y [batch, seq, dirs, hidden], states [batch, dirs, hidden].
 * Weights as ONNX gives them: w [dirs, G * hidden, input], r [dirs, G * hidden, hidden],
 * b [dirs, 2 * G * hidden] (Wb then Rb), p [dirs, 3 * hidden] (LSTM peepholes i, o, f).
 * Batch entry b runs seq_lens[b] steps (forward: t = 0 .. len-1; reverse: t = len-1 .. 0); y is
 * zero at the steps past its length and y_h / y_c hold the state after its last step (zeros for
 * an empty sequence, as onnxruntime gives, not the initial state). */
#ifndef LITE_KERNELS_F32_RECURRENT_H
#define LITE_KERNELS_F32_RECURRENT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/f32_vactivation.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values equal lite_fb::RecurrentActivation. */
typedef enum {
  LITE_RNN_ACT_SIGMOID = 0,
  LITE_RNN_ACT_TANH = 1,
  LITE_RNN_ACT_RELU = 2,
  LITE_RNN_ACT_HARD_SIGMOID = 3,   /* min(max(alpha * x + beta, 0), 1) */
  LITE_RNN_ACT_AFFINE = 4,         /* alpha * x + beta */
  LITE_RNN_ACT_LEAKY_RELU = 5,     /* x >= 0 ? x : alpha * x */
  LITE_RNN_ACT_THRESHOLDED_RELU = 6, /* x > alpha ? x : 0 */
  LITE_RNN_ACT_SCALED_TANH = 7,    /* alpha * tanh(beta * x) */
  LITE_RNN_ACT_ELU = 8,            /* x >= 0 ? x : alpha * (exp(x) - 1) */
  LITE_RNN_ACT_SOFTSIGN = 9,       /* x / (1 + |x|) */
  LITE_RNN_ACT_SOFTPLUS = 10,      /* log(1 + exp(x)) */
  LITE_RNN_ACT_COUNT = 11
} lite_rnn_activation_kind;

typedef struct {
  int kind; /* lite_rnn_activation_kind */
  float alpha, beta;
} lite_rnn_activation;

typedef enum { LITE_RNN_LSTM = 0, LITE_RNN_GRU = 1, LITE_RNN_SIMPLE = 2 } lite_rnn_cell;

/* Gates per cell type: 4 (LSTM), 3 (GRU), 1 (RNN); gate functions per direction: 3, 2, 1. */
static inline size_t lite_rnn_gates(int cell) { return cell == LITE_RNN_LSTM ? 4 : (cell == LITE_RNN_GRU ? 3 : 1); }
static inline size_t lite_rnn_functions(int cell) { return cell == LITE_RNN_LSTM ? 3 : (cell == LITE_RNN_GRU ? 2 : 1); }

typedef struct {
  int cell;                 /* lite_rnn_cell */
  size_t seq, batch, input, hidden;
  int direction;            /* 0 forward, 1 reverse, 2 bidirectional */
  int layout;               /* 0 or 1, see above */
  float clip;               /* > 0: every gate function's input is clipped to [-clip, clip] */
  int input_forget;         /* LSTM: f = 1 - i */
  int linear_before_reset;  /* GRU */
  /* lite_rnn_functions(cell) entries per direction, direction 0 first */
  const lite_rnn_activation* activations;
} lite_rnn_params;

static inline size_t lite_rnn_directions(const lite_rnn_params* p) { return p->direction == 2 ? 2 : 1; }

/* One gate function, clip included (the oracle's definition; the fast path vectorizes it). */
static inline float lite_rnn_activate(const lite_rnn_activation* a, float clip, float x) {
  if (clip > 0.0f) x = x < -clip ? -clip : (x > clip ? clip : x);
  switch (a->kind) {
    case LITE_RNN_ACT_SIGMOID: return 1.0f / (1.0f + expf(-x));
    case LITE_RNN_ACT_TANH: return tanhf(x);
    case LITE_RNN_ACT_RELU: return x > 0.0f ? x : 0.0f;
    case LITE_RNN_ACT_HARD_SIGMOID: {
      float y = a->alpha * x + a->beta;
      return y < 0.0f ? 0.0f : (y > 1.0f ? 1.0f : y);
    }
    case LITE_RNN_ACT_AFFINE: return a->alpha * x + a->beta;
    case LITE_RNN_ACT_LEAKY_RELU: return x >= 0.0f ? x : a->alpha * x;
    case LITE_RNN_ACT_THRESHOLDED_RELU: return x > a->alpha ? x : 0.0f;
    case LITE_RNN_ACT_SCALED_TANH: return a->alpha * tanhf(a->beta * x);
    case LITE_RNN_ACT_ELU: return x >= 0.0f ? x : a->alpha * (expf(x) - 1.0f);
    case LITE_RNN_ACT_SOFTSIGN: return x / (1.0f + fabsf(x));
    case LITE_RNN_ACT_SOFTPLUS: return x > 20.0f ? x : log1pf(expf(x));
    default: return x;
  }
}

/* Row number and element offset of x row (t, b), of y row (t, d, b) and of state row (d, b) for the layout. */
static inline size_t lite_rnn_x_index(const lite_rnn_params* p, size_t t, size_t b) {
  return p->layout == 0 ? t * p->batch + b : b * p->seq + t;
}
static inline size_t lite_rnn_x_row(const lite_rnn_params* p, size_t t, size_t b) {
  return lite_rnn_x_index(p, t, b) * p->input;
}
static inline size_t lite_rnn_y_row(const lite_rnn_params* p, size_t t, size_t d, size_t b) {
  const size_t dirs = lite_rnn_directions(p);
  return (p->layout == 0 ? (t * dirs + d) * p->batch + b : (b * p->seq + t) * dirs + d) * p->hidden;
}
static inline size_t lite_rnn_state_row(const lite_rnn_params* p, size_t d, size_t b) {
  return (p->layout == 0 ? d * p->batch + b : b * lite_rnn_directions(p) + d) * p->hidden;
}

/* Steps of batch entry b (seq when seq_lens is NULL; the caller checked 0 <= len <= seq). */
static inline size_t lite_rnn_length(const lite_rnn_params* p, const int32_t* seq_lens, size_t b) {
  return seq_lens != NULL ? (size_t)seq_lens[b] : p->seq;
}

/* The reference (oracle): one dot product per gate value per step, in plain order. b, seq_lens,
 * initial_h, initial_c, peep may be NULL (zeros / full length); y, y_h, y_c may be NULL (not wanted).
 * scratch: lite_rnn_ref_scratch_floats(params) floats. */
size_t lite_f32_rnn_ref_scratch_floats(const lite_rnn_params* p);
void lite_f32_rnn_ref(const lite_rnn_params* p, const float* x, const float* w, const float* r, const float* b,
                      const int32_t* seq_lens, const float* initial_h, const float* initial_c, const float* peep,
                      float* y, float* y_h, float* y_c, float* scratch);

/* The fast path's cell updates (kernels_neon/portable/f32_recurrent_cells_portable.c): the runtime
 * computes the gate sums with GEMMs (x · Wᵀ for the whole sequence, then h · Rᵀ per step) and
 * these apply the gate functions, vectorized for SIGMOID and TANH through `vsigmoid` (a
 * lite_f32_vactivation_select result; tanh(x) = 2 sigmoid(2x) - 1, within a few 1e-7 of tanhf),
 * scalar lite_rnn_activate for the others. */

/* v[i] = fn(clip(v[i])) for i in [0, n). */
void lite_f32_rnn_activate_n(lite_f32_vactivation_fn vsigmoid, const lite_rnn_activation* fn, float clip, float* v,
                             size_t n);

/* One LSTM step of one batch entry: g [4 * hidden] holds the sums of gates i, o, f, c (biases in);
 * peep (3 * hidden, may be NULL) the peepholes i, o, f. Updates c and h; g is clobbered. */
void lite_f32_lstm_cell(lite_f32_vactivation_fn vsigmoid, const lite_rnn_params* p, const lite_rnn_activation* fn,
                        const float* peep, float* g, float* c, float* h);

/* The GRU step's end for one batch entry: z [hidden] the update gate (after its function), hc the
 * candidate's sum (clobbered); h = (1 - z) * g(hc) + z * h. */
void lite_f32_gru_update(lite_f32_vactivation_fn vsigmoid, const lite_rnn_params* p, const lite_rnn_activation* fn_g,
                         const float* z, float* hc, float* h);

#ifdef __cplusplus
}
#endif

#endif
