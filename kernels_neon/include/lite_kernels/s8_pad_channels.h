/* Copying NHWC pixels into a tensor with more channels per pixel: y[i * padded + c] = x[i * channels + c]
 * for c < channels, `fill` for the added channels. An int8 convolution on fewer channels than its
 * GEMM's k-group (a 3x3 stem on an RGB image: 9-byte kernel rows for 4-byte groups) runs on such a
 * copy with zero weights in the added channels, so its kernel rows can be read in place. Pure data
 * movement: every variant gives the same bytes. */
#ifndef LITE_KERNELS_PAD_CHANNELS_H
#define LITE_KERNELS_PAD_CHANNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* pixels pixels of `channels` bytes into pixels of `padded_channels` >= channels bytes. */
typedef void (*lite_s8_pad_channels_fn)(size_t pixels, size_t channels, size_t padded_channels, const int8_t* x,
                                        int8_t fill, int8_t* y);

/* The fastest variant for this channel count that these lite_cpu_features() bits allow; never NULL. */
lite_s8_pad_channels_fn lite_s8_pad_channels_select(uint32_t features, size_t channels, size_t padded_channels);

/* Any channel counts. */
void lite_s8_pad_channels_portable(size_t pixels, size_t channels, size_t padded_channels, const int8_t* x,
                                   int8_t fill, int8_t* y);
/* 3 -> 4 channels only (AVX-512 BW: 16 pixels per step). */
void lite_s8_pad_channels_3to4_avx512(size_t pixels, size_t channels, size_t padded_channels, const int8_t* x,
                                      int8_t fill, int8_t* y);

#ifdef __cplusplus
}
#endif

#endif
