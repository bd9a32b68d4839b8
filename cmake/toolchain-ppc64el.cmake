# Cross build for ppc64el (64-bit POWER, little-endian) Debian 12: `tools/loadlens cross ppc64el`
# configures build-ppc64el/ with it. User space: Debian's cross compilers
# (crossbuild-essential-ppc64el) against a ppc64el root filesystem as the sysroot
# (tools/kernels/foreign.py makes it with mmdebstrap: the -dev packages' ppc64el halves); BPF:
# clang -target bpf with __TARGET_ARCH_powerpc (cmake/BpfObject.cmake, from
# CMAKE_SYSTEM_PROCESSOR).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ppc64le)
set(CMAKE_C_COMPILER powerpc64le-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER powerpc64le-linux-gnu-g++)
if(NOT LOADLENS_SYSROOT)
	set(LOADLENS_SYSROOT /var/cache/loadlens/kernels/sysroot-ppc64el)
endif()
set(CMAKE_SYSROOT ${LOADLENS_SYSROOT})
# try_compile projects see the same sysroot
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES LOADLENS_SYSROOT)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config reads the sysroot's ppc64el .pc files, and prefixes their paths with it
set(ENV{PKG_CONFIG_SYSROOT_DIR} ${LOADLENS_SYSROOT})
set(ENV{PKG_CONFIG_LIBDIR}
	${LOADLENS_SYSROOT}/usr/lib/powerpc64le-linux-gnu/pkgconfig:${LOADLENS_SYSROOT}/usr/share/pkgconfig)
