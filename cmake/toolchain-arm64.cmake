# Cross build for arm64 (aarch64) Debian 12: `tools/loadlens cross arm64` configures build-arm64/
# with it. User space: Debian's cross compilers (crossbuild-essential-arm64) against an arm64 root
# filesystem as the sysroot (tools/kernels/foreign.py makes it with mmdebstrap: the -dev packages'
# arm64 halves, which cannot be installed beside the host's); BPF: clang -target bpf with
# __TARGET_ARCH_arm64 (cmake/BpfObject.cmake, from CMAKE_SYSTEM_PROCESSOR).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
if(NOT LOADLENS_SYSROOT)
	set(LOADLENS_SYSROOT /var/cache/loadlens/kernels/sysroot-arm64)
endif()
set(CMAKE_SYSROOT ${LOADLENS_SYSROOT})
# try_compile projects see the same sysroot
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES LOADLENS_SYSROOT)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config reads the sysroot's arm64 .pc files, and prefixes their paths with it
set(ENV{PKG_CONFIG_SYSROOT_DIR} ${LOADLENS_SYSROOT})
set(ENV{PKG_CONFIG_LIBDIR}
	${LOADLENS_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${LOADLENS_SYSROOT}/usr/share/pkgconfig)
