# Cross build for arm64 (aarch64) Debian 12: `tools/loadlens cross arm64` configures build-arm64/
# with it (cmake/toolchain-debian-cross.cmake: the compilers, the sysroot, pkg-config).
set(LL_CROSS_PROCESSOR aarch64)
set(LL_CROSS_TRIPLET aarch64-linux-gnu)
set(LL_CROSS_DEBARCH arm64)
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-debian-cross.cmake)
