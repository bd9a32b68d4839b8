# bpf_object(<name> <source.bpf.c> [CFLAGS...])
#
# Compiles a BPF program with clang (-target bpf, CO-RE, -g for BTF) and generates its libbpf
# skeleton with bpftool. Creates the INTERFACE target <name>_skel: link it to get <name>.skel.h on
# the include path. Header dependencies are tracked through clang's depfile, so editing a shared
# header under include/loadlens/ rebuilds every BPF object that includes it.

find_program(BPF_CLANG NAMES clang clang-14 REQUIRED)
find_program(BPFTOOL NAMES bpftool PATHS /usr/sbin /usr/local/sbin REQUIRED)

if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|amd64")
	set(BPF_TARGET_ARCH x86)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
	set(BPF_TARGET_ARCH arm64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "ppc64|powerpc")
	set(BPF_TARGET_ARCH powerpc)
else()
	set(BPF_TARGET_ARCH ${CMAKE_SYSTEM_PROCESSOR})
endif()

# clang -target bpf does not know the target's multiarch include directory (asm/types.h lives
# there); ask the C compiler, the way libbpf-bootstrap does. A cross build reads the headers of
# its sysroot (cmake/toolchain-arm64.cmake, cmake/toolchain-ppc64el.cmake).
execute_process(COMMAND ${CMAKE_C_COMPILER} -print-multiarch
		OUTPUT_VARIABLE BPF_MULTIARCH OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
set(BPF_SYS_INCLUDES -idirafter ${CMAKE_SYSROOT}/usr/include)
if(BPF_MULTIARCH)
	list(APPEND BPF_SYS_INCLUDES -idirafter ${CMAKE_SYSROOT}/usr/include/${BPF_MULTIARCH})
endif()

function(bpf_object name src)
	set(obj ${CMAKE_CURRENT_BINARY_DIR}/${name}.bpf.o)
	set(tmp ${CMAKE_CURRENT_BINARY_DIR}/${name}.tmp.bpf.o)
	set(skel ${CMAKE_CURRENT_BINARY_DIR}/${name}.skel.h)
	get_filename_component(abs_src ${src} ABSOLUTE)
	add_custom_command(
		OUTPUT ${obj}
		COMMAND ${BPF_CLANG} -g -O2 -target bpf -D__TARGET_ARCH_${BPF_TARGET_ARCH} ${ARGN}
			-Wall -Werror -Wno-unused-function
			-I${CMAKE_SOURCE_DIR}/include -I${CMAKE_SOURCE_DIR}/bpf ${BPF_SYS_INCLUDES}
			-MD -MT ${obj} -MF ${obj}.d -c ${abs_src} -o ${tmp}
		COMMAND ${BPFTOOL} gen object ${obj} ${tmp}
		DEPFILE ${obj}.d
		DEPENDS ${abs_src}
		COMMENT "BPF ${name}.bpf.o"
		VERBATIM)
	add_custom_command(
		OUTPUT ${skel}
		COMMAND ${BPFTOOL} gen skeleton ${obj} name ${name}_bpf > ${skel}
		DEPENDS ${obj}
		COMMENT "skeleton ${name}.skel.h"
		VERBATIM)
	add_custom_target(${name}_skel_gen DEPENDS ${skel})
	add_library(${name}_skel INTERFACE)
	target_include_directories(${name}_skel INTERFACE ${CMAKE_CURRENT_BINARY_DIR})
	add_dependencies(${name}_skel ${name}_skel_gen)
endfunction()
