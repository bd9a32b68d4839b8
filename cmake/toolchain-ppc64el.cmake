# Cross build for ppc64el (64-bit POWER, little-endian) Debian 12: `tools/loadlens cross ppc64el`
# configures build-ppc64el/ with it (cmake/toolchain-debian-cross.cmake: the compilers, the
# sysroot, pkg-config); BPF with __TARGET_ARCH_powerpc.
set(LL_CROSS_PROCESSOR ppc64le)
set(LL_CROSS_TRIPLET powerpc64le-linux-gnu)
set(LL_CROSS_DEBARCH ppc64el)
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-debian-cross.cmake)
