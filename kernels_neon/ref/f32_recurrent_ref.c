/* LSTM / GRU / RNN reference: each direction and batch entry on its own, one dot product per gate
 * value per step, the ONNX equations as written. */
#include <string.h>

#include "lite_kernels/f32_recurrent.h"

size_t lite_f32_rnn_ref_scratch_floats(const lite_rnn_params* p) { return 7 * p->hidden; }

static float dot(const float* a, const float* b, size_t n) {
  float s = 0.0f;
  for (size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

/* gates[g * hidden + j] = x_t · W[g*hidden + j] + h · R[g*hidden + j] + Wb + Rb, for the gates in [g0, g1). */
static void project(const lite_rnn_params* p, size_t g0, size_t g1, const float* xt, const float* w, const float* r,
                    const float* bias, const float* h, float* gates) {
  const size_t hs = p->hidden, gs = lite_rnn_gates(p->cell) * hs;
  for (size_t row = g0 * hs; row < g1 * hs; ++row) {
    float v = dot(xt, w + row * p->input, p->input) + dot(h, r + row * hs, hs);
    if (bias != NULL) v += bias[row] + bias[gs + row];
    gates[row] = v;
  }
}

static void lstm_step(const lite_rnn_params* p, const lite_rnn_activation* fn, const float* xt, const float* w,
                      const float* r, const float* bias, const float* peep, float* h, float* c, float* gates) {
  const size_t hs = p->hidden;
  project(p, 0, 4, xt, w, r, bias, h, gates);
  const float *gi = gates, *go = gates + hs, *gf = gates + 2 * hs, *gc = gates + 3 * hs;
  for (size_t j = 0; j < hs; ++j) {
    const float c_prev = c[j];
    const float i = lite_rnn_activate(&fn[0], p->clip, gi[j] + (peep ? peep[j] * c_prev : 0.0f));
    const float f = p->input_forget ? 1.0f - i
                                    : lite_rnn_activate(&fn[0], p->clip, gf[j] + (peep ? peep[2 * hs + j] * c_prev : 0.0f));
    const float cand = lite_rnn_activate(&fn[1], p->clip, gc[j]);
    c[j] = f * c_prev + i * cand;
  }
  for (size_t j = 0; j < hs; ++j) {
    const float o = lite_rnn_activate(&fn[0], p->clip, go[j] + (peep ? peep[hs + j] * c[j] : 0.0f));
    h[j] = o * lite_rnn_activate(&fn[2], 0.0f, c[j]);
  }
}

static void gru_step(const lite_rnn_params* p, const lite_rnn_activation* fn, const float* xt, const float* w,
                     const float* r, const float* bias, float* h, float* gates, float* rh) {
  const size_t hs = p->hidden, gs = 3 * hs;
  project(p, 0, 2, xt, w, r, bias, h, gates);
  float* z = gates;
  float* reset = gates + hs;
  for (size_t j = 0; j < 2 * hs; ++j) gates[j] = lite_rnn_activate(&fn[0], p->clip, gates[j]);
  for (size_t k = 0; k < hs; ++k) rh[k] = reset[k] * h[k];
  for (size_t j = 0; j < hs; ++j) {
    const size_t row = 2 * hs + j;
    float v = dot(xt, w + row * p->input, p->input) + (bias ? bias[row] : 0.0f);
    if (p->linear_before_reset) {
      v += reset[j] * (dot(h, r + row * hs, hs) + (bias ? bias[gs + row] : 0.0f));
    } else {
      v += dot(rh, r + row * hs, hs) + (bias ? bias[gs + row] : 0.0f);
    }
    gates[row] = lite_rnn_activate(&fn[1], p->clip, v);
  }
  for (size_t j = 0; j < hs; ++j) h[j] = (1.0f - z[j]) * gates[2 * hs + j] + z[j] * h[j];
}

static void simple_step(const lite_rnn_params* p, const lite_rnn_activation* fn, const float* xt, const float* w,
                        const float* r, const float* bias, float* h, float* gates) {
  project(p, 0, 1, xt, w, r, bias, h, gates);
  for (size_t j = 0; j < p->hidden; ++j) h[j] = lite_rnn_activate(&fn[0], p->clip, gates[j]);
}

void lite_f32_rnn_ref(const lite_rnn_params* p, const float* x, const float* w, const float* r, const float* b,
                      const int32_t* seq_lens, const float* initial_h, const float* initial_c, const float* peep,
                      float* y, float* y_h, float* y_c, float* scratch) {
  const size_t hs = p->hidden, gs = lite_rnn_gates(p->cell) * hs, dirs = lite_rnn_directions(p);
  float* h = scratch;
  float* c = h + hs;
  float* gates = c + hs;
  float* rh = gates + 4 * hs;
  if (y != NULL) memset(y, 0, p->seq * dirs * p->batch * hs * sizeof(float));
  for (size_t d = 0; d < dirs; ++d) {
    const int reverse = p->direction == 1 || d == 1;
    const lite_rnn_activation* fn = p->activations + d * lite_rnn_functions(p->cell);
    const float* wd = w + d * gs * p->input;
    const float* rd = r + d * gs * hs;
    const float* bd = b ? b + d * 2 * gs : NULL;
    const float* pd = peep ? peep + d * 3 * hs : NULL;
    for (size_t bi = 0; bi < p->batch; ++bi) {
      const size_t state = lite_rnn_state_row(p, d, bi);
      for (size_t j = 0; j < hs; ++j) {
        h[j] = initial_h ? initial_h[state + j] : 0.0f;
        c[j] = initial_c ? initial_c[state + j] : 0.0f;
      }
      const size_t len = lite_rnn_length(p, seq_lens, bi);
      for (size_t s = 0; s < len; ++s) {
        const size_t t = reverse ? len - 1 - s : s;
        const float* xt = x + lite_rnn_x_row(p, t, bi);
        if (p->cell == LITE_RNN_LSTM)
          lstm_step(p, fn, xt, wd, rd, bd, pd, h, c, gates);
        else if (p->cell == LITE_RNN_GRU)
          gru_step(p, fn, xt, wd, rd, bd, h, gates, rh);
        else
          simple_step(p, fn, xt, wd, rd, bd, h, gates);
        if (y != NULL) memcpy(y + lite_rnn_y_row(p, t, d, bi), h, hs * sizeof(float));
      }
      if (len == 0) /* onnxruntime's convention: an empty sequence has zero final states */
        for (size_t j = 0; j < hs; ++j) h[j] = c[j] = 0.0f;
      if (y_h != NULL) memcpy(y_h + state, h, hs * sizeof(float));
      if (y_c != NULL) memcpy(y_c + state, c, hs * sizeof(float));
    }
  }
}
