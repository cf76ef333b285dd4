/* Layer normalization rows written once over the LV_* vector interface (see f32_vector_*.h) and
 * instantiated per ISA; the including file defines LITE_LAYER_NORM_ENTRY, the public name. */
#include <math.h>
#include <stddef.h>

/* Values summed in vector lanes before the lane sums go into the double total: at most 1024 / LV_W
 * float additions per lane (the error of a float sum grows with its length). */
#define LN_BLOCK 1024

/* The sum of x[i] - center over a row, lanes per block, blocks in double. */
static double ln_sum(const float* x, size_t n, float center, int squares) {
  double total = 0.0;
  const LV_T c = LV_SET1(center);
  for (size_t start = 0; start < n; start += LN_BLOCK) {
    const size_t end = n - start < LN_BLOCK ? n : start + LN_BLOCK;
    LV_T acc = LV_SET1(0.0f);
    size_t i = start;
    for (; i + LV_W <= end; i += LV_W) {
      const LV_T d = LV_SUB(LV_LOAD(x + i), c);
      acc = squares ? LV_FMA(acc, d, d) : LV_ADD(acc, d);
    }
    float lanes[LV_W];
    LV_STORE(lanes, acc);
    for (int l = 0; l < LV_W; ++l) total += (double)lanes[l];
    for (; i < end; ++i) {
      const double d = (double)x[i] - (double)center;
      total += squares ? d * d : d;
    }
  }
  return total;
}

void LITE_LAYER_NORM_ENTRY(size_t outer, size_t inner, const float* input, const float* scale, const float* bias,
                           float epsilon, float* output, float* mean, float* inv_std_dev) {
  for (size_t o = 0; o < outer; ++o) {
    const float* x = input + o * inner;
    float* y = output + o * inner;
    /* the mean of x - x[0] (exact differences of nearby floats; float lanes would lose a large
     * mean's low bits), then the mean of the squared deviations */
    const float mu = inner > 0 ? (float)((double)x[0] + ln_sum(x, inner, x[0], 0) / (double)inner) : 0.0f;
    const float inv = (float)(1.0 / sqrt(ln_sum(x, inner, mu, 1) / (double)inner + (double)epsilon));
    const LV_T vmu = LV_SET1(mu), vinv = LV_SET1(inv);
    size_t i = 0;
    for (; i + LV_W <= inner; i += LV_W) {
      LV_T v = LV_MUL(LV_SUB(LV_LOAD(x + i), vmu), vinv);
      if (scale != NULL) v = LV_MUL(v, LV_LOAD(scale + i));
      if (bias != NULL) v = LV_ADD(v, LV_LOAD(bias + i));
      LV_STORE(y + i, v);
    }
    for (; i < inner; ++i) {  /* the same operations as a lane, one value */
      float v = (x[i] - mu) * inv;
      if (scale != NULL) v *= scale[i];
      if (bias != NULL) v += bias[i];
      y[i] = v;
    }
    if (mean != NULL) mean[o] = mu;
    if (inv_std_dev != NULL) inv_std_dev[o] = inv;
  }
}
