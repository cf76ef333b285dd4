/* Top-k selection with a heap of k candidate indices whose root is the worst candidate: one pass
 * over the slice (O(n log k)), then an in-place heap sort puts the k winners in order. */
#include "lite_kernels/top_k.h"

/* BETTER(a, b): element index a ranks before element index b of slice x (stride `inner`). */
#define DEFINE_TOP_K(name, T)                                                                                \
  static int name##_better(const T* x, size_t inner, int largest, int64_t a, int64_t b) {                   \
    const T va = x[(size_t)a * inner], vb = x[(size_t)b * inner];                                           \
    if (va != vb) return largest ? va > vb : va < vb;                                                       \
    return a < b;                                                                                           \
  }                                                                                                         \
  /* Restores the heap property below `root` for a heap of `size` entries (root = worst). */                \
  static void name##_sift_down(const T* x, size_t inner, int largest, int64_t* heap, size_t size,          \
                               size_t root) {                                                               \
    for (;;) {                                                                                              \
      size_t worst = root;                                                                                  \
      const size_t left = 2 * root + 1, right = left + 1;                                                   \
      if (left < size && name##_better(x, inner, largest, heap[worst], heap[left])) worst = left;           \
      if (right < size && name##_better(x, inner, largest, heap[worst], heap[right])) worst = right;        \
      if (worst == root) return;                                                                            \
      const int64_t t = heap[root];                                                                         \
      heap[root] = heap[worst];                                                                             \
      heap[worst] = t;                                                                                      \
      root = worst;                                                                                         \
    }                                                                                                       \
  }                                                                                                         \
  void name(size_t outer, size_t axis_len, size_t inner, size_t k, int largest, const T* input, T* values,  \
            int64_t* indices, int64_t* heap) {                                                              \
    if (k == 0) return;                                                                                     \
    for (size_t o = 0; o < outer; ++o)                                                                      \
      for (size_t i = 0; i < inner; ++i) {                                                                  \
        const T* x = input + o * axis_len * inner + i;                                                      \
        for (size_t j = 0; j < k; ++j) heap[j] = (int64_t)j;                                                \
        for (size_t j = k / 2; j-- > 0;) name##_sift_down(x, inner, largest, heap, k, j);                   \
        for (size_t j = k; j < axis_len; ++j)                                                               \
          if (name##_better(x, inner, largest, (int64_t)j, heap[0])) {                                      \
            heap[0] = (int64_t)j;                                                                           \
            name##_sift_down(x, inner, largest, heap, k, 0);                                                \
          }                                                                                                 \
        /* Heap sort: move the worst remaining candidate to the back until the heap is empty. */            \
        for (size_t size = k; size > 1; --size) {                                                           \
          const int64_t t = heap[0];                                                                        \
          heap[0] = heap[size - 1];                                                                         \
          heap[size - 1] = t;                                                                               \
          name##_sift_down(x, inner, largest, heap, size - 1, 0);                                           \
        }                                                                                                   \
        for (size_t j = 0; j < k; ++j) {                                                                    \
          const size_t out = (o * k + j) * inner + i;                                                       \
          indices[out] = heap[j];                                                                           \
          values[out] = x[(size_t)heap[j] * inner];                                                         \
        }                                                                                                   \
      }                                                                                                     \
  }

DEFINE_TOP_K(lite_f32_top_k_ref, float)
DEFINE_TOP_K(lite_s32_top_k_ref, int32_t)
DEFINE_TOP_K(lite_s64_top_k_ref, int64_t)
