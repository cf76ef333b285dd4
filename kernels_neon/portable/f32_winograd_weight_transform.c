/* The Winograd weight transform U = G g G^T (F(2,3), F(4,3), F(6,3)) for a range of output channels,
 * written straight into the packed-GEMM panels the products read. One function serves both uses, so
 * they give the same bits: the whole weight once at prepare (lite_f32_winograd_pack_weight) and, for a
 * layer whose transformed weight is not kept, one panel at a time into scratch at every run
 * (f32_winograd_nhwc_body.h). It therefore has to be cheap: 4 output channels per GNU C vector
 * (NEON / SSE), 4 x 4 blocks of the .lite weight [co][3][3][ci] transposed in registers, and the
 * generated 1-D transforms (LITE_WINO_F<m>_G: zero terms dropped, the rows of a point pair p, -p
 * sharing their even and odd parts). */
#include <string.h>

#include "f32_winograd_transforms.h"
#include "lite_kernels/f32_winograd.h"

#if defined(__arm__) && defined(__ARM_NEON)
/* armv7: GCC lowers GNU vector float arithmetic to scalar VFP there (NEON float is not IEEE: it
 * flushes denormals), so the vectors are NEON intrinsics, as in the armv7 kernels. */
#include <arm_neon.h>
typedef float32x4_t wt_v4;
#define WT_ADD(a, b) vaddq_f32(a, b)
#define WT_SUB(a, b) vsubq_f32(a, b)
#define WT_MUL(a, b) vmulq_f32(a, b)
#define WT_FMA(acc, a, b) vfmaq_f32(acc, a, b)
#define WT_SET1(x) vdupq_n_f32(x)
#define WT_ZERO vdupq_n_f32(0.0f)
#define WT_INLINE static inline __attribute__((always_inline))
WT_INLINE wt_v4 wt_load(const float* p) { return vld1q_f32(p); }
WT_INLINE void wt_store(float* p, wt_v4 v) { vst1q_f32(p, v); }
WT_INLINE void wt_transpose(wt_v4* r) {
  const float32x4x2_t a = vtrnq_f32(r[0], r[1]), b = vtrnq_f32(r[2], r[3]);
  r[0] = vcombine_f32(vget_low_f32(a.val[0]), vget_low_f32(b.val[0]));
  r[1] = vcombine_f32(vget_low_f32(a.val[1]), vget_low_f32(b.val[1]));
  r[2] = vcombine_f32(vget_high_f32(a.val[0]), vget_high_f32(b.val[0]));
  r[3] = vcombine_f32(vget_high_f32(a.val[1]), vget_high_f32(b.val[1]));
}
#else
typedef float wt_v4 __attribute__((vector_size(16)));
#define WT_ADD(a, b) ((a) + (b))
#define WT_SUB(a, b) ((a) - (b))
#define WT_MUL(a, b) ((a) * (b))
#define WT_FMA(acc, a, b) ((acc) + (a) * (b))
#define WT_SET1(x) ((wt_v4){(x), (x), (x), (x)})
#define WT_ZERO ((wt_v4){0.0f, 0.0f, 0.0f, 0.0f})
#define WT_INLINE static inline __attribute__((always_inline))

WT_INLINE wt_v4 wt_load(const float* p) {
  wt_v4 v;
  memcpy(&v, p, sizeof(v));
  return v;
}

WT_INLINE void wt_store(float* p, wt_v4 v) { memcpy(p, &v, sizeof(v)); }

/* 4 x 4 transpose: r[i] lane j <- r[j] lane i. Clang (the fuzzing build) spells GCC's two-vector
 * shuffle __builtin_shufflevector with the lane indices as arguments. */
#if defined(__clang__)
#define WT_SHUFFLE(a, b, i0, i1, i2, i3) __builtin_shufflevector((a), (b), i0, i1, i2, i3)
#else
typedef int wt_i4 __attribute__((vector_size(16)));
#define WT_SHUFFLE(a, b, i0, i1, i2, i3) __builtin_shuffle((a), (b), (wt_i4){i0, i1, i2, i3})
#endif
WT_INLINE void wt_transpose(wt_v4* r) {
  const wt_v4 t0 = WT_SHUFFLE(r[0], r[1], 0, 4, 1, 5);
  const wt_v4 t1 = WT_SHUFFLE(r[0], r[1], 2, 6, 3, 7);
  const wt_v4 t2 = WT_SHUFFLE(r[2], r[3], 0, 4, 1, 5);
  const wt_v4 t3 = WT_SHUFFLE(r[2], r[3], 2, 6, 3, 7);
  r[0] = WT_SHUFFLE(t0, t2, 0, 1, 4, 5);
  r[1] = WT_SHUFFLE(t0, t2, 2, 3, 6, 7);
  r[2] = WT_SHUFFLE(t1, t3, 0, 1, 4, 5);
  r[3] = WT_SHUFFLE(t1, t3, 2, 3, 6, 7);
}
#endif
/* The operation prefix of the generated 1-D transforms (LITE_WINO_F<m>_G) over these vectors. */
#define WT_T wt_v4

/* y[0 .. alpha) = G x for one column (or row) x of 3 values. */
WT_INLINE void wt_g(int M, const wt_v4* x, wt_v4* y) {
  if (M == 2)
    LITE_WINO_F2_G(WT, x, y);
  else if (M == 4)
    LITE_WINO_F4_G(WT, x, y);
  else
    LITE_WINO_F6_G(WT, x, y);
}

/* Output channels [co, co + 4) (zeros past out_c) of input channels [ci0, ci0 + 4) (only `n` of them),
 * each U row of 4 channels stored at dst + t * t_stride + (1 + ci) * nr. */
WT_INLINE void wt_block(int M, const lite_conv2d_params* p, const float* weight, size_t co,
                        size_t ci0, size_t n, float* dst, size_t t_stride, size_t nr) {
  const size_t Ci = p->in_c;
  wt_v4 g[9][4]; /* g[tap][k]: tap of input channel ci0 + k, lanes = the 4 output channels */
  for (int tap = 0; tap < 9; ++tap) {
    for (size_t j = 0; j < 4; ++j) {
      const float* src = weight + ((co + j) * 9 + (size_t)tap) * Ci + ci0;
      if (co + j >= p->out_c) {
        g[tap][j] = WT_ZERO;
      } else if (n == 4) {
        g[tap][j] = wt_load(src);
      } else {
        float buf[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        memcpy(buf, src, n * sizeof(float));
        g[tap][j] = wt_load(buf);
      }
    }
    wt_transpose(g[tap]);
  }
  const int A = M + 2;
  for (size_t k = 0; k < n; ++k) {
    wt_v4 col[3][8]; /* G g, per kernel column b */
    for (int b = 0; b < 3; ++b) {
      const wt_v4 x[3] = {g[b][k], g[3 + b][k], g[6 + b][k]};
      wt_g(M, x, col[b]);
    }
    float* row = dst + (1 + ci0 + k) * nr;
    for (int i = 0; i < A; ++i) {
      const wt_v4 x[3] = {col[0][i], col[1][i], col[2][i]};
      wt_v4 u[8];
      wt_g(M, x, u);
      for (int j = 0; j < A; ++j) wt_store(row + (size_t)(i * A + j) * t_stride, u[j]);
    }
  }
}

WT_INLINE void wt_range(int M, const lite_f32_gemm_config* gemm, const lite_conv2d_params* p,
                        const float* weight, size_t co_begin, size_t co_end, float* out, size_t t_stride) {
  const size_t nr = gemm->nr, Ci = p->in_c, panel_floats = nr * (Ci + 1);
  const int A = M + 2;
  for (size_t j0 = co_begin; j0 < co_end; j0 += nr) {
    float* panel = out + (j0 - co_begin) / nr * panel_floats;
    for (int t = 0; t < A * A; ++t) memset(panel + (size_t)t * t_stride, 0, nr * sizeof(float)); /* bias row */
    for (size_t q = 0; q < nr; q += 4)
      for (size_t ci0 = 0; ci0 < Ci; ci0 += 4)
        wt_block(M, p, weight, j0 + q, ci0, Ci - ci0 < 4 ? Ci - ci0 : 4, panel + q, t_stride, nr);
  }
}

void lite_f32_winograd_transform_weight(const lite_f32_gemm_config* gemm, int m, const lite_conv2d_params* p,
                                        const float* weight, size_t co_begin, size_t co_end, float* out,
                                        size_t t_stride) {
  if (m == 2)
    wt_range(2, gemm, p, weight, co_begin, co_end, out, t_stride);
  else if (m == 4)
    wt_range(4, gemm, p, weight, co_begin, co_end, out, t_stride);
  else
    wt_range(6, gemm, p, weight, co_begin, co_end, out, t_stride);
}
