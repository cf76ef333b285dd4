/* Body of the floating-point unary ops, included once per float type by xx_elementwise_unary_ref.c
 * with FT (the element type) and FSUFFIX (the function name suffix) defined; no include guard on
 * purpose. <tgmath.h> picks the float or double math function from FT, and constants are cast to
 * FT, so each type computes in its own precision like the source framework does. */
#define UNARY_CAT2(a, b) a##b
#define UNARY_CAT(a, b) UNARY_CAT2(a, b)
#define UNARY_FN UNARY_CAT(unary_, FSUFFIX)
#define MAP(EXPR)                        \
  for (size_t i = 0; i < n; ++i) {       \
    const FT v = x[i];                   \
    y[i] = (FT)(EXPR);                   \
  }                                      \
  return 0
#define MAP_BOOL(EXPR)                   \
  for (size_t i = 0; i < n; ++i) {       \
    const FT v = x[i];                   \
    yb[i] = (uint8_t)((EXPR) ? 1 : 0);   \
  }                                      \
  return 0

static FT UNARY_CAT(sigmoid_, FSUFFIX)(FT v) {
  if (v >= 0) return (FT)1 / ((FT)1 + exp(-v));
  const FT e = exp(v);
  return e / ((FT)1 + e);
}

static FT UNARY_CAT(softplus_, FSUFFIX)(FT v) { return v > 0 ? v + log1p(exp(-v)) : log1p(exp(v)); }

static int UNARY_FN(int op, const lite_unary_params* p, const FT* x, void* out, size_t n) {
  FT* y = (FT*)out;
  uint8_t* yb = (uint8_t*)out;
  const FT alpha = (FT)p->alpha, beta = (FT)p->beta, gamma = (FT)p->gamma;
  switch (op) {
    case LITE_UN_RELU: MAP(v < 0 ? (FT)0 : v); /* NaN stays NaN */
    case LITE_UN_RELU6: MAP(v < 0 ? (FT)0 : (v > 6 ? (FT)6 : v));
    case LITE_UN_CLIP: MAP(v < alpha ? alpha : (v > beta ? beta : v));
    case LITE_UN_SIGMOID: MAP(UNARY_CAT(sigmoid_, FSUFFIX)(v));
    case LITE_UN_TANH: MAP(tanh(v));
    case LITE_UN_HARD_SIGMOID: {
      /* comparisons, not fmax / fmin (which return the number when one operand is NaN) */
      MAP(alpha * v + beta < 0 ? (FT)0 : (alpha * v + beta > 1 ? (FT)1 : alpha * v + beta));
    }
    case LITE_UN_HARD_SWISH: MAP(v * fmax((FT)0, fmin((FT)1, v / (FT)6 + (FT)0.5)));
    case LITE_UN_LEAKY_RELU: MAP(v < 0 ? alpha * v : v);
    case LITE_UN_ELU: MAP(v < 0 ? alpha * expm1(v) : v);
    case LITE_UN_SELU: MAP(v > 0 ? gamma * v : gamma * (alpha * exp(v) - alpha));
    case LITE_UN_CELU: MAP(v != v ? v : fmax((FT)0, v) + fmin((FT)0, alpha * expm1(v / alpha)));
    case LITE_UN_SILU: MAP(v * UNARY_CAT(sigmoid_, FSUFFIX)(v));
    case LITE_UN_GELU:
      if (p->approximate_tanh) {
        const FT k = (FT)0.7978845608028654; /* sqrt(2 / pi) */
        MAP((FT)0.5 * v * ((FT)1 + tanh(k * (v + (FT)0.044715 * v * v * v))));
      } else {
        const FT r = (FT)0.7071067811865476; /* 1 / sqrt(2) */
        MAP((FT)0.5 * v * ((FT)1 + erf(v * r)));
      }
    case LITE_UN_SOFTPLUS: MAP(UNARY_CAT(softplus_, FSUFFIX)(v));
    case LITE_UN_SOFTSIGN: MAP(v / ((FT)1 + fabs(v)));
    case LITE_UN_EXP: MAP(exp(v));
    case LITE_UN_LOG: MAP(log(v));
    case LITE_UN_SQRT: MAP(sqrt(v));
    case LITE_UN_RSQRT: MAP((FT)1 / sqrt(v));
    case LITE_UN_RECIPROCAL: MAP((FT)1 / v);
    case LITE_UN_ABS: MAP(fabs(v));
    case LITE_UN_NEG: MAP(-v);
    case LITE_UN_FLOOR: MAP(floor(v));
    case LITE_UN_CEIL: MAP(ceil(v));
    case LITE_UN_ROUND: MAP(rint(v)); /* default rounding mode: half to even */
    case LITE_UN_SIGN: MAP(v > 0 ? (FT)1 : (v < 0 ? (FT)-1 : v * 0));
    case LITE_UN_ERF: MAP(erf(v));
    case LITE_UN_SIN: MAP(sin(v));
    case LITE_UN_COS: MAP(cos(v));
    case LITE_UN_TAN: MAP(tan(v));
    case LITE_UN_ASIN: MAP(asin(v));
    case LITE_UN_ACOS: MAP(acos(v));
    case LITE_UN_ATAN: MAP(atan(v));
    case LITE_UN_SINH: MAP(sinh(v));
    case LITE_UN_COSH: MAP(cosh(v));
    case LITE_UN_ASINH: MAP(asinh(v));
    case LITE_UN_ACOSH: MAP(acosh(v));
    case LITE_UN_ATANH: MAP(atanh(v));
    case LITE_UN_MISH: MAP(v * tanh(UNARY_CAT(softplus_, FSUFFIX)(v)));
    case LITE_UN_SHRINK: MAP(v < -alpha ? v + beta : (v > alpha ? v - beta : (FT)0));
    case LITE_UN_THRESHOLDED_RELU: MAP(v > alpha ? v : (FT)0);
    case LITE_UN_IS_NAN: MAP_BOOL(isnan(v));
    case LITE_UN_IS_INF: {
      const int neg = p->alpha != 0.0f, pos = p->beta != 0.0f;
      MAP_BOOL(isinf(v) && ((v > 0 && pos) || (v < 0 && neg)));
    }
    default: return -1;
  }
}

#undef MAP
#undef MAP_BOOL
#undef UNARY_FN
#undef UNARY_CAT
#undef UNARY_CAT2
