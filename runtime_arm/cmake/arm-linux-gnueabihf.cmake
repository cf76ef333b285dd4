# Cross build for 32-bit ARM Linux with hard float (Raspberry Pi OS 32-bit on Pi 2/3/4/5) with
# Debian's gcc-arm-linux-gnueabihf. NEON + VFPv4 (fused multiply-add) is the Pi 2 and later baseline;
# the Pi 1 / Zero (ARMv6, no NEON) are not supported. Run under
# `qemu-arm -L /usr/arm-linux-gnueabihf -cpu cortex-a7`.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR armv7)

set(LITE_CROSS_TRIPLE arm-linux-gnueabihf)
set(CMAKE_C_COMPILER ${LITE_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${LITE_CROSS_TRIPLE}-g++)
set(LITE_CROSS_QEMU qemu-arm)
set(CMAKE_STRIP ${LITE_CROSS_TRIPLE}-strip CACHE FILEPATH "strip for the target")

set(CMAKE_C_FLAGS_INIT "-march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard")
# -Wno-psabi: GCC notes that std::vector iterators are passed differently than GCC < 7.1 did;
# nothing here links against such old C++ code.
set(CMAKE_CXX_FLAGS_INIT "-march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard -Wno-psabi")
# Segments aligned to 16 KB pages (ld's armhf default is 4 KB), as on aarch64: a Pi 5's kernel may use
# 16 KB pages under a 32-bit userland, and the JNI library built here is checked for Android 15+'s rule.
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-Wl,-z,max-page-size=16384")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-z,max-page-size=16384")

include(${CMAKE_CURRENT_LIST_DIR}/lite_cross_common.cmake)
