/* LSTM / GRU cell updates over precomputed gate sums (the runtime's fast path; see f32_recurrent.h). */
#include "lite_kernels/f32_recurrent.h"

void lite_f32_rnn_activate_n(lite_f32_vactivation_fn vsigmoid, const lite_rnn_activation* fn, float clip, float* v,
                             size_t n) {
  if (clip > 0.0f)
    for (size_t i = 0; i < n; ++i) v[i] = v[i] < -clip ? -clip : (v[i] > clip ? clip : v[i]);
  const lite_activation sigmoid = {LITE_ACT_SIGMOID, 0.0f, 0.0f, NULL};
  if (fn->kind == LITE_RNN_ACT_SIGMOID) {
    vsigmoid(&sigmoid, v, v, n);
  } else if (fn->kind == LITE_RNN_ACT_TANH) {
    for (size_t i = 0; i < n; ++i) v[i] *= 2.0f;
    vsigmoid(&sigmoid, v, v, n);
    for (size_t i = 0; i < n; ++i) v[i] = 2.0f * v[i] - 1.0f;
  } else {
    for (size_t i = 0; i < n; ++i) v[i] = lite_rnn_activate(fn, 0.0f, v[i]);
  }
}

void lite_f32_lstm_cell(lite_f32_vactivation_fn vsigmoid, const lite_rnn_params* p, const lite_rnn_activation* fn,
                        const float* peep, float* g, float* c, float* h) {
  const size_t hs = p->hidden;
  float *gi = g, *go = g + hs, *gf = g + 2 * hs, *gc = g + 3 * hs;
  if (peep != NULL)
    for (size_t j = 0; j < hs; ++j) {
      gi[j] += peep[j] * c[j];
      gf[j] += peep[2 * hs + j] * c[j];
    }
  if (p->input_forget) {
    lite_f32_rnn_activate_n(vsigmoid, &fn[0], p->clip, gi, hs);
    for (size_t j = 0; j < hs; ++j) gf[j] = 1.0f - gi[j];
  } else {
    lite_f32_rnn_activate_n(vsigmoid, &fn[0], p->clip, gf, hs);
    lite_f32_rnn_activate_n(vsigmoid, &fn[0], p->clip, gi, hs);
  }
  lite_f32_rnn_activate_n(vsigmoid, &fn[1], p->clip, gc, hs);
  for (size_t j = 0; j < hs; ++j) c[j] = gf[j] * c[j] + gi[j] * gc[j];
  if (peep != NULL)
    for (size_t j = 0; j < hs; ++j) go[j] += peep[hs + j] * c[j];
  lite_f32_rnn_activate_n(vsigmoid, &fn[0], p->clip, go, hs);
  for (size_t j = 0; j < hs; ++j) gc[j] = c[j];
  lite_f32_rnn_activate_n(vsigmoid, &fn[2], 0.0f, gc, hs);
  for (size_t j = 0; j < hs; ++j) h[j] = go[j] * gc[j];
}

void lite_f32_gru_update(lite_f32_vactivation_fn vsigmoid, const lite_rnn_params* p, const lite_rnn_activation* fn_g,
                         const float* z, float* hc, float* h) {
  lite_f32_rnn_activate_n(vsigmoid, fn_g, p->clip, hc, p->hidden);
  for (size_t j = 0; j < p->hidden; ++j) h[j] = (1.0f - z[j]) * hc[j] + z[j] * h[j];
}
