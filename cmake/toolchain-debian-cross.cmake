# The part of a cross build for a Debian 12 architecture that every one shares (included by
# cmake/toolchain-arm64.cmake and cmake/toolchain-ppc64el.cmake, which set LL_CROSS_PROCESSOR,
# LL_CROSS_TRIPLET and LL_CROSS_DEBARCH first): Debian's cross compilers
# (crossbuild-essential-DEBARCH) against a root filesystem of that architecture as the sysroot
# (tools/kernels/foreign.py makes it with mmdebstrap: the -dev packages' halves of that
# architecture, which cannot be installed beside the host's); BPF: clang -target bpf with that
# architecture's __TARGET_ARCH_ (cmake/BpfObject.cmake, from CMAKE_SYSTEM_PROCESSOR).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${LL_CROSS_PROCESSOR})
set(CMAKE_C_COMPILER ${LL_CROSS_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${LL_CROSS_TRIPLET}-g++)
if(NOT LOADLENS_SYSROOT)
	set(LOADLENS_SYSROOT /var/cache/loadlens/kernels/sysroot-${LL_CROSS_DEBARCH})
endif()
set(CMAKE_SYSROOT ${LOADLENS_SYSROOT})
# try_compile projects see the same sysroot and architecture
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES LOADLENS_SYSROOT LL_CROSS_PROCESSOR
	LL_CROSS_TRIPLET LL_CROSS_DEBARCH)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config reads the sysroot's .pc files of that architecture, and prefixes their paths with it
set(ENV{PKG_CONFIG_SYSROOT_DIR} ${LOADLENS_SYSROOT})
set(ENV{PKG_CONFIG_LIBDIR}
	${LOADLENS_SYSROOT}/usr/lib/${LL_CROSS_TRIPLET}/pkgconfig:${LOADLENS_SYSROOT}/usr/share/pkgconfig)
