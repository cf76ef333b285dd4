# Shared by the Debian cross toolchain files: where the target's libraries and headers live.
# Debian installs them under /usr/<triple>; programs (flatc, python) come from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${LITE_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# qemu-user runs the target's executables (ctest, try_run); binfmt is not set up, so name it.
set(CMAKE_CROSSCOMPILING_EMULATOR ${LITE_CROSS_QEMU} -L /usr/${LITE_CROSS_TRIPLE})
