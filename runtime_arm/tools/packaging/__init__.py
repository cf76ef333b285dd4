"""Raspberry Pi packages of the runtime (``make package``): Debian .debs and Python wheels for ARM.

``deb.py`` builds lite-edge-runtime_<version>_<arch>.deb from a cross build, ``wheel.py`` the
lite_edge wheel for linux_aarch64 / linux_armv7l with the ARM runtime library inside, ``rootfs.py``
the Debian bookworm userlands (debootstrap, no binfmt) that tests/test_packages.py installs them into
and runs under qemu-user. docs/RASPBERRY_PI.md is the user's side.
"""
