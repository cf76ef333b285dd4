/* Body of the vectorized activations (lite_kernels/f32_vactivation.h), included once per ISA by
 * x86/f32_vactivation_*.c and arm/f32_vactivation_*.c after they define the VA_* interface:
 *   VA_T, VA_W (floats per vector), VA_LOAD/VA_STORE (unaligned), VA_SET1, VA_ADD, VA_SUB, VA_MUL,
 *   VA_DIV, VA_FMA(acc, a, b) = acc + a * b, VA_ABS, VA_NEG,
 *   VA_SEL_GT(a, b, x, y) = a > b ? x : y (likewise VA_SEL_LT, VA_SEL_GE; false for NaN),
 *   VA_SEL_NAN(a, x, y) = a is NaN ? x : y,
 *   VA_ROUND(a) = a rounded to an integer (any tie rule), VA_POW2I(n) = 2^n for integral n in [-126, 0],
 *   VA_FN = the activation function's name, VA_EXP_SUM_FN = the exp-and-sum function's name,
 *   VA_SOFTMAX_ROW_FN = the row softmax's name.
 * No include guard on purpose. */
#include <math.h>

#define VA_CAT2(a, b) a##b
#define VA_CAT(a, b) VA_CAT2(a, b)

/* exp(x) for x <= 0 (NaN is the caller's business): x = n ln2 + r with |r| <= ln2/2, exp(r) from
 * a degree-6 polynomial (the published Cephes expf coefficients, relative error ~1e-7), times 2^n.
 * Below -87.34 (where 2^n would leave the normal floats) the result is 0, as libm's is below -103:
 * sigmoid(-inf) is exactly 0 and silu(-inf) NaN, like the reference. */
static inline VA_T VA_CAT(exp_nonpositive_, VA_FN)(VA_T x_in) {
  const VA_T lowest = VA_SET1(-87.3365402f);
  const VA_T x = VA_SEL_LT(x_in, lowest, lowest, x_in);
  const VA_T n = VA_ROUND(VA_MUL(x, VA_SET1(1.44269504088896341f)));
  VA_T r = VA_FMA(x, n, VA_SET1(-0.693359375f));
  r = VA_FMA(r, n, VA_SET1(2.12194440e-4f));
  VA_T p = VA_SET1(1.9875691500e-4f);
  p = VA_FMA(VA_SET1(1.3981999507e-3f), p, r);
  p = VA_FMA(VA_SET1(8.3334519073e-3f), p, r);
  p = VA_FMA(VA_SET1(4.1665795894e-2f), p, r);
  p = VA_FMA(VA_SET1(1.6666665459e-1f), p, r);
  p = VA_FMA(VA_SET1(5.0000001201e-1f), p, r);
  p = VA_FMA(VA_ADD(r, VA_SET1(1.0f)), p, VA_MUL(r, r));
  return VA_SEL_LT(x_in, lowest, VA_SET1(0.0f), VA_MUL(p, VA_POW2I(n)));
}

/* sigmoid(x) without overflow: e = exp(-|x|), 1 / (1 + e) for x >= 0, e / (1 + e) below; NaN stays. */
static inline VA_T VA_CAT(sigmoid_, VA_FN)(VA_T x) {
  const VA_T e = VA_CAT(exp_nonpositive_, VA_FN)(VA_NEG(VA_ABS(x)));
  const VA_T s = VA_DIV(VA_SET1(1.0f), VA_ADD(VA_SET1(1.0f), e));
  return VA_SEL_NAN(x, x, VA_SEL_GE(x, VA_SET1(0.0f), s, VA_MUL(e, s)));
}

/* tanh(x): below |x| = 0.25 its odd Taylor polynomial to x^9 (the next term is under 1e-9 of the
 * value there), above it (1 - e) / (1 + e) with e = exp(-2|x|) (1 - e never cancels: e <= 0.61), the
 * sign put back; +-inf gives +-1, NaN stays, -0 stays -0. A few ulp of libm's tanhf. */
static inline VA_T VA_CAT(tanh_, VA_FN)(VA_T x) {
  const VA_T a = VA_ABS(x);
  const VA_T x2 = VA_MUL(x, x);
  VA_T p = VA_SET1(62.0f / 2835.0f);
  p = VA_FMA(VA_SET1(-17.0f / 315.0f), p, x2);
  p = VA_FMA(VA_SET1(2.0f / 15.0f), p, x2);
  p = VA_FMA(VA_SET1(-1.0f / 3.0f), p, x2);
  const VA_T small = VA_FMA(x, VA_MUL(x, x2), p);
  const VA_T e = VA_CAT(exp_nonpositive_, VA_FN)(VA_MUL(VA_SET1(-2.0f), a));
  const VA_T r = VA_DIV(VA_SUB(VA_SET1(1.0f), e), VA_ADD(VA_SET1(1.0f), e));
  const VA_T large = VA_SEL_LT(x, VA_SET1(0.0f), VA_NEG(r), r);
  return VA_SEL_NAN(x, x, VA_SEL_LT(a, VA_SET1(0.25f), small, large));
}

static inline VA_T VA_CAT(apply_, VA_FN)(int kind, VA_T x, VA_T alpha, VA_T beta) {
  const VA_T zero = VA_SET1(0.0f), one = VA_SET1(1.0f);
  switch (kind) {
    case LITE_ACT_RELU: return VA_SEL_LT(x, zero, zero, x); /* NaN stays NaN */
    case LITE_ACT_CLIP: return VA_SEL_LT(x, alpha, alpha, VA_SEL_GT(x, beta, beta, x));
    case LITE_ACT_HARD_SIGMOID: {
      const VA_T y = VA_ADD(VA_MUL(alpha, x), beta);
      return VA_SEL_LT(y, zero, zero, VA_SEL_GT(y, one, one, y));
    }
    case LITE_ACT_HARD_SWISH: {
      const VA_T y = VA_ADD(VA_DIV(x, VA_SET1(6.0f)), VA_SET1(0.5f));
      return VA_MUL(x, VA_SEL_LT(y, zero, zero, VA_SEL_GT(y, one, one, y)));
    }
    case LITE_ACT_LEAKY_RELU: return VA_SEL_GE(x, zero, x, VA_MUL(alpha, x));
    case LITE_ACT_SIGMOID: return VA_CAT(sigmoid_, VA_FN)(x);
    case LITE_ACT_SILU: return VA_MUL(x, VA_CAT(sigmoid_, VA_FN)(x));
    case LITE_ACT_TANH: return VA_CAT(tanh_, VA_FN)(x);
    default: return x;
  }
}

void VA_FN(const lite_activation* act, const float* x, float* y, size_t n) {
  const int kind = act->kind;
  if (kind == LITE_ACT_NONE || !lite_f32_vactivation_supports(kind)) {
    for (size_t i = 0; i < n; ++i) y[i] = lite_activate(act, x[i], i);
    return;
  }
  const VA_T alpha = VA_SET1(act->alpha), beta = VA_SET1(act->beta);
  size_t i = 0;
  /* One loop per kind (the kind a constant inside it), not a switch per vector. */
#define VA_LOOP(KIND)                                                                                   \
  case KIND:                                                                                            \
    for (; i + VA_W <= n; i += VA_W) VA_STORE(y + i, VA_CAT(apply_, VA_FN)(KIND, VA_LOAD(x + i), alpha, beta)); \
    break;
  switch (kind) {
    VA_LOOP(LITE_ACT_RELU)
    VA_LOOP(LITE_ACT_CLIP)
    VA_LOOP(LITE_ACT_HARD_SIGMOID)
    VA_LOOP(LITE_ACT_HARD_SWISH)
    VA_LOOP(LITE_ACT_LEAKY_RELU)
    VA_LOOP(LITE_ACT_SIGMOID)
    VA_LOOP(LITE_ACT_SILU)
    VA_LOOP(LITE_ACT_TANH)
    default: break;
  }
#undef VA_LOOP
  if (i < n) { /* the tail through the same vector code, so a value's result does not depend on its position */
    float tail[VA_W] = {0};
    for (size_t j = i; j < n; ++j) tail[j - i] = x[j];
    VA_STORE(tail, VA_CAT(apply_, VA_FN)(kind, VA_LOAD(tail), alpha, beta));
    for (size_t j = i; j < n; ++j) y[j] = tail[j - i];
  }
}
/* y = exp(x - shift) (shift >= every x: a softmax row's maximum), returns the sum of y: lanes
 * accumulate separately and are added in lane order, the tail padded with -inf (exp = 0). */
float VA_EXP_SUM_FN(const float* x, float shift, float* y, size_t n) {
  const VA_T s = VA_SET1(shift);
  VA_T acc = VA_SET1(0.0f);
  size_t i = 0;
  for (; i + VA_W <= n; i += VA_W) {
    const VA_T e = VA_CAT(exp_nonpositive_, VA_FN)(VA_SUB(VA_LOAD(x + i), s));
    VA_STORE(y + i, e);
    acc = VA_ADD(acc, e);
  }
  if (i < n) {
    float tail[VA_W];
    for (size_t j = 0; j < VA_W; ++j) tail[j] = i + j < n ? x[i + j] : -INFINITY;
    const VA_T e = VA_CAT(exp_nonpositive_, VA_FN)(VA_SUB(VA_LOAD(tail), s));
    VA_STORE(tail, e);
    for (size_t j = i; j < n; ++j) y[j] = tail[j - i];
    acc = VA_ADD(acc, e);
  }
  float lanes[VA_W];
  VA_STORE(lanes, acc);
  float sum = 0.0f;
  for (size_t j = 0; j < VA_W; ++j) sum += lanes[j];
  return sum;
}

/* Softmax of one contiguous row: the maximum (x > m ? x : m lane by lane, then across lanes in lane
 * order: NaN never wins, as in the reference's slice_max), VA_EXP_SUM_FN, then each value divided by
 * the sum (IEEE division, as the reference). */
void VA_SOFTMAX_ROW_FN(const float* x, float* y, size_t n) {
  VA_T vm = VA_SET1(-INFINITY);
  size_t i = 0;
  for (; i + VA_W <= n; i += VA_W) {
    const VA_T v = VA_LOAD(x + i);
    vm = VA_SEL_GT(v, vm, v, vm);
  }
  float lanes[VA_W];
  VA_STORE(lanes, vm);
  float m = -INFINITY;
  for (size_t j = 0; j < VA_W; ++j) m = lanes[j] > m ? lanes[j] : m;
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  const float sum = VA_EXP_SUM_FN(x, m, y, n);
  const VA_T vs = VA_SET1(sum);
  for (i = 0; i + VA_W <= n; i += VA_W) VA_STORE(y + i, VA_DIV(VA_LOAD(y + i), vs));
  for (; i < n; ++i) y[i] /= sum;
}

#undef VA_CAT
#undef VA_CAT2
