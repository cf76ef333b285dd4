# Cross build for 64-bit ARM Linux (Raspberry Pi OS 64-bit, Jetson, Graviton, ...) with Debian's
# gcc-aarch64-linux-gnu / g++-aarch64-linux-gnu. Run the results under
# `qemu-aarch64 -L /usr/aarch64-linux-gnu`. Baseline ISA is armv8-a (NEON is mandatory there);
# dotprod/i8mm/fp16 kernels get their own -march per file and are chosen at run time.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(LITE_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${LITE_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${LITE_CROSS_TRIPLE}-g++)
set(LITE_CROSS_QEMU qemu-aarch64)
set(CMAKE_STRIP ${LITE_CROSS_TRIPLE}-strip CACHE FILEPATH "strip for the target")
# Segments aligned to 16 KB pages instead of ld's 64 KB default: the RELRO segment's end is padded
# to that alignment in the file (48 KB of zeros in a 590 KB library). 16 KB pages are the largest
# that edge systems use (Android 15+, Raspberry Pi 5 kernels); a 64 KB-page kernel (some server
# distributions) would refuse this library.
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-Wl,-z,max-page-size=16384")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-z,max-page-size=16384")

include(${CMAKE_CURRENT_LIST_DIR}/lite_cross_common.cmake)
