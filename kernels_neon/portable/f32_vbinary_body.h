/* Body of the vectorized fp32 binary rows (lite_kernels/f32_vbinary.h), included once per ISA after
 * the VB_* interface is defined: VB_T, VB_W, VB_LOAD, VB_STORE (unaligned), VB_SET1, VB_ADD, VB_SUB,
 * VB_MUL, VB_DIV, VB_PRELU (x < 0 ? slope * x : x, as the reference), VB_FN (the function name). No include guard on purpose. */

/* One loop per (operation, operand pattern). The tail (and a scalar op scalar row) goes through the
 * vector operation on a padded copy, so every value is computed by the same instruction wherever
 * it sits: armv7 NEON flushes subnormals where its VFP scalar code would not. */
#define VB_LOOPS(OP_V)                                                                         \
  {                                                                                            \
    const VB_T va = VB_SET1(a[0]), vb = VB_SET1(b[0]);                                         \
    if (!a_step && !b_step) {                                                                  \
      float v[VB_W];                                                                           \
      VB_STORE(v, OP_V(va, vb));                                                               \
      for (; i < n; ++i) y[i] = v[0];                                                          \
    } else {                                                                                   \
      for (; i + 2 * VB_W <= n; i += 2 * VB_W) { /* two vectors per step: half the loop overhead */ \
        VB_STORE(y + i, OP_V(a_step ? VB_LOAD(a + i) : va, b_step ? VB_LOAD(b + i) : vb));     \
        VB_STORE(y + i + VB_W,                                                                 \
                 OP_V(a_step ? VB_LOAD(a + i + VB_W) : va, b_step ? VB_LOAD(b + i + VB_W) : vb)); \
      }                                                                                        \
      for (; i + VB_W <= n; i += VB_W)                                                         \
        VB_STORE(y + i, OP_V(a_step ? VB_LOAD(a + i) : va, b_step ? VB_LOAD(b + i) : vb));     \
      if (i < n) {                                                                             \
        float ta[VB_W] = {0}, tb[VB_W] = {0}, ty[VB_W];                                        \
        for (size_t j = i; j < n; ++j) ta[j - i] = a[a_step ? j : 0], tb[j - i] = b[b_step ? j : 0]; \
        VB_STORE(ty, OP_V(VB_LOAD(ta), VB_LOAD(tb)));                                          \
        for (size_t j = i; j < n; ++j) y[j] = ty[j - i];                                       \
      }                                                                                        \
    }                                                                                          \
  }

void VB_FN(int op, size_t n, const float* a, int a_step, const float* b, int b_step, float* y) {
  size_t i = 0;
  if (n == 0) return;
  switch (op) {
    case LITE_BIN_ADD: VB_LOOPS(VB_ADD) break;
    case LITE_BIN_SUB: VB_LOOPS(VB_SUB) break;
    case LITE_BIN_MUL: VB_LOOPS(VB_MUL) break;
    case LITE_BIN_DIV: VB_LOOPS(VB_DIV) break;
    case LITE_BIN_PRELU: VB_LOOPS(VB_PRELU) break;
    default: break;
  }
}

#undef VB_LOOPS
