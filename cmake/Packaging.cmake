# Install layout and the Debian package (docs/packaging.md).
#   bin/     loadlens-driver, loadlens-refserver        share/man/man1, man8: their man pages
#   sbin/    loadlens-observer (needs root)             share/doc/loadlens: README, docs/*.md
#   lib/systemd/system/loadlens-observer.service        share/bash-completion/completions/*
#   etc/default/loadlens-observer (ARGS; /etc/default under the /usr prefix)
# Man pages are generated from --help and --version with help2man, plus packaging/man/*.h2m,
# and gzipped as Debian ships them.
include(GNUInstallDirs)

install(TARGETS loadlens-driver RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

find_program(HELP2MAN help2man)
# a cross build's binaries do not run here: no man pages from them (the native build has them)
if(HELP2MAN AND NOT CMAKE_CROSSCOMPILING)
	set(LL_MAN_DIR ${CMAKE_BINARY_DIR}/man)
	set(LL_MAN_PAGES)
	foreach(page loadlens-driver:1 loadlens-refserver:1 loadlens-observer:8)
		string(REPLACE ":" ";" page ${page})
		list(GET page 0 prog)
		list(GET page 1 section)
		set(page ${LL_MAN_DIR}/${prog}.${section})
		set(out ${page}.gz)
		set(inc ${CMAKE_SOURCE_DIR}/packaging/man/${prog}.h2m)
		add_custom_command(OUTPUT ${out}
			COMMAND ${CMAKE_COMMAND} -E make_directory ${LL_MAN_DIR}
			COMMAND ${HELP2MAN} --no-info --no-discard-stderr --section=${section}
				--include=${inc} --output=${page} $<TARGET_FILE:${prog}>
			COMMAND gzip -9nf ${page}
			DEPENDS ${prog} ${inc}
			COMMENT "help2man ${prog}.${section}"
			VERBATIM)
		list(APPEND LL_MAN_PAGES ${out})
		install(FILES ${out} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
	endforeach()
	add_custom_target(man ALL DEPENDS ${LL_MAN_PAGES})
elseif(NOT CMAKE_CROSSCOMPILING)
	message(WARNING "help2man not found: no man pages (apt-get install help2man)")
endif()

install(FILES README.md docs/driver.md docs/observer.md docs/refserver.md
	docs/packaging.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# the pages driver.md and observer.md link to, in folders beside them
install(DIRECTORY docs/driver docs/observer DESTINATION ${CMAKE_INSTALL_DOCDIR}
	FILES_MATCHING PATTERN "*.md")

# Debian's doc files: the copyright (machine-readable, MIT) and the changelog of this native
# package, gzipped as dpkg wants it (lintian: no-copyright-file, no-changelog)
set(LOADLENS_MAINTAINER "loadlens maintainers <maintainers@loadlens.invalid>" CACHE STRING
	"the package's Maintainer (Name <address>): set it when you publish the package")
configure_file(${CMAKE_SOURCE_DIR}/packaging/deb/changelog.in ${CMAKE_BINARY_DIR}/deb/changelog
	@ONLY)
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/deb/changelog.gz
	COMMAND gzip -9nkf ${CMAKE_BINARY_DIR}/deb/changelog
	DEPENDS ${CMAKE_BINARY_DIR}/deb/changelog
	COMMENT "changelog.gz"
	VERBATIM)
add_custom_target(deb_changelog ALL DEPENDS ${CMAKE_BINARY_DIR}/deb/changelog.gz)
install(FILES ${CMAKE_BINARY_DIR}/deb/changelog.gz packaging/deb/copyright
	DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES packaging/loadlens-observer.service DESTINATION lib/systemd/system)
# /etc/default under the /usr prefix (the package), PREFIX/etc/default otherwise: decided when
# installing, since cpack installs with its own prefix (file(INSTALL) adds DESTDIR itself)
install(CODE "
	if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
		set(ll_etc /etc)
	else()
		set(ll_etc \"\${CMAKE_INSTALL_PREFIX}/etc\")
	endif()
	file(INSTALL DESTINATION \"\${ll_etc}/default\" TYPE FILE
		RENAME loadlens-observer
		FILES \"${CMAKE_SOURCE_DIR}/packaging/loadlens-observer.default\")
")
foreach(prog loadlens-driver loadlens-observer loadlens-refserver)
	install(FILES packaging/bash-completion/loadlens
		DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME ${prog})
endforeach()

# cpack -G DEB: one package, loadlens, for /usr
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME loadlens)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${LOADLENS_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
	"load generator and eBPF observer: where request time goes, why connections fail")
# lines of at most 80 characters (lintian: extended-description-line-too-long)
set(CPACK_PACKAGE_DESCRIPTION
	"loadlens-driver is an unprivileged libuv load generator (TCP, UDP, HTTP;\n\
open and closed loop; honest latency). loadlens-observer counts accepted\n\
connections, TIME_WAIT, port pressure, fds and per-request queue and service\n\
time from kernel tracepoints, without touching the server. loadlens-refserver\n\
is a reference server whose behaviour is known.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# installed binaries are stripped (lintian: unstripped-binary-or-object); the build tree keeps
# its symbols
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "bash-completion")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
	${CMAKE_SOURCE_DIR}/packaging/deb/postinst
	${CMAKE_SOURCE_DIR}/packaging/deb/prerm
	${CMAKE_SOURCE_DIR}/packaging/deb/postrm
	${CMAKE_SOURCE_DIR}/packaging/deb/conffiles)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
