/* WHERE: out = cond ? x : y with numpy broadcasting of all three, for any element size. */
#ifndef LITE_KERNELS_WHERE_H
#define LITE_KERNELS_WHERE_H

#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/broadcast.h"

#ifdef __cplusplus
extern "C" {
#endif

/* plan inputs: 0 = cond (BOOL, one byte), 1 = x, 2 = y; elements of x, y, out are elem_size bytes. */
void lite_where_ref(const lite_bcast* plan, const uint8_t* cond, const void* x, const void* y, void* out,
                    size_t elem_size);

#ifdef __cplusplus
}
#endif

#endif
