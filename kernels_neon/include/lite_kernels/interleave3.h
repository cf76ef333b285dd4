/* Interleaving three planes into pixels: out[3 * i + k] = plane_k[i]. This is the NCHW -> NHWC
 * TRANSPOSE of an RGB image (the first op of every image model converted from NCHW), which the
 * generic strided copy does one element at a time. Pure data movement: every variant gives the
 * same bytes. */
#ifndef LITE_KERNELS_INTERLEAVE3_H
#define LITE_KERNELS_INTERLEAVE3_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* n pixels of 4-byte elements (fp32 / int32 bit patterns). */
typedef void (*lite_interleave3_u32_fn)(size_t n, const uint32_t* p0, const uint32_t* p1, const uint32_t* p2,
                                        uint32_t* out);

/* n pixels of 1-byte elements (int8 images: the int8 converter quantizes before transposing). */
typedef void (*lite_interleave3_u8_fn)(size_t n, const uint8_t* p0, const uint8_t* p1, const uint8_t* p2,
                                       uint8_t* out);

/* The fastest variants these lite_cpu_features() bits allow (the byte kernel also asks cpuid for
 * AVX-512 VBMI); never NULL. */
lite_interleave3_u32_fn lite_interleave3_u32_select(uint32_t features);
lite_interleave3_u8_fn lite_interleave3_u8_select(uint32_t features);

void lite_interleave3_u32_portable(size_t n, const uint32_t* p0, const uint32_t* p1, const uint32_t* p2,
                                   uint32_t* out);
void lite_interleave3_u32_avx512(size_t n, const uint32_t* p0, const uint32_t* p1, const uint32_t* p2,
                                 uint32_t* out);
void lite_interleave3_u8_portable(size_t n, const uint8_t* p0, const uint8_t* p1, const uint8_t* p2, uint8_t* out);
void lite_interleave3_u8_avx512vbmi(size_t n, const uint8_t* p0, const uint8_t* p1, const uint8_t* p2, uint8_t* out);

#ifdef __cplusplus
}
#endif

#endif
