# Cross-build for aarch64 (Kunpeng and other arm64 hosts) on an amd64 Debian 12 machine.
# What it needs is installed by `tools/install-deps.sh arm64`: Debian's crossbuild-essential-arm64,
# the `:arm64` -dev packages, qemu-user, and, for the two -dev packages that cannot sit beside their
# amd64 twins (libsimdjson-dev and libyaml-cpp-dev are not Multi-Arch: same), their arm64 files
# unpacked under build/sysroot-arm64. Tests run the arm64 binaries under qemu-user (cmake --preset
# arm64; tools/test.sh arm64 builds and runs the suite, tools/package.sh build/arm64 the .deb).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

get_filename_component(_dtriage_source "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(DTRIAGE_ARM64_EXTRA_ROOT "${_dtriage_source}/build/sysroot-arm64")
# Libraries and packages: the machine's own multiarch folders (/usr/lib/aarch64-linux-gnu), then
# the unpacked extras; programs (python3, gzip, ...) from the build machine.
set(CMAKE_FIND_ROOT_PATH / "${DTRIAGE_ARM64_EXTRA_ROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# ctest and gtest_discover_tests run the test programs through this; test helpers that spawn
# dtriage themselves go through the wrapper tests/CMakeLists.txt writes from it.
# `-L /`: the dynamic loader and libc of libc6:arm64 (the :arm64 libraries are built against them).
# The cross toolchain's own copy under /usr/aarch64-linux-gnu may be another Debian revision, and
# its loader with that libc hangs in the first pthread_create.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /)
