/* Both directions walk the "space" tensor (the larger spatial one) pixel by pixel and move its
 * channels to or from their slots in the "depth" tensor; DCR slots are contiguous (one memcpy),
 * CRD slots are strided by block * block elements. */
#include <string.h>

#include "lite_kernels/depth_to_space.h"

/* Copies `count` elements between a contiguous run and a run strided by `stride` elements. */
static void strided_copy(unsigned char* dst, size_t dst_stride, const unsigned char* src, size_t src_stride,
                         size_t count, size_t element_size) {
  for (size_t k = 0; k < count; ++k)
    memcpy(dst + k * dst_stride * element_size, src + k * src_stride * element_size, element_size);
}

/* to_depth == 0: depth -> space (DEPTH_TO_SPACE); 1: space -> depth. */
static void move_blocks(size_t batch, size_t depth_h, size_t depth_w, size_t depth_c, size_t block, int crd,
                        size_t element_size, const unsigned char* src, unsigned char* dst, int to_depth) {
  const size_t space_c = depth_c / (block * block), space_w = depth_w * block;
  const size_t e = element_size;
  for (size_t n = 0; n < batch; ++n)
    for (size_t h = 0; h < depth_h; ++h)
      for (size_t i = 0; i < block; ++i)
        for (size_t w = 0; w < depth_w; ++w)
          for (size_t j = 0; j < block; ++j) {
            const size_t space_pixel = (n * depth_h * block + h * block + i) * space_w + w * block + j;
            const size_t depth_pixel = (n * depth_h + h) * depth_w + w;
            unsigned char* space = (unsigned char*)(to_depth ? src : dst) + space_pixel * space_c * e;
            unsigned char* depth = (unsigned char*)(to_depth ? dst : src) + depth_pixel * depth_c * e;
            if (!crd) {
              unsigned char* slot = depth + (i * block + j) * space_c * e;
              if (to_depth)
                memcpy(slot, space, space_c * e);
              else
                memcpy(space, slot, space_c * e);
            } else {
              unsigned char* slot = depth + (i * block + j) * e;
              if (to_depth)
                strided_copy(slot, block * block, space, 1, space_c, e);
              else
                strided_copy(space, 1, slot, block * block, space_c, e);
            }
          }
}

void lite_depth_to_space_nhwc_ref(size_t batch, size_t in_h, size_t in_w, size_t in_c, size_t block, int crd,
                                  size_t element_size, const void* input, void* output) {
  move_blocks(batch, in_h, in_w, in_c, block, crd, element_size, (const unsigned char*)input,
              (unsigned char*)output, 0);
}

void lite_space_to_depth_nhwc_ref(size_t batch, size_t in_h, size_t in_w, size_t in_c, size_t block, int crd,
                                  size_t element_size, const void* input, void* output) {
  move_blocks(batch, in_h / block, in_w / block, in_c * block * block, block, crd, element_size,
              (const unsigned char*)input, (unsigned char*)output, 1);
}
